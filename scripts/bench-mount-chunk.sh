#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-mount-chunk.sh: parallel reads through `destor mount` served by a
# warm real-mode SSD chunk cache (every access a hit, O_DIRECT), as a
# ratio against dd of the cache's own chunks.log measured in the same
# round, and against a second binary (a figure, not a test).
#
# usage: scripts/bench-mount-chunk.sh
# environment: DESTOR (default build/destor); DESTOR_B: a second binary
#   timed too, alternating with the first in every round (its own warm
#   cache); REPEAT (default 5) rounds, whose medians are compared; SIZE_MB
#   (default 256) of the 8 files together; TMPDIR: where the store, the
#   caches and the mount point are made (the device measured: it must
#   take O_DIRECT); KEEP: when set, the scratch directory is kept.
#
# The store holds 8 files of SIZE_MB/8 incompressible bytes. Each binary's
# chunk cache (lru, 100%, O_DIRECT, clean reclaim, its own directory) is warmed by
# read-file of every file. Each round: dd of binary A's chunks.log
# (O_DIRECT, 4 MiB), then for each binary (alternating which goes first)
# a fresh mount, the 8 files read by 8 cats at once, then (a fresh mount
# again) by one cat after another; the mount's stats.json must show every
# access a hit. Printed: MiB/s of the files' bytes over the cats' wall
# time, the ratio to dd, the mount's CPU time (user + sys), and the load.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
DESTOR_B=${DESTOR_B:-}
REPEAT=${REPEAT:-5}
SIZE_MB=${SIZE_MB:-256}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-mount-chunk: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
command -v fusermount3 >/dev/null 2>&1 || { echo "bench-mount-chunk: fusermount3 missing" >&2; exit 2; }
[ -c /dev/fuse ] || { echo "bench-mount-chunk: /dev/fuse is missing: no FUSE mount can be made here" >&2; exit 2; }
[ "$SIZE_MB" -ge 16 ] || { echo "bench-mount-chunk: SIZE_MB must be at least 16" >&2; exit 2; }
LOAD_START=$(cat /proc/loadavg)

WORK=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-mount-chunk.XXXXXX")")
MNT="$WORK/mnt"
MPID=""
cleanup() {
    fusermount3 -u -z "$MNT" 2>/dev/null || true
    [ -z "$MPID" ] || wait "$MPID" 2>/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
mkdir "$MNT" "$WORK/data"
for i in 1 2 3 4 5 6 7 8; do
    openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' $((200 + i)))" -iv 0 -in /dev/zero 2>/dev/null |
        head -c $((SIZE_MB * 1048576 / 8)) > "$WORK/data/part$i"
done
printf 'working-directory "%s/store"\ncontainer-size 2M\n' "$WORK" > "$WORK/c.cfg"
"$DESTOR" -c "$WORK/c.cfg" backup "$WORK/data" > /dev/null
for x in a b; do
    { cat "$WORK/c.cfg"
      printf 'ssd-cache-granularity chunk\nssd-cache-directory "%s/ssd-%s"\nssd-cache-size 100%%\n' "$WORK" "$x"
      printf 'ssd-cache-policy lru\nssd-cache-o-direct yes\nssd-cache-segment-reclaim clean\n'; } > "$WORK/$x.cfg"
done
# warm BIN CFG: every file read whole through the cache, compared
warm() {
    for i in 1 2 3 4 5 6 7 8; do
        "$1" -c "$2" read-file 0 "part$i" -o "$WORK/out" > /dev/null
        cmp -s "$WORK/out" "$WORK/data/part$i" || { echo "bench-mount-chunk: read-file read other bytes" >&2; exit 1; }
    done
    rm -f "$WORK/out"
}
warm "$DESTOR" "$WORK/a.cfg"
[ -z "$DESTOR_B" ] || warm "$DESTOR_B" "$WORK/b.cfg"

start_mount() {
    "$1" -c "$2" mount -f "$MNT" >>"$WORK/mount.out" 2>>"$WORK/mount.err" &
    MPID=$!
    i=0
    until grep -q " $MNT fuse.destor " /proc/mounts; do
        i=$((i + 1))
        [ "$i" -lt 400 ] || { cat "$WORK/mount.err" >&2; echo "bench-mount-chunk: not mounted" >&2; exit 1; }
        sleep 0.05
    done
}
stop_mount() {
    fusermount3 -u "$MNT"
    wait "$MPID"
    MPID=""
}
mount_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.4f\n", ($14 + $15) / hz }' "/proc/$MPID/stat"; }
# timed NAME BIN CFG HOW: the 8 files through a fresh mount by 8 cats at
# once (parallel) or one after another (serial); all hits (checked)
timed() {
    start_mount "$2" "$3"
    if [ "$4" = parallel ]; then
        t=$("$PYTHON" -c 'import subprocess, sys, time
t = time.monotonic()
ps = [subprocess.Popen(["cat", f], stdout=subprocess.DEVNULL) for f in sys.argv[1:]]
assert all(p.wait() == 0 for p in ps)
print("%.4f" % (time.monotonic() - t))' "$MNT"/0/part*)
    else
        t=$("$PYTHON" -c 'import subprocess, sys, time
t = time.monotonic()
for f in sys.argv[1:]:
    subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)
print("%.4f" % (time.monotonic() - t))' "$MNT"/0/part*)
    fi
    "$PYTHON" -c 'import json, sys
c = json.load(open(sys.argv[1]))
c = c.get("cache", c)
assert c["misses"] == 0 and c["hits"] > 0, ("not every access a hit", c)' "$MNT/.destor/stats.json"
    echo "$1 $4 $t $(mount_cpu)" >> "$WORK/rounds"
    stop_mount
}
both() { # both NAME BIN CFG
    timed "$1" "$2" "$3" parallel
    timed "$1" "$2" "$3" serial
}

: > "$WORK/rounds"
. "$TOP/scripts/bench-stores.sh"
dd_rounds "$WORK/ssd-a/chunks.log" "$WORK/rounds" both
"$PYTHON" - "$WORK/rounds" "$SIZE_MB" "$LOAD_START" "$(cat /proc/loadavg)" <<'PY'
import statistics, sys
dd, mb, runs = [], int(sys.argv[2]), {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "dd":
        dd.append(int(f[1]) / (float(f[3]) - float(f[2])) / 2**20)
    else:
        runs.setdefault((f[0], f[1]), []).append((mb / float(f[2]), float(f[3]) / float(f[2])))
d = statistics.median(dd)
print("%d rounds, medians; 8 files of %d MiB through the mount, a warm chunk cache (every access a hit)"
      % (len(dd), mb // 8))
print("dd of chunks.log (O_DIRECT, 4 MiB): %.1f MiB/s" % d)
for how in ("parallel", "serial"):
    for name, label in (("a", "DESTOR"), ("b", "DESTOR_B")):
        if (name, how) not in runs:
            continue
        r = runs[(name, how)]
        m = statistics.median(x for x, _ in r)
        print("  %-8s %-8s (%s): %7.1f MiB/s, ratio to dd %.2f; mount CPU %.2f s per elapsed s; per round: %s" % (
            label, how, "8 cats at once" if how == "parallel" else "one cat after another", m, m / d,
            statistics.median(c for _, c in r), ", ".join("%.0f" % x for x, _ in r)))
    if ("b", how) in runs:
        a = statistics.median(x for x, _ in runs[("a", how)])
        b = statistics.median(x for x, _ in runs[("b", how)])
        print("  %s: DESTOR / DESTOR_B = %.2f" % (how, a / b))
print("load average at the start: %s; at the end: %s" % (sys.argv[3], sys.argv[4]))
PY
