#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-builds.sh: this tree's build (A) against another build of destor-plc
# (B: e.g. the commit before a refactor, built in a worktree of its own) on
# the SSD cache's three speed paths, A and B alternated ROUNDS times, each
# run's CPU seconds (user + sys, /usr/bin/time) compared by their medians
# (not a test; a refactor's goal is A/B within the runs' spread):
#   cache        tests/bench/bench_cache_sim --policy P --containers 2000000
#                --accesses ACCESSES, for each P in POLICIES (bench-cache.sh's
#                replay, trace generation included in both)
#   granularity  read-file --trace --simulate, policy lru, ssd-cache-size
#                20%, of one compiled trace per granularity (container,
#                chunk) over bench-granularity.sh's two-job store
#   chunk-log    read-file --trace in real mode, O_DIRECT, of random 64 KiB
#                ranges over a warm chunk log (bench-chunk-log.sh's product
#                path: every access a hit)
# The store, the traces and the warm cache are made once, by A, and read by
# both (issue 37: a store and a cache directory read the same by either).
# usage: scripts/bench-builds.sh OTHER_BUILD_DIR
# environment: ROUNDS (5), ACCESSES (4000000), POLICIES ("lru arc s3fifo
#   plc sigpop"), REQUESTS (100000: the granularity trace), PRODUCT_MB (64:
#   the chunk-log store); TMPDIR: where the store and the cache are made
#   (must take O_DIRECT).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] && [ -x "$1/destor" ] || { echo "usage: scripts/bench-builds.sh OTHER_BUILD_DIR (a built tree's build/)" >&2; exit 2; }
B=$(cd "$1" && pwd)
A="$TOP/build"
for d in "$A" "$B"; do make -s -C "$d" destor tests/bench/bench_cache_sim; done
ROUNDS=${ROUNDS:-5}
ACCESSES=${ACCESSES:-4000000}
POLICIES=${POLICIES:-lru arc s3fifo plc sigpop}
REQUESTS=${REQUESTS:-100000}
PRODUCT_MB=${PRODUCT_MB:-64}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-builds.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OUT="$WORK/runs"
: > "$OUT"

# one run: NAME SIDE COMMAND...: its user + sys seconds appended to $OUT
run() {
    name=$1 side=$2
    shift 2
    /usr/bin/time -f "%U %S" -o "$WORK/cpu" "$@" > /dev/null
    echo "$name $side $(awk '{ print $1 + $2 }' "$WORK/cpu")" >> "$OUT"
}

. "$TOP/scripts/bench-stores.sh"
# granularity: bench-granularity.sh's store and trace
granularity_store "$A/destor" "$WORK" small "$REQUESTS"
for gran in container chunk; do
    "$A/destor" -c "$WORK/g.cfg" -p"ssd-cache-granularity $gran" trace compile "$WORK/gtrace" -o "$WORK/gtrace.$gran"
done

# chunk-log: bench-chunk-log.sh's product path, the cache warmed once
chunk_log_store "$A/destor" "$WORK" "$PRODUCT_MB"
set -- -c "$WORK/p.cfg" -p"ssd-cache-granularity chunk" -p"ssd-cache-directory $WORK/ssd" -p"ssd-cache-size 100%" \
    -p"ssd-cache-policy lru" -p"ssd-cache-o-direct yes" -p"ssd-cache-segment-reclaim clean" read-file --trace
"$A/destor" "$@" "$WORK/pwarm" > /dev/null

round=1
while [ "$round" -le "$ROUNDS" ]; do
    for side in A B; do
        [ "$side" = A ] && d=$A || d=$B
        for p in $POLICIES; do
            run "cache-$p" $side "$d/tests/bench/bench_cache_sim" --policy "$p" --containers 2000000 --accesses "$ACCESSES"
        done
        for gran in container chunk; do
            run "granularity-$gran" $side "$d/destor" -c "$WORK/g.cfg" -p"ssd-cache-granularity $gran" \
                -p"ssd-cache-policy lru" -p"ssd-cache-size 20%" read-file --trace "$WORK/gtrace.$gran" --simulate
        done
        run chunk-log $side "$d/destor" "$@" "$WORK/pranges"
    done
    round=$((round + 1))
done
/usr/bin/python3 - "$OUT" "$ROUNDS" "$A" "$B" "$(cat /proc/loadavg)" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, side, cpu = line.split()
    runs.setdefault(name, {"A": [], "B": []})[side].append(float(cpu))
print("A = %s, B = %s; %s rounds, A and B alternated; CPU seconds (user + sys) a run" % (sys.argv[3], sys.argv[4], sys.argv[2]))
print("%-22s %9s %9s %7s   %s" % ("path", "A median", "B median", "A/B", "A/B per round (min..max)"))
for name, s in runs.items():
    a, b = statistics.median(s["A"]), statistics.median(s["B"])
    per = [x / max(y, 0.001) for x, y in zip(s["A"], s["B"])]
    print("%-22s %9.3f %9.3f %7.3f   %.3f..%.3f" % (name, a, b, a / max(b, 0.001), min(per), max(per)))
print("load average at the end: %s" % sys.argv[5])
PY
