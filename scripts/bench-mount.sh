#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-mount.sh: reading through `destor mount` against read-file (a
# figure with a goal, not a test).
#
# usage: scripts/bench-mount.sh
# environment: DESTOR (default build/destor); REPEAT (default 3) rounds, of
#   which the medians are printed; SIZE (default 1G) of the file read
#   whole; FILES (default 20000) small files in the tree listed; TMPDIR:
#   where the store and the mount point are made; KEEP: when set, the
#   scratch directory is kept; CACHE: container or chunk to read through
#   an SSD cache of that granularity (lru, 100%, in TMPDIR too; warm from
#   the first round on, and never dropped from the page cache), none
#   (the default) to read from the store; READAHEAD_KB: when set (root),
#   the kernel's read-ahead of each mount in KiB (its backing device's
#   read_ahead_kb in /sys/class/bdi; else the kernel's default, 128).
#
# The store (2 MiB containers) holds one job: a file of SIZE
# incompressible bytes, 8 files of SIZE/8 and FILES small files in
# directories of 100. Each round, alternating, with the store's containers
# dropped from the page cache before each (fsync, then
# POSIX_FADV_DONTNEED) and each reader on a fresh mount (so the kernel
# holds none of the file's pages):
#   read-file JOB big -o OUT, then cat of the same file through the mount
#   (to /dev/null); the ratio is cat's speed over read-file's (goal, issue
#   40: >= 0.8);
#   the 8 files of SIZE/8 by one cat after another and by 8 cats at once,
#   in turn first (goal, issue 40: 8 at once >= 1.5 x one after another),
#   once with the store dropped from the page cache (the disk counts) and
#   once with it read into the page cache first (the mount's work alone),
#   with the CPU time of the cats and of the mount process (its threads:
#   8 readers at once keep both cores busy only if the mount does);
# and once per round on a warm mount: ls -lR of the tree of FILES files
# (goal: 200,000 files in <= 2 s), the CPU time of ls and of the mount, and
# the mount's resident memory after it; then ls -lR of the tree the job was
# made from on the local file system (the same listing without FUSE).
# Then, when fio is installed (else it says so and stops there), FIO_IOS
# (default 20000) random 4 KiB reads of the big file, offsets drawn once:
# by fio through the mount (O_DIRECT, one at a time, replaying an I/O log)
# and by read-file --trace of the same offsets, in turn first, each from an
# empty SSD cache of 25% (CACHE's granularity; container when CACHE is
# none) with the store's containers dropped from the page cache: IOPS,
# the cache's hit ratio (the mount's from MOUNT/.destor/stats.json) and
# the p99 latency (fio's completion latency, and each reader's own per
# request).
# The load average is printed before and after: other work on the machine
# skews every figure.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
REPEAT=${REPEAT:-3}
SIZE=${SIZE:-1G}
FILES=${FILES:-20000}
CACHE=${CACHE:-none}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-mount: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
command -v fusermount3 >/dev/null 2>&1 || { echo "bench-mount: fusermount3 missing (run scripts/setup.sh)" >&2; exit 2; }
[ -c /dev/fuse ] || { echo "bench-mount: /dev/fuse is missing: no FUSE mount can be made here" >&2; exit 2; }
case $CACHE in
none | container | chunk) ;;
*) echo "bench-mount: CACHE is none, container or chunk, not '$CACHE'" >&2; exit 2 ;;
esac

WORK=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-mount.XXXXXX")")
MNT="$WORK/mnt"
MPID=""
cleanup() {
    fusermount3 -u -z "$MNT" 2>/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
mkdir "$MNT" "$WORK/data" "$WORK/data/eight" "$WORK/data/tree"
printf 'working-directory "%s/store"\ncontainer-size 2M\n' "$WORK" > "$WORK/config"
bytes=$("$PYTHON" -c 'import sys
s = sys.argv[1]; m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))' "$SIZE")
# incompressible bytes, distinct per file (AES-CTR of zeros, a key each)
random_file() { openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$2")" -iv 0 -in /dev/zero 2>/dev/null | head -c "$1" > "$3"; }
random_file "$bytes" 1 "$WORK/data/big"
for i in 1 2 3 4 5 6 7 8; do random_file $((bytes / 8)) $((100 + i)) "$WORK/data/eight/part$i"; done
"$PYTHON" - "$WORK/data/tree" "$FILES" <<'PY'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(top, "d%04d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "w") as f:
        f.write("file %d\n" % i)
PY
"$DESTOR" -c "$WORK/config" backup "$WORK/data" >/dev/null
[ "$CACHE" = none ] || printf 'ssd-cache-policy lru\nssd-cache-directory "%s/cache"\nssd-cache-size 100%%\nssd-cache-granularity %s\n' \
    "$WORK" "$CACHE" >> "$WORK/config"

uncache() {
    "$PYTHON" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$WORK/store/containers.pool"
}
# start_mount [CONFIG]: a mount of the store (default config) in the background
start_mount() {
    "$DESTOR" -c "${1:-$WORK/config}" mount -f "$MNT" >>"$WORK/mount.out" 2>>"$WORK/mount.err" &
    MPID=$!
    i=0
    until grep -q " $MNT fuse.destor " /proc/mounts; do
        i=$((i + 1))
        [ "$i" -lt 400 ] || { cat "$WORK/mount.err" >&2; echo "bench-mount: not mounted" >&2; exit 1; }
        sleep 0.05
    done
    [ -z "${READAHEAD_KB:-}" ] || "$PYTHON" -c 'import os, sys
d = os.stat(sys.argv[1]).st_dev
open("/sys/class/bdi/%d:%d/read_ahead_kb" % (os.major(d), os.minor(d)), "w").write(sys.argv[2])' "$MNT" "$READAHEAD_KB"
}
stop_mount() {
    fusermount3 -u "$MNT"
    wait "$MPID"
}
# seconds CMD...: the wall time of CMD, on stdout, then the CPU time
# (user + system) of it and its children
seconds() { "$PYTHON" -c 'import resource, subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
t = time.monotonic() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f %.4f" % (t, u.ru_utime + u.ru_stime))' "$@"; }
# mount_cpu: the CPU seconds (user + system) of the running mount so far
mount_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.4f\n", ($14 + $15) / hz }' "/proc/$MPID/stat"; }
# eight HOW [warm]: the 8 files through a fresh mount, one cat after
# another (serial) or 8 cats at once (parallel), the store's containers
# dropped from the page cache first, or with `warm` read into it first (the
# mount's own work alone, no disk): a line of results
eight() {
    if [ "${2:-}" = warm ]; then
        cat "$WORK/store/containers.pool" > /dev/null
    else
        uncache
    fi
    start_mount
    if [ "$1" = serial ]; then
        t=$(seconds sh -c 'for f in "$1"/part*; do cat "$f" > /dev/null; done' sh "$MNT/0/eight")
    else
        t=$(seconds sh -c 'for f in "$1"/part*; do cat "$f" > /dev/null & done; wait' sh "$MNT/0/eight")
    fi
    echo "${2:+w}$1 $t $(mount_cpu)" >> "$WORK/results"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$WORK/results"
r=1
while [ "$r" -le "$REPEAT" ]; do
    uncache
    t=$(seconds "$DESTOR" -c "$WORK/config" read-file 0 big -o "$WORK/out" | cut -d' ' -f1)
    cmp -s "$WORK/out" "$WORK/data/big" || { echo "bench-mount: read-file read other bytes" >&2; exit 1; }
    rm -f "$WORK/out"
    echo "read-file $t" >> "$WORK/results"
    uncache
    start_mount
    t=$(seconds sh -c 'cat "$1" > /dev/null' sh "$MNT/0/big" | cut -d' ' -f1)
    echo "cat $t" >> "$WORK/results"
    stop_mount
    # one after another and 8 at once, each first in every other round
    if [ $((r % 2)) -eq 1 ]; then
        eight serial
        stop_mount
        eight parallel
        stop_mount
        eight serial warm
        stop_mount
        eight parallel warm
    else
        eight parallel
        stop_mount
        eight serial
        stop_mount
        eight parallel warm
        stop_mount
        eight serial warm
    fi
    ls -lR "$MNT/0/tree" > /dev/null # warm: the kernel and the store's files in the page cache
    c0=$(mount_cpu)
    t=$(seconds sh -c 'ls -lR "$1" > /dev/null' sh "$MNT/0/tree")
    echo "ls $t $(awk '/^VmRSS/ {print $2}' "/proc/$MPID/status") $c0 $(mount_cpu)" >> "$WORK/results"
    ls -lR "$WORK/data/tree" > /dev/null
    echo "lslocal $(seconds sh -c 'ls -lR "$1" > /dev/null' sh "$WORK/data/tree")" >> "$WORK/results"
    stop_mount
    r=$((r + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$PYTHON" - "$WORK/results" "$bytes" "$FILES" "$CACHE" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
size, files, cache = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
t, rss, cpu = {}, [], {}
for row in rows:
    t.setdefault(row[0], []).append(float(row[1]))
    if row[0] == "ls":
        rss.append(int(row[3]))
        cpu.setdefault("ls", []).append((float(row[2]), float(row[5]) - float(row[4])))
    if row[0] == "lslocal":
        cpu.setdefault("lslocal", []).append((float(row[2]), 0.0))
    if row[0] in ("serial", "parallel", "wserial", "wparallel"):  # the cats' CPU seconds, the mount's
        cpu.setdefault(row[0], []).append((float(row[2]), float(row[3])))
med = {k: statistics.median(v) for k, v in t.items()}
mb = lambda s, n: n / 1e6 / s
print("one job: a file of %d bytes, 8 of %d, %d small files; 2 MiB containers, %s; medians of %d rounds"
      % (size, size // 8, files, "no SSD cache" if cache == "none" else "SSD cache (lru, %s granularity)" % cache,
         len(t["cat"])))
print("%-34s %8.3f s  %8.1f MB/s" % ("read-file JOB big -o OUT", med["read-file"], mb(med["read-file"], size)))
print("%-34s %8.3f s  %8.1f MB/s" % ("cat MOUNT/0/big", med["cat"], mb(med["cat"], size)))
r = med["read-file"] / med["cat"]
print("ratio cat / read-file speed: %.2f (goal >= 0.80): %s" % (r, "met" if r >= 0.8 else "NOT met"))
for store, w in (("store dropped from the page cache", ""), ("store in the page cache", "w")):
    for key, what in (("serial", "8 files, one cat after another"), ("parallel", "8 files, 8 cats at once")):
        cats = statistics.median(c for c, _ in cpu[w + key])
        mount = statistics.median(m for _, m in cpu[w + key])
        print("%-34s %8.3f s  %8.1f MB/s  CPU: cats %.2f s, mount %.2f s (%.2f cores)"
              % (what, med[w + key], mb(med[w + key], size // 8 * 8), cats, mount, (cats + mount) / med[w + key]))
    r = med[w + "serial"] / med[w + "parallel"]
    print("ratio 8 at once / one after another, %s: %.2f (goal >= 1.50): %s"
          % (store, r, "met" if r >= 1.5 else "NOT met"))
print("ls -lR of %d files, warm: %.3f s (goal: 200,000 in <= 2 s); CPU: ls %.2f s, mount %.2f s; "
      "mount's resident memory after it: %.1f MiB"
      % (files, med["ls"], statistics.median(c for c, _ in cpu["ls"]), statistics.median(m for _, m in cpu["ls"]),
         statistics.median(rss) / 1024))
print("ls -lR of the same tree on the local file system: %.3f s; CPU: ls %.2f s"
      % (med["lslocal"], statistics.median(c for c, _ in cpu["lslocal"])))
PY

# Random 4 KiB reads: fio through the mount, read-file --trace beside it.
command -v fio >/dev/null 2>&1 || { echo "fio is not installed: random 4 KiB reads not measured (scripts/apt-install.sh fio)"; exit 0; }
FIO_IOS=${FIO_IOS:-20000}
gran=$CACHE
[ "$gran" != none ] || gran=container
grep -v '^ssd-cache' "$WORK/config" > "$WORK/config-fio"
printf 'ssd-cache-policy lru\nssd-cache-directory "%s/cache-fio"\nssd-cache-size 25%%\nssd-cache-granularity %s\n' \
    "$WORK" "$gran" >> "$WORK/config-fio"
"$PYTHON" - "$bytes" "$FIO_IOS" "$MNT/0/big" "$WORK/fio.iolog" "$WORK/fio.trace" <<'PY'
import random, sys
size, n, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(40)
offsets = [rng.randrange(size // 4096) * 4096 for _ in range(n)]
with open(sys.argv[4], "w") as log:
    log.write("fio version 2 iolog\n%s add\n%s open\n" % (path, path))
    log.writelines("%s read %d 4096\n" % (path, o) for o in offsets)
    log.write("%s close\n" % path)
with open(sys.argv[5], "w") as trace:
    trace.writelines("0\tbig\t%d\t4096\n" % o for o in offsets)
PY
# fio_mount, fio_trace: one run each from an empty cache, a line of results
fio_mount() {
    rm -rf "$WORK/cache-fio"
    uncache
    start_mount "$WORK/config-fio"
    fio --name=random4k --read_iolog="$WORK/fio.iolog" --direct=1 --ioengine=psync --output-format=json \
        --output="$WORK/fio.json" >/dev/null
    cp "$MNT/.destor/stats.json" "$WORK/fio-mount.json"
    stop_mount
    "$PYTHON" - "$WORK/fio.json" "$WORK/fio-mount.json" >> "$WORK/fio-results" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]["read"]
mount = json.load(open(sys.argv[2]))
print("mount %.1f %.4f %.4f %.4f" % (job["iops"], job["clat_ns"]["percentile"]["99.000000"] / 1e6,
                                     mount["latency_ms"]["p99"], mount["cache"]["hit_ratio"]))
PY
}
fio_trace() {
    rm -rf "$WORK/cache-fio"
    uncache
    "$DESTOR" -c "$WORK/config-fio" read-file --trace "$WORK/fio.trace" --json > "$WORK/fio-trace.json"
    "$PYTHON" - "$WORK/fio-trace.json" >> "$WORK/fio-results" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
print("trace %.1f - %.4f %.4f" % (t["requests"] / (t["elapsed_ms"] / 1e3), t["latency_ms"]["p99"],
                                  t["cache"]["hit_ratio"]))
PY
}
: > "$WORK/fio-results"
r=1
while [ "$r" -le "$REPEAT" ]; do
    if [ $((r % 2)) -eq 1 ]; then fio_mount; fio_trace; else fio_trace; fio_mount; fi
    r=$((r + 1))
done
echo "load average after fio: $(cut -d' ' -f1-3 /proc/loadavg)"
"$PYTHON" - "$WORK/fio-results" "$FIO_IOS" "$gran" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("%s random 4 KiB reads of the big file, from an empty SSD cache (lru, 25%%, %s granularity); medians of %d"
      % (sys.argv[2], sys.argv[3], len(rows) // 2))
for who, what in (("mount", "fio through the mount (O_DIRECT)"), ("trace", "read-file --trace, same offsets")):
    runs = [r[1:] for r in rows if r[0] == who]
    med = lambda i: statistics.median(float(r[i]) for r in runs)
    app = "fio p99 %.3f ms, " % med(1) if who == "mount" else ""
    print("%-34s %8.0f IOPS  %sp99 per request %.3f ms, hit ratio %.3f" % (what, med(0), app, med(2), med(3)))
PY
