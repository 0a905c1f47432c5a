#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-opt-budget.sh: the time of opt-budget's planner (opt_budget_plan.c,
# run by tests/policy_ref/opt_plan) in this tree's build (A) against
# another build (B: e.g. main before a change, built in a worktree of its
# own), on a real trace at a 10% cache (not a test). The sequence: the
# first REQUESTS accesses of TRACE (one block a line, gzip), each distinct
# block dealt to one of CONTAINERS containers after a seeded shuffle (as
# --map object spreads a trace's blocks over a store's files; 556 is the
# 1 GiB store of docs/results/admission-budget.md). For each budget (a
# multiple of the capacity, as the frontier experiment's OFFLINE_SWEEP),
# A and B run alternated ROUNDS times; their CPU seconds (user + sys) are
# compared by medians, B / A printed, and the two plans must be the same
# byte for byte (the exact search finds the same price).
# usage: scripts/bench-opt-budget.sh OTHER_BUILD_DIR
# environment: ROUNDS (3), REQUESTS (100000), CONTAINERS (556), SHARE (10:
#   the cache, % of the containers), MULTIPLES ("2 8"), TRACE
#   (/work/shared/traces/lirs-2_pools.trace.gz or ../shared/traces/...).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: scripts/bench-opt-budget.sh OTHER_BUILD_DIR (a built tree's build/)" >&2; exit 2; }
B=$(cd "$1" && pwd)
A="$TOP/build"
for d in "$A" "$B"; do make -s -C "$d" tests/policy_ref/opt_plan; done
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-100000}
CONTAINERS=${CONTAINERS:-556}
SHARE=${SHARE:-10}
MULTIPLES=${MULTIPLES:-2 8}
TRACE=${TRACE:-$TOP/../shared/traces/lirs-2_pools.trace.gz}
[ -f "$TRACE" ] || { echo "bench-opt-budget.sh: no trace $TRACE (set TRACE)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-opt-budget.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CAP=$((CONTAINERS * SHARE / 100))

# the planner's input: "n next_0 .. next_n-1" (opt_plan.c)
/usr/bin/python3 - "$TRACE" "$REQUESTS" "$CONTAINERS" > "$WORK/next" <<'PY'
import gzip, random, sys
blocks = []
with gzip.open(sys.argv[1], "rt") as f:
    for line in f:
        if line.strip():
            blocks.append(line.split()[0])
        if len(blocks) == int(sys.argv[2]):
            break
distinct = sorted(set(blocks))
random.Random(1).shuffle(distinct)
container = {b: i % int(sys.argv[3]) for i, b in enumerate(distinct)}
seq = [container[b] for b in blocks]
nxt, last = [-1] * len(seq), {}
for i in range(len(seq) - 1, -1, -1):
    nxt[i] = last.get(seq[i], -1)
    last[seq[i]] = i
print(len(seq), " ".join(map(str, nxt)))
PY

OUT="$WORK/runs"
: > "$OUT"
round=1
while [ "$round" -le "$ROUNDS" ]; do
    for m in $MULTIPLES; do
        for side in A B; do
            [ "$side" = A ] && d=$A || d=$B
            /usr/bin/time -f "%U %S %e" -o "$WORK/cpu" "$d/tests/policy_ref/opt_plan" "$CAP" $((m * CAP)) 0 \
                < "$WORK/next" > "$WORK/plan.$side"
            echo "$m $side $(cat "$WORK/cpu")" >> "$OUT"
        done
        cmp -s "$WORK/plan.A" "$WORK/plan.B" ||
            { echo "bench-opt-budget.sh: A and B planned differently at budget ${m}C" >&2; exit 1; }
    done
    round=$((round + 1))
done
/usr/bin/python3 - "$OUT" "$ROUNDS" "$REQUESTS" "$CONTAINERS" "$CAP" "$(cat /proc/loadavg)" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m, side, user, sys_, wall = line.split()
    runs.setdefault(m, {}).setdefault(side, []).append((float(user) + float(sys_), float(wall)))
print("opt-budget's planner: %s accesses over %s containers, capacity %s; %s rounds A, B alternated, "
      "medians; load average %s" % (sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[2], sys.argv[6]))
print("%-10s %10s %10s %10s %10s %8s" % ("budget", "A cpu s", "B cpu s", "A wall s", "B wall s", "B / A"))
for m, sides in runs.items():
    a = statistics.median(c for c, _ in sides["A"])
    b = statistics.median(c for c, _ in sides["B"])
    print("%-10s %10.2f %10.2f %10.2f %10.2f %8.2f" % (
        "%sC" % m, a, b, statistics.median(w for _, w in sides["A"]),
        statistics.median(w for _, w in sides["B"]), b / a if a else float("inf")))
print("plans: A = B at every budget (the same price found)")
PY
