#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dwpd_budget.sh: ssd-cache-write-budget-dwpd, the write budget in drive
# writes per day by a timed trace's clock (issue 38), at both
# granularities, in simulation and real mode, from the text trace and its
# compiled form: the bytes written to the SSD (container:
# ssd_bytes_written; chunk: stored bytes plus the log's rewrites,
# ../shared/POLICIES.md) stay within one cache fill + DWPD x size x the
# trace's days, over 10 minutes and over 6 days; with requests a second apart and the DWPD chosen so that a
# second brings exactly the per-request budget's bytes, the two budgets
# give the same decisions (every counter of the cache the same); real mode
# decides as simulation does. A DWPD budget on a trace without times, with
# a per-request budget too, or for one file, and a trace whose times are
# missing or go back are one-line errors, exit 2.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 23 4 0.9 600
# the timed twin: request k at k seconds; the first request reads one byte
# (one chunk: before the second request the DWPD rate is unknown, so a
# first request of several candidates could be ranked otherwise)
"$PYTHON" - "$SCRATCH/trace" "$SCRATCH/plain" "$SCRATCH/timed" <<'PY'
import sys
recs = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
job, path = recs[0].split(b"\t")[:2]
recs[0] = b"%s\t%s\t0\t1" % (job, path)
open(sys.argv[2], "wb").write(b"".join(r + b"\n" for r in recs))
open(sys.argv[3], "wb").write(b"".join(b"@%d\t%s\n" % (k, r) for k, r in enumerate(recs)))
PY

# 4 MiB of cache; 42.1875 DWPD of it is 2048 bytes a second, exactly
SIZE=4M
PER_REQUEST=2048
DWPD=42.1875
run() { # NAME GRANULARITY MODE TRACE BUDGET-KEY VALUE [more -p]
    name=$1 granularity=$2 mode=$3 trace=$4 key=$5 value=$6
    shift 6
    set -- -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size $SIZE" \
        -p"$key $value" "$@"
    if [ "$mode" = real ]; then
        rm -rf "$SCRATCH/ssd-$name"
        dst "$@" -p"ssd-cache-directory $SCRATCH/ssd-$name" read-file --trace "$trace" --json > "$SCRATCH/$name.json"
    else
        dst "$@" read-file --trace "$trace" --simulate --json > "$SCRATCH/$name.json"
    fi
}

for granularity in container chunk; do
    dst -p"ssd-cache-granularity $granularity" trace compile "$SCRATCH/timed" -o "$SCRATCH/timed-$granularity.ctr"
    for admission in compete bucket learned; do
        g=$granularity-$admission
        run $g-per $granularity sim "$SCRATCH/plain" ssd-cache-write-budget $PER_REQUEST -p"ssd-cache-admission $admission"
        run $g-dwpd $granularity sim "$SCRATCH/timed" ssd-cache-write-budget-dwpd $DWPD -p"ssd-cache-admission $admission"
        run $g-ctr $granularity sim "$SCRATCH/timed-$granularity.ctr" ssd-cache-write-budget-dwpd $DWPD \
            -p"ssd-cache-admission $admission"
        run $g-real $granularity real "$SCRATCH/timed" ssd-cache-write-budget-dwpd $DWPD \
            -p"ssd-cache-admission $admission"
        "$PYTHON" - "$SCRATCH" "$g" "$granularity" "$DWPD" 599 <<'PY'
import json, sys
d, g, granularity, dwpd, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
c = {k: json.load(open("%s/%s-%s.json" % (d, g, k)))["cache"] for k in ("per", "dwpd", "ctr", "real")}
def written(k):
    """SSD bytes the budget pays (../shared/POLICIES.md): the container
    cache's writes; the chunk log's admitted chunks as stored (no
    compression here) and its rewrites, not the padding of its segments."""
    if granularity == "container":
        return k["ssd_bytes_written"]
    seg = k["chunk_log"]
    return k["admitted_bytes"] + seg["cleaner_bytes_written"] + seg["reinserted_bytes_written"]
size = c["dwpd"]["capacity_bytes"]
for name, k in c.items():
    if name == "per":
        continue
    bound = size + dwpd * size * seconds / 86400
    assert written(k) <= bound, (name, written(k), bound)
# the same decisions: every count but the wall-clock ones
skip = {"elapsed_s", "wall", "latency", "lifetime", "write_rate_wall", "memory", "write_budget", "cpu", "_ms", "_s"}
def decisions(k):
    return {key: v for key, v in k.items() if isinstance(v, int) and not any(s in key for s in skip)}
a, b = decisions(c["per"]), decisions(c["dwpd"])
diff = {key: (a.get(key), b.get(key)) for key in set(a) | set(b) if a.get(key) != b.get(key)}
assert not diff, diff
for name in ("ctr", "real"):
    x = decisions(c[name])
    diff = {key: (b.get(key), x.get(key)) for key in set(b) & set(x) if b.get(key) != x.get(key)}
    assert not diff, (name, diff)
print("# %s: %d admissions, %d bytes written of %d allowed (size %d); per-request budget: the same" % (
    g, c["dwpd"]["admissions"], written(c["dwpd"]), size + dwpd * size * seconds / 86400, size))
PY
    done
done

# six days: 600 requests 864 s apart at 0.5 DWPD allow one fill + 3 more
"$PYTHON" - "$SCRATCH/plain" "$SCRATCH/days" <<'PY'
import sys
recs = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
open(sys.argv[2], "wb").write(b"".join(b"@%d.5\t%s\n" % (864 * k, r) for k, r in enumerate(recs)))
PY
for granularity in container chunk; do
    run days-$granularity $granularity sim "$SCRATCH/days" ssd-cache-write-budget-dwpd 0.5 -p"ssd-cache-size 1M"
    "$PYTHON" - "$SCRATCH/days-$granularity.json" "$granularity" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["cache"]
days = 599 * 864 / 86400
size = k["capacity_bytes"]
if sys.argv[2] == "container":
    w = k["ssd_bytes_written"]
else:
    w = k["admitted_bytes"] + k["chunk_log"]["cleaner_bytes_written"] + k["chunk_log"]["reinserted_bytes_written"]
    assert k["write_budget_charged_bytes"] == w, (k["write_budget_charged_bytes"], w)
assert abs(k["write_budget_bytes"] - 0.5 * size * days) < 1e-6 * size, k["write_budget_bytes"]
assert k["write_budget_dwpd"] == 0.5 and k["write_budget_bytes_per_request"] == 0, k
assert w <= size + 0.5 * size * days, (w, size, days)
assert w >= 0.8 * (size + 0.5 * size * days) and k["refused_admission"] > 0, (w, k["refused_admission"])
print("# %s over %.2f days at 0.5 DWPD of %d bytes: %d written, %.2f drive writes" % (
    sys.argv[2], days, size, w, w / size))
PY
    # the text report says the budget too, at either granularity
    dst -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size 1M" \
        -p"ssd-cache-write-budget-dwpd 0.5" read-file --trace "$SCRATCH/days" --simulate > "$SCRATCH/days.txt"
    grep -Eq "^  write budget +0.5 DWPD, .* over the trace's time \(\+ one cache fill\); written [0-9.]+ of it" \
        "$SCRATCH/days.txt" || fail "no budget line in the $granularity report: $(cat "$SCRATCH/days.txt")"
    # every request at one time: a budget of 0 B, the cache fill written;
    # the line says the bytes, not a share of nothing (it said "0.000 of it")
    sed 's/^@[0-9.]*/@7/' "$SCRATCH/days" > "$SCRATCH/instant"
    dst -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size 1M" \
        -p"ssd-cache-write-budget-dwpd 0.5" read-file --trace "$SCRATCH/instant" --simulate > "$SCRATCH/instant.txt"
    grep -Eq "^  write budget +0.5 DWPD, 0 B over the trace's time \(\+ one cache fill\); written [0-9.]+ [KM]iB, no budget to compare it to$" \
        "$SCRATCH/instant.txt" || fail "budget line of 0 B in the $granularity report: $(grep budget "$SCRATCH/instant.txt")"
done

# the largest per-request budget (1e18 B) over 600 requests, 6e20 B: the
# JSON parses (it held 6e+20.0) and the text says the bytes (it said 0 B)
for granularity in container chunk; do
    run huge-$granularity $granularity sim "$SCRATCH/plain" ssd-cache-write-budget 1e18
    "$PYTHON" -c 'import json, sys; k = json.load(open(sys.argv[1]))["cache"]; b = k["write_budget_bytes"]
assert abs(b - 1e18 * k["requests"]) <= 1e-9 * b, (b, k["requests"])' "$SCRATCH/huge-$granularity.json" ||
        fail "$granularity: the JSON report of a budget past 2^64 bytes"
    dst -p"ssd-cache-granularity $granularity" -p"ssd-cache-policy lru" -p"ssd-cache-size $SIZE" \
        -p"ssd-cache-write-budget 1e18" read-file --trace "$SCRATCH/plain" --simulate > "$SCRATCH/huge.txt"
    grep -Eq "^  write budget +1000000000000000000 B per request, [1-9][0-9.]*e\+[0-9]+ B over the requests" \
        "$SCRATCH/huge.txt" || fail "$granularity: budget past 2^64 bytes: $(grep 'write budget ' "$SCRATCH/huge.txt")"
done

# errors, exit 2: a DWPD budget on an untimed trace (text or compiled),
# for one file, with a per-request budget too; a trace whose times are
# missing or go back
dst trace compile "$SCRATCH/plain" -o "$SCRATCH/plain.ctr"
for trace in "$SCRATCH/plain" "$SCRATCH/plain.ctr"; do
    expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-write-budget-dwpd 1" read-file --trace "$trace" --simulate
    grep -q "^destor: ssd-cache-write-budget-dwpd is credited by the trace's time, and .* has none" "$SCRATCH/err" ||
        fail "no untimed-trace error: $(cat "$SCRATCH/err")"
    [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] || fail "more than one line: $(cat "$SCRATCH/err")"
done
job=$(head -n 1 "$SCRATCH/plain" | cut -f1)
path=$(head -n 1 "$SCRATCH/plain" | cut -f2)
for trace in "$SCRATCH/plain" ""; do # before the SSD cache is opened: no directory made
    if [ -n "$trace" ]; then
        set -- read-file --trace "$trace"
    else
        set -- read-file "$job" "$path" -o "$SCRATCH/one"
    fi
    expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-write-budget-dwpd 1" \
        -p"ssd-cache-directory $SCRATCH/ssd-untouched" "$@"
    grep -q "^destor: ssd-cache-write-budget-dwpd .* has none" "$SCRATCH/err" || fail "no untimed error: $(cat "$SCRATCH/err")"
    [ ! -e "$SCRATCH/ssd-untouched" ] || fail "the SSD cache was opened: $(ls "$SCRATCH/ssd-untouched")"
done
expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-write-budget-dwpd 1" -p"ssd-cache-write-budget 10" \
    read-file --trace "$SCRATCH/timed" --simulate
grep -q "^destor: .*set one of them" "$SCRATCH/err" || fail "no both-budgets error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-policy belady" -p"ssd-cache-write-budget-dwpd 1" read-file --trace "$SCRATCH/timed" --simulate
grep -q "^destor: .*ssd-cache-write-budget-dwpd applies to online policies" "$SCRATCH/err" ||
    fail "no offline error: $(cat "$SCRATCH/err")"
{ head -n 3 "$SCRATCH/timed"; sed -n 4p "$SCRATCH/plain"; } > "$SCRATCH/mixed"
{ head -n 3 "$SCRATCH/timed"; sed -n 4p "$SCRATCH/plain" | sed 's/^/@1\t/'; } > "$SCRATCH/back"
for bad in mixed back; do
    expect_status 2 dst -p"ssd-cache-policy lru" read-file --trace "$SCRATCH/$bad" --simulate
    grep -q "^destor: .*$bad:4: " "$SCRATCH/err" || fail "no $bad-times error: $(cat "$SCRATCH/err")"
    expect_status 2 dst trace compile "$SCRATCH/$bad" -o "$SCRATCH/$bad.ctr"
done
note "dwpd: budgets held by the trace's clock at both granularities, equal to the per-request budget at its rate"
