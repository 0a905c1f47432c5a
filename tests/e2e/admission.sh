#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# admission.sh: ssd-cache-admission from the command line, at both
# granularities, on a two-job store and a skewed trace: with a write
# budget (compete by default, bucket or learned) the bytes the admissions
# write stay within the budget over the requests plus one cache fill and
# refusals are counted as the admission's; doorkeeper refuses what lru alone admits; a rule
# whose budget setting does not fit, an unknown rule, and a rule with an
# offline policy are one-line errors, exit 2.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 23 4 0.9 600

dst policies --json | "$PYTHON" -c '
import json, sys
rules = {a["name"]: a["spends_write_budget"] for a in json.load(sys.stdin)["admission"]}
assert rules == {"all": False, "doorkeeper": False, "bucket": True, "compete": True,
                 "learned": True}, rules
'
dst policies | grep -q "^compete (spends ssd-cache-write-budget)$" || fail "destor policies (text) does not list compete"

for granularity in container chunk; do
    dst -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size 30%" \
        read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/$granularity-all.json"
    for admission in auto bucket learned; do
        dst -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size 30%" \
            -p"ssd-cache-write-budget 2048" -p"ssd-cache-admission $admission" \
            read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/$granularity-$admission.json"
    done
    dst -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size 30%" \
        -p"ssd-cache-admission doorkeeper" read-file --trace "$SCRATCH/trace" --simulate --json \
        > "$SCRATCH/$granularity-doorkeeper.json"
    "$PYTHON" - "$SCRATCH" "$granularity" <<'PY'
import json, sys
d, g = sys.argv[1:3]
c = {a: json.load(open("%s/%s-%s.json" % (d, g, a)))["cache"] for a in ("all", "auto", "bucket", "learned", "doorkeeper")}
assert c["all"]["refused_admission"] == 0, c["all"]
for a in ("auto", "bucket", "learned"):
    k = c[a]
    written = k["admitted_bytes"] if g == "chunk" else k["ssd_bytes_written"]
    assert written <= 2048 * k["requests"] + k["capacity_bytes"], (a, written, k["requests"])
    assert k["refused_admission"] > 0 and k["admissions"] < c["all"]["admissions"], (a, k)
    if g == "container":
        assert k["refused_write_budget"] == k["refused_admission"], k
k = c["doorkeeper"]
assert 0 < k["refused_admission"] and k["admissions"] < c["all"]["admissions"], k
print("# %s: lru %d admissions; budget: compete %d, bucket %d, learned %d; doorkeeper %d" % (
    g, c["all"]["admissions"], c["auto"]["admissions"], c["bucket"]["admissions"], c["learned"]["admissions"],
    k["admissions"]))
PY
done

expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-admission compete" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-admission compete needs ssd-cache-write-budget" "$SCRATCH/err" ||
    fail "no admission error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-admission all" -p"ssd-cache-write-budget 100" \
    read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-write-budget applies to an admission rule that spends it" "$SCRATCH/err" ||
    fail "no budget error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-admission nosuch" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-admission.*nosuch" "$SCRATCH/err" || fail "no unknown-rule error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-policy belady" -p"ssd-cache-admission doorkeeper" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-admission applies to online policies" "$SCRATCH/err" ||
    fail "no offline error: $(cat "$SCRATCH/err")"
# with no SSD cache a budget or a rule holds nothing: an error (it was
# taken, exit 0), in any command, as the layout keys are
for kv in "ssd-cache-write-budget 100" "ssd-cache-write-budget-dwpd 1" "ssd-cache-admission doorkeeper"; do
    for cmd in "read-file --trace $SCRATCH/trace --simulate" stat; do
        expect_status 2 dst -p"$kv" $cmd
        [ "$(cat "$SCRATCH/err")" = "destor: ${kv% *} applies to an SSD cache, and ssd-cache-policy is none" ] ||
            fail "$kv without a cache, $cmd: $(cat "$SCRATCH/err")"
    done
done
for rule in auto all; do
    dst -p"ssd-cache-write-budget 0" -p"ssd-cache-write-budget-dwpd 0" -p"ssd-cache-admission $rule" stat > /dev/null ||
        fail "the defaults without a cache are refused ($rule)"
done
note "admission: budgets held at both granularities, doorkeeper filters, errors exit 2"
