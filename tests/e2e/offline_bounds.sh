#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# offline_bounds.sh: the offline policies (belady, offline-static,
# opt-budget) in
# read-file --trace: on a text trace and on its compiled form, from a file
# and from standard input, with --simulate or ssd-cache-simulate yes, they
# give the same counts; belady follows the very sequence it was handed (no
# access off it) and gets at least as many hits as every online policy and
# offline-static; offline-static writes at most the cache's capacity;
# opt-budget without a budget has belady's hits with no more writes, and
# with one writes within it, between offline-static's hits and its own
# bound; real mode, --verify and read-file of one file are refused with
# exit 2; destor policies --json lists all three as offline; a write budget
# (ssd-cache-write-budget) is refused with them.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 47 13 0.6 800
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.ctr"

dst policies --json | "$PYTHON" -c '
import json, sys
offline = {p["name"] for p in json.load(sys.stdin)["policies"] if p["offline"]}
assert offline == {"belady", "offline-static", "opt-budget"}, offline' || fail "destor policies must list belady, offline-static and opt-budget as offline"

CAP=6
# run NAME POLICY TRACE [ARGS...]: a simulated replay's summary in NAME.json.
run() {
    name=$1 policy=$2 trace=$3
    shift 3
    dst -p"ssd-cache-policy $policy" -p"ssd-cache-size $CAP" "$@" read-file --trace "$trace" --json \
        > "$SCRATCH/$name.json"
}
# same_run A B: the same requests, bytes, accesses and cache counters.
same_run() {
    "$PYTHON" - "$SCRATCH/$1.json" "$SCRATCH/$2.json" <<'PY' || fail "$1 and $2 differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("requests", "bytes", "container_accesses", "latency_model_ms"):
    assert a[k] == b[k], (k, a[k], b[k])
for k, v in a["cache"].items():
    if "wall" not in k:
        assert b["cache"][k] == v, (k, v, b["cache"][k])
PY
}
for policy in belady offline-static opt-budget; do
    run "$policy-text" $policy "$SCRATCH/trace" --simulate
    run "$policy-compiled" $policy "$SCRATCH/trace.ctr" --simulate
    same_run "$policy-text" "$policy-compiled"
    run "$policy-stdin" $policy - -p"ssd-cache-simulate yes" < "$SCRATCH/trace"
    same_run "$policy-text" "$policy-stdin"
done
note "belady, offline-static and opt-budget: text = compiled = standard input"

ONLINE=$(dst policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["policies"] if not p["offline"]))')
for policy in $ONLINE; do
    run "$policy" $policy "$SCRATCH/trace" --simulate
done
"$PYTHON" - "$SCRATCH" $CAP offline-static $ONLINE <<'PY' || fail "an offline bound does not hold"
import json, sys
scratch, cap, others = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cache = lambda name: json.load(open("%s/%s.json" % (scratch, name)))["cache"]
belady = cache("belady-text")
assert belady["policy_counters"]["off_sequence_accesses"] == 0, belady["policy_counters"]
assert belady["hits"] > 0 and belady["evictions"] > 0 and belady["refused"] > 0, belady
for p in others:
    src = "offline-static-text" if p == "offline-static" else p
    assert belady["hits"] >= cache(src)["hits"], (p, cache(src)["hits"], belady["hits"])
static = cache("offline-static-text")
assert static["capacity_containers"] == cap
assert 0 < static["ssd_containers_written"] <= cap, static["ssd_containers_written"]
assert static["evictions"] == 0
assert static["policy_counters"]["refused_outside_set"] == static["refused"] > 0
opt = cache("opt-budget-text")
assert opt["hits"] == belady["hits"], (opt["hits"], belady["hits"])
assert opt["ssd_containers_written"] <= belady["ssd_containers_written"]
assert opt["policy_counters"]["off_sequence_accesses"] == 0
print("# belady %d hits, lru %d, offline-static %d (%d written) of %d accesses"
      % (belady["hits"], cache("lru")["hits"], static["hits"], static["ssd_containers_written"],
         belady["accesses"]))
PY

# opt-budget within a budget of half its unlimited writes: writes within
# it, its planned hits, at least offline-static's, and at most its bound.
half=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"]["ssd_containers_written"] // 2)' \
    "$SCRATCH/opt-budget-text.json")
run opt-half opt-budget "$SCRATCH/trace.ctr" --simulate -p"opt-budget-writes $half"
"$PYTHON" - "$SCRATCH" "$half" <<'PY' || fail "opt-budget does not hold its budget"
import json, sys
scratch, half = sys.argv[1], int(sys.argv[2])
cache = lambda name: json.load(open("%s/%s.json" % (scratch, name)))["cache"]
o, full = cache("opt-half"), cache("opt-budget-text")
pc = o["policy_counters"]
assert o["ssd_containers_written"] <= half, (o["ssd_containers_written"], half)
assert o["hits"] == pc["planned_hits"] and pc["off_sequence_accesses"] == 0, pc
assert cache("offline-static-text")["hits"] <= o["hits"] <= pc["hull_hits_bound"] <= full["hits"], pc
print("# opt-budget within %d writes: %d hits (%d written; bound %d); unlimited %d hits, %d written"
      % (half, o["hits"], o["ssd_containers_written"], pc["hull_hits_bound"], full["hits"],
         full["ssd_containers_written"]))
PY
expect_status 2 dst -p"ssd-cache-policy opt-budget" -p"ssd-cache-size $CAP" -p"ssd-cache-write-budget 1000" \
    --simulate read-file --trace "$SCRATCH/trace"
grep -q "online policies" "$SCRATCH/err" || fail "a write budget with an offline policy: the error must say why"
note "opt-budget: belady's hits without a budget, within a budget of half its writes"

# Refused: real mode, --verify, one file alone.
for policy in belady offline-static opt-budget; do
    expect_status 2 dst -p"ssd-cache-policy $policy" -p"ssd-cache-directory $SCRATCH/ssd" read-file --trace "$SCRATCH/trace"
    grep -q "offline" "$SCRATCH/err" || fail "$policy in real mode: the error must say the policy is offline"
    [ ! -e "$SCRATCH/ssd" ] || fail "$policy in real mode made a cache directory"
    expect_status 2 dst -p"ssd-cache-policy $policy" --simulate read-file --trace "$SCRATCH/trace" --verify
    job=$(head -n 1 "$SCRATCH/trace" | cut -f 1)
    path=$(head -n 1 "$SCRATCH/trace" | cut -f 2)
    expect_status 2 dst -p"ssd-cache-policy $policy" --simulate read-file "$job" "$path"
    [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] || fail "$policy, one file: a one-line error expected"
    grep -q "runs only on a trace" "$SCRATCH/err" || fail "$policy, one file: the error must say why"
    expect_status 2 dst -p"ssd-cache-policy $policy" -p"ssd-cache-directory $SCRATCH/ssd" read-file "$job" "$path"
done
note "real mode, --verify and one file refused (exit 2)"
