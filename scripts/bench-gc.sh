#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-gc.sh: how fast destor gc reads, as a ratio against this device's
# sequential read bandwidth measured by dd in the same run (a figure with a
# goal, not a test).
#
# usage: scripts/bench-gc.sh
# environment: DESTOR (default build/destor); DESTOR_B: a second binary,
#   run on its own copy right after DESTOR's in each round (A, B, A, B...),
#   whose figures are printed beside A's with A/B of gc's time taken round
#   by round; REPEAT (default 3) runs, of
#   which the medians are printed; SIZE_MB (default 256) of the store;
#   TMPDIR: where the store is made (the device measured); KEEP: when set,
#   the scratch directory is kept.
#
# The store (2 MiB containers, container-store pool unless
# DESTOR_TEST_CONTAINER_STORE=files): half its containers dead (a deleted
# job's own data), a quarter half-live (a deleted job whose files alternate
# with those of a live one that shares them: 45% of each container live),
# a quarter live. Each run
# copies the store, drops the copy from the page cache (fsync, then
# POSIX_FADV_DONTNEED on each container file), and alternates: dd of the
# copy's containers with iflag=direct (the device's sequential read), dd of
# 64 MiB of zeros into a file beside them with oflag=direct conv=fsync (its
# sequential write), then destor gc on a fresh uncached copy (and DESTOR_B
# on another). Two ratios: gc's
# container bytes read per second of its whole run over dd's read bytes
# per second (goal, issue 24: >= 0.5); and the time dd would take to read
# what gc read and write what gc wrote (its containers' bytes read and
# written, from gc --json) over gc's time (goal, issue 42: >= 0.5). gc's
# CPU time (user + sys) and the load average are printed beside them.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
LOAD_START=$(cat /proc/loadavg)
REPEAT=${REPEAT:-3}
SIZE_MB=${SIZE_MB:-256}
KIND=${DESTOR_TEST_CONTAINER_STORE:-pool}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-gc: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
[ -z "${DESTOR_B:-}" ] || [ -x "$DESTOR_B" ] || { echo "bench-gc: DESTOR_B $DESTOR_B is not executable" >&2; exit 2; }
[ "$SIZE_MB" -ge 64 ] || { echo "bench-gc: SIZE_MB must be at least 64" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-gc.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
printf 'working-directory "%s/template"\ncontainer-size 2M\ncontainer-store %s\n' "$WORK" "$KIND" > "$WORK/config"
on() { W=$1; shift; "$DESTOR" -c "$WORK/config" -p"working-directory $W" "$@"; }

# data NAME COUNT SEED [KIB]: COUNT files of KIB (default 1024) KiB of
# incompressible bytes.
data() {
    mkdir -p "$WORK/$1"
    i=0
    while [ "$i" -lt "$2" ]; do
        openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$3$i")" -iv 0 -in /dev/zero 2>/dev/null |
            head -c $((${4:-1024} * 1024)) > "$WORK/$1/$(printf '%06d' "$i")"
        i=$((i + 1))
    done
}
half=$((SIZE_MB / 2))
quarter=$((SIZE_MB / 4))
data dead "$half" 1
# live and dead files alternating, 920 and 1128 KiB: every 2 MiB container
# holds a little less than half live (a hair under gc-live-threshold 0.5)
data live "$((quarter / 2))" 2 920
data mixed_dead "$((quarter / 2))" 3 1128
mkdir -p "$WORK/mixed"
for f in "$WORK"/live/*; do
    n=$(basename "$f")
    ln "$f" "$WORK/mixed/$n.a"
    ln "$WORK/mixed_dead/$n" "$WORK/mixed/$n.b"
done
data kept "$quarter" 4
T="$WORK/template"
on "$T" backup "$WORK/dead" >/dev/null
on "$T" backup "$WORK/mixed" >/dev/null
on "$T" backup "$WORK/live" >/dev/null
on "$T" backup "$WORK/kept" >/dev/null
on "$T" delete 0 1 >/dev/null
rm -rf "$WORK/dead" "$WORK/mixed" "$WORK/mixed_dead" "$WORK/live" "$WORK/kept"

# uncache W: the containers of W on the device and out of the page cache.
uncache() {
    find "$1" -name 'containers*' -o -path '*/containers/*' -type f | "$PYTHON" -c '
import os, sys
for p in sys.stdin.read().split("\n"):
    if p and os.path.isfile(p):
        fd = os.open(p, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)'
}

# dd_mib_s W: sequential read of W's containers, O_DIRECT, MiB/s.
dd_mib_s() {
    find "$1" \( -name containers.pool -o -path '*/containers/*' \) -type f -size +0 | sort > "$WORK/files"
    start=$(date +%s.%N)
    bytes=0
    while read -r f; do
        dd if="$f" of=/dev/null bs=2M iflag=direct status=none
        bytes=$((bytes + $(stat -c %s "$f")))
    done < "$WORK/files"
    end=$(date +%s.%N)
    "$PYTHON" -c 'import sys; print(int(sys.argv[1]) / 2**20 / (float(sys.argv[3]) - float(sys.argv[2])))' \
        "$bytes" "$start" "$end"
}

: > "$WORK/results"
# gc_run LABEL BIN DD_READ DD_WRITE: gc by BIN on a fresh uncached copy of
# the store; one line of figures, labelled, into results.
gc_run() {
    W="$WORK/run"
    rm -rf "$W"
    cp -a "$T" "$W"
    uncache "$W"
    start=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$WORK/cpu" "$2" -c "$WORK/config" -p"working-directory $W" gc --json > "$WORK/gc.json"
    end=$(date +%s.%N)
    "$PYTHON" -c '
import json, sys
g = json.load(open(sys.argv[1]))
secs = float(sys.argv[3]) - float(sys.argv[2])
gc_rate = g["container_bytes_read"] / 2**20 / secs
rd, wr = float(sys.argv[4]), float(sys.argv[5])
dd_secs = g["container_bytes_read"] / 2**20 / rd + g["container_bytes_written"] / 2**20 / wr
cpu = sum(float(x) for x in open(sys.argv[6]).read().split()[-2:])
print(sys.argv[7], rd, gc_rate, gc_rate / rd, secs, g["container_bytes_read"], g["containers_freed"],
      g["containers_copied"], g["containers_written"], g["containers"], wr, dd_secs / secs,
      g["container_bytes_written"], cpu)' \
        "$WORK/gc.json" "$start" "$end" "$3" "$4" "$WORK/cpu" "$1" >> "$WORK/results"
}
r=1
while [ "$r" -le "$REPEAT" ]; do
    W="$WORK/run"
    rm -rf "$W"
    cp -a "$T" "$W"
    uncache "$W"
    dd_rate=$(dd_mib_s "$W")
    start=$(date +%s.%N)
    dd if=/dev/zero of="$W/dd-write" bs=2M count=32 oflag=direct conv=fsync status=none
    end=$(date +%s.%N)
    rm -f "$W/dd-write"
    ddw_rate=$("$PYTHON" -c 'import sys; print(64 / (float(sys.argv[2]) - float(sys.argv[1])))' "$start" "$end")
    gc_run A "$DESTOR" "$dd_rate" "$ddw_rate"
    [ -z "${DESTOR_B:-}" ] || gc_run B "$DESTOR_B" "$dd_rate" "$ddw_rate"
    r=$((r + 1))
done
"$PYTHON" - "$WORK/results" "$SIZE_MB" "$KIND" "$LOAD_START" "$(cat /proc/loadavg)" <<'PY'
import statistics, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
runs = {lab: [list(map(float, l[1:])) for l in lines if l[0] == lab] for lab in ("A", "B")}
def report(label, rows):
    med = lambda i: statistics.median(r[i] for r in rows)
    dd, gc, ratio, secs = med(0), med(1), med(2), med(3)
    read, freed, copied, written, containers = rows[-1][4:9]
    wrote = rows[-1][11]
    print("%s store: %s MiB, %d containers of 2 MiB (%s); gc read %.0f MiB (%d half-live containers copied into "
          "%d), freed %d" % (label, sys.argv[2], containers, sys.argv[3], read / 2**20, copied, written, freed))
    print("%s dd sequential read (O_DIRECT): %.1f MiB/s; gc: %.1f MiB/s of container bytes read, %.2f s "
          "(medians of %d alternating runs)" % (label, dd, gc, secs, len(rows)))
    print("%s ratio gc / dd: %.2f (goal >= 0.50): %s" % (label, ratio, "met" if ratio >= 0.5 else "NOT met"))
    rw = med(10)
    print("%s dd sequential write (O_DIRECT, fsync): %.1f MiB/s; gc must read %.0f MiB and write %.0f MiB of "
          "containers" % (label, med(9), read / 2**20, wrote / 2**20))
    print("%s ratio (dd's time to read and write those bytes) / gc's time: %.2f (goal >= 0.50): %s; gc CPU %.2f s "
          "(user + sys)" % (label, rw, "met" if rw >= 0.5 else "NOT met", med(12)))
    print("%s per run (read ratio, read+write ratio, gc s): %s" % (label, ", ".join(
        "%.2f %.2f %.2f" % (r[2], r[10], r[3]) for r in rows)))
report("A" if runs["B"] else "", runs["A"])
if runs["B"]:
    report("B", runs["B"])
    pairs = [a[3] / b[3] for a, b in zip(runs["A"], runs["B"])]
    print("A/B of gc's time, round by round: median %.2f (%s)" % (statistics.median(pairs),
          ", ".join("%.2f" % p for p in pairs)))
print("load average at the start: %s; at the end: %s" % (sys.argv[4], sys.argv[5]))
PY
