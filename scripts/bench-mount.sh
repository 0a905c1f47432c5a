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
#   scratch directory is kept.
#
# The store (2 MiB containers, no SSD cache) holds one job: a file of SIZE
# incompressible bytes, 8 files of SIZE/8 and FILES small files in
# directories of 100. Each round, alternating, with the store's containers
# dropped from the page cache before each (fsync, then
# POSIX_FADV_DONTNEED) and each reader on a fresh mount (so the kernel
# holds none of the file's pages):
#   read-file JOB big -o OUT, then cat of the same file through the mount
#   (to /dev/null); the ratio is cat's speed over read-file's (goal, issue
#   40: >= 0.8);
#   the 8 files of SIZE/8 by one cat after another, then by 8 cats at once
#   (goal: 8 at once >= 1.5 x one after another);
# and once per round on a warm mount: ls -lR of the tree of FILES files
# (goal: 200,000 files in <= 2 s) and the mount's resident memory after it.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
REPEAT=${REPEAT:-3}
SIZE=${SIZE:-1G}
FILES=${FILES:-20000}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-mount: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
command -v fusermount3 >/dev/null 2>&1 || { echo "bench-mount: fusermount3 missing (run scripts/setup.sh)" >&2; exit 2; }
[ -c /dev/fuse ] || { echo "bench-mount: /dev/fuse is missing: no FUSE mount can be made here" >&2; exit 2; }

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

uncache() {
    "$PYTHON" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$WORK/store/containers.pool"
}
start_mount() {
    "$DESTOR" -c "$WORK/config" mount -f "$MNT" >>"$WORK/mount.out" 2>>"$WORK/mount.err" &
    MPID=$!
    i=0
    until grep -q " $MNT fuse.destor " /proc/mounts; do
        i=$((i + 1))
        [ "$i" -lt 400 ] || { cat "$WORK/mount.err" >&2; echo "bench-mount: not mounted" >&2; exit 1; }
        sleep 0.05
    done
}
stop_mount() {
    fusermount3 -u "$MNT"
    wait "$MPID"
}
# seconds CMD...: the wall time of CMD, on stdout
seconds() { "$PYTHON" -c 'import subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print("%.4f" % (time.monotonic() - t))' "$@"; }

: > "$WORK/results"
r=1
while [ "$r" -le "$REPEAT" ]; do
    uncache
    t=$(seconds "$DESTOR" -c "$WORK/config" read-file 0 big -o "$WORK/out")
    cmp -s "$WORK/out" "$WORK/data/big" || { echo "bench-mount: read-file read other bytes" >&2; exit 1; }
    rm -f "$WORK/out"
    echo "read-file $t" >> "$WORK/results"
    uncache
    start_mount
    t=$(seconds sh -c 'cat "$1" > /dev/null' sh "$MNT/0/big")
    echo "cat $t" >> "$WORK/results"
    stop_mount
    uncache
    start_mount
    t=$(seconds sh -c 'for f in "$1"/part*; do cat "$f" > /dev/null; done' sh "$MNT/0/eight")
    echo "serial $t" >> "$WORK/results"
    stop_mount
    uncache
    start_mount
    t=$(seconds sh -c 'for f in "$1"/part*; do cat "$f" > /dev/null & done; wait' sh "$MNT/0/eight")
    echo "parallel $t" >> "$WORK/results"
    ls -lR "$MNT/0/tree" > /dev/null # warm: the kernel and the store's files in the page cache
    t=$(seconds sh -c 'ls -lR "$1" > /dev/null' sh "$MNT/0/tree")
    echo "ls $t $(awk '/^VmRSS/ {print $2}' "/proc/$MPID/status")" >> "$WORK/results"
    stop_mount
    r=$((r + 1))
done
"$PYTHON" - "$WORK/results" "$bytes" "$FILES" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
size, files = int(sys.argv[2]), int(sys.argv[3])
t, rss = {}, []
for row in rows:
    t.setdefault(row[0], []).append(float(row[1]))
    if row[0] == "ls":
        rss.append(int(row[2]))
med = {k: statistics.median(v) for k, v in t.items()}
mb = lambda s, n: n / 1e6 / s
print("one job: a file of %d bytes, 8 of %d, %d small files; 2 MiB containers, no SSD cache; medians of %d rounds"
      % (size, size // 8, files, len(t["cat"])))
print("%-34s %8.3f s  %8.1f MB/s" % ("read-file JOB big -o OUT", med["read-file"], mb(med["read-file"], size)))
print("%-34s %8.3f s  %8.1f MB/s" % ("cat MOUNT/0/big", med["cat"], mb(med["cat"], size)))
r = med["read-file"] / med["cat"]
print("ratio cat / read-file speed: %.2f (goal >= 0.80): %s" % (r, "met" if r >= 0.8 else "NOT met"))
print("%-34s %8.3f s  %8.1f MB/s" % ("8 files, one cat after another", med["serial"], mb(med["serial"], size // 8 * 8)))
print("%-34s %8.3f s  %8.1f MB/s" % ("8 files, 8 cats at once", med["parallel"], mb(med["parallel"], size // 8 * 8)))
r = med["serial"] / med["parallel"]
print("ratio 8 at once / one after another: %.2f (goal >= 1.50): %s" % (r, "met" if r >= 1.5 else "NOT met"))
print("ls -lR of %d files, warm: %.3f s (goal: 200,000 in <= 2 s); mount's resident memory after it: %.1f MiB"
      % (files, med["ls"], statistics.median(rss) / 1024))
PY
