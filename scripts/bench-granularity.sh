#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-granularity.sh: the chunk cache's simulation speed against the
# container cache's on the same store and trace (not a test). A generated
# two-job store (scripts/gen-dataset, PRESET) and a Zipf trace of REQUESTS
# whole-file reads are compiled once per granularity (destor trace compile:
# version 1, container accesses; with ssd-cache-granularity chunk,
# version 2, chunk accesses) and replayed with read-file --trace
# --simulate, policy lru, ssd-cache-size 20%, alternating container and
# chunk granularity ROUNDS times; accesses/s is accesses (container or
# chunk) over the replay's elapsed time (the request loop), and the
# medians are compared. Goal (issue 22): chunk mode at least 1/4 of
# container mode's accesses/s on the compiled trace. The two compiled
# files' sizes are printed. Environment: ROUNDS (5), REQUESTS (100000:
# 3000 compiled container accesses replay in under a millisecond, too
# short to time), PRESET (small), POLICY (lru: at both granularities),
# RECLAIM (the chunk log's ssd-cache-segment-reclaim, evict; issue 39
# asks the same of reinsert).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$TOP/build/Makefile" ] || "$TOP/scripts/setup.sh"
make -s -C "$TOP/build" destor
DESTOR="$TOP/build/destor"
ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-100000}
PRESET=${PRESET:-small}
POLICY=${POLICY:-lru}
RECLAIM=${RECLAIM:-evict}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$TOP/scripts/bench-stores.sh"
granularity_store "$DESTOR" "$WORK" "$PRESET" "$REQUESTS"
for gran in container chunk; do
    "$DESTOR" -c "$WORK/g.cfg" -p"ssd-cache-granularity $gran" trace compile "$WORK/gtrace" -o "$WORK/trace.$gran"
done
round=1
: > "$WORK/rates"
while [ "$round" -le "$ROUNDS" ]; do
    for gran in container chunk; do
        if [ "$gran" = chunk ]; then set -- -p"ssd-cache-segment-reclaim $RECLAIM"; else set --; fi
        "$DESTOR" -c "$WORK/g.cfg" -p"ssd-cache-granularity $gran" -p"ssd-cache-policy $POLICY" -p"ssd-cache-size 20%" \
            "$@" read-file --trace "$WORK/trace.$gran" --simulate --json |
            /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(sys.argv[1], d["cache"]["accesses"] / (d["elapsed_ms"] / 1e3))' "$gran" >> "$WORK/rates"
    done
    round=$((round + 1))
done
/usr/bin/python3 - "$WORK/rates" "$(cat /proc/loadavg)" "$WORK/trace.container" "$WORK/trace.chunk" \
    "policy $POLICY, chunk reclaim $RECLAIM" <<'PY'
import os, statistics, sys
print("compiled trace: %d bytes (container accesses), %d bytes (chunk accesses)" % (
    os.path.getsize(sys.argv[3]), os.path.getsize(sys.argv[4])))
rates = {}
for line in open(sys.argv[1]):
    g, r = line.split()
    rates.setdefault(g, []).append(float(r))
c, k = statistics.median(rates["container"]), statistics.median(rates["chunk"])
print("container granularity: %.0f container accesses/s (median of %d)" % (c, len(rates["container"])))
print("chunk granularity:     %.0f chunk accesses/s (median of %d)" % (k, len(rates["chunk"])))
print("ratio chunk / container: %.2f (goal >= 0.25): %s; load average %s; %s" % (
    k / c, "met" if k / c >= 0.25 else "MISSED", sys.argv[2], sys.argv[5]))
PY
