#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# compiled_trace.sh: destor trace compile resolves a trace (whole files and
# ranges, two jobs) into its container-access sequence; read-file --trace
# over the compiled trace (from a file or standard input) gives the same
# requests, bytes, container accesses, cache counters and modelled
# latencies as over the text trace, for every policy in simulation and
# real mode; the HDD-only simulation reads no container (it passes with the
# pool's data destroyed); a damaged compiled trace is an integrity error
# (exit 3) and a stale one (its job re-committed differently) is refused
# (exit 2), while a later backup leaves it valid.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 31 9 0.53 1200
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.ctr"
tr '\n' '\0' < "$SCRATCH/trace" > "$SCRATCH/trace0"
dst trace compile "$SCRATCH/trace0" --null -o "$SCRATCH/trace0.ctr"
cmp -s "$SCRATCH/trace.ctr" "$SCRATCH/trace0.ctr" || fail "a --null trace compiles differently from its text form"

# same_run A.json B.json: the same work and, with a cache, the same counters.
same_run() {
    "$PYTHON" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("requests", "bytes", "container_accesses"):
    assert a[k] == b[k], (k, a[k], b[k])
assert (a.get("latency_model_ms") is None) == (b.get("latency_model_ms") is None)
if a.get("latency_model_ms"):
    assert a["latency_model_ms"] == b["latency_model_ms"], (a["latency_model_ms"], b["latency_model_ms"])
assert (a["cache"] is None) == (b["cache"] is None)
if a["cache"]:
    for k, v in a["cache"].items():
        if "wall" not in k:
            assert b["cache"][k] == v, (k, v, b["cache"][k])
PY
}
for policy in none fifo lru lfu lfu-incache plc; do
    set -- -p"ssd-cache-policy $policy" -p"ssd-cache-size 5"
    [ "$policy" != plc ] || set -- "$@" -p"plc-filter-threshold 2" # a policy's key for that policy only
    dst "$@" --simulate read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/text.json"
    dst "$@" --simulate read-file --trace "$SCRATCH/trace.ctr" --json > "$SCRATCH/compiled.json"
    same_run "$SCRATCH/text.json" "$SCRATCH/compiled.json" || fail "$policy: compiled replay differs in simulation"
done
# on standard input, and with --null (tools pass it for any file holding a NUL byte)
dst -p"ssd-cache-policy plc" --simulate read-file --trace - --null --json < "$SCRATCH/trace.ctr" > "$SCRATCH/stdin.json"
"$PYTHON" -c 'import json,sys; assert json.load(open(sys.argv[1]))["requests"] == 1200' "$SCRATCH/stdin.json" ||
    fail "a compiled trace on standard input"
for policy in none lru; do
    set -- -p"ssd-cache-policy $policy" -p"ssd-cache-size 5" -p"ssd-cache-directory $SCRATCH/cache-$policy"
    rm -rf "$SCRATCH/cache-$policy"
    dst "$@" read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/text.json"
    rm -rf "$SCRATCH/cache-$policy"
    dst "$@" read-file --trace "$SCRATCH/trace.ctr" --json > "$SCRATCH/compiled.json"
    same_run "$SCRATCH/text.json" "$SCRATCH/compiled.json" || fail "$policy: compiled replay differs in real mode"
done
note "compiled replay = text replay for every policy (simulation) and none, lru (real)"

# Options that need paths are refused for a compiled trace.
expect_status 2 dst read-file --trace "$SCRATCH/trace.ctr" --verify
expect_status 2 dst trace compile "$SCRATCH/trace"
printf '0\tno/such/file\n' > "$SCRATCH/bad"
expect_status 2 dst trace compile "$SCRATCH/bad" -o "$SCRATCH/bad.ctr"
[ ! -e "$SCRATCH/bad.ctr" ] && [ ! -e "$SCRATCH/bad.ctr.destor-tmp" ] || fail "a failed compile left its output"
# -o onto a FIFO writes into it (never a file renamed over it).
mkfifo "$SCRATCH/fifo"
cat "$SCRATCH/fifo" > "$SCRATCH/from-fifo" &
reader=$!
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/fifo"
[ -p "$SCRATCH/fifo" ] || { kill $reader 2>/dev/null || true; fail "trace compile -o replaced a FIFO"; }
wait $reader
cmp -s "$SCRATCH/from-fifo" "$SCRATCH/trace.ctr" || fail "trace compile -o FIFO wrote other bytes"

# Damage: a flipped byte anywhere, a cut file: exit 3.
size=$(stat -c %s "$SCRATCH/trace.ctr")
for at in 9 40 70 $((size / 2)) $((size - 2)); do
    cp "$SCRATCH/trace.ctr" "$SCRATCH/dmg.ctr"
    # every bit of the byte inverted, so the file always changes (writing
    # 0xff left a byte that already was 0xff alone: a 1-in-256 false failure)
    byte=$(od -An -tu1 -j "$at" -N1 "$SCRATCH/dmg.ctr" | tr -d ' ')
    printf "\\$(printf %03o $((byte ^ 255)))" | dd of="$SCRATCH/dmg.ctr" bs=1 seek=$at conv=notrunc status=none
    cmp -s "$SCRATCH/dmg.ctr" "$SCRATCH/trace.ctr" && fail "damage at $at left the file as it was"
    expect_status 3 dst --simulate read-file --trace "$SCRATCH/dmg.ctr"
done
head -c $((size - 5)) "$SCRATCH/trace.ctr" > "$SCRATCH/cut.ctr"
expect_status 3 dst --simulate read-file --trace "$SCRATCH/cut.ctr"

# The HDD-only simulation reads no container: it passes with the pool's
# bytes destroyed, where a real replay reports the damage.
C=$(containers_of "$SCRATCH/working")
cp -a "$C" "$SCRATCH/pool.saved"
zero_container_bytes "$SCRATCH/working" 0 2097152 0 1048576
expect_status 0 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
expect_status 0 dst --simulate read-file --trace "$SCRATCH/trace"
expect_status 3 dst read-file --trace "$SCRATCH/trace.ctr"
rm -rf "$C" && cp -a "$SCRATCH/pool.saved" "$C"

# A later backup leaves the compiled trace valid; a store re-created with
# other data under the same path makes it stale (exit 2).
dst backup "$SCRATCH/data/v1" >/dev/null
expect_status 0 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
"$PYTHON" -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d[16:32] != bytes(16)' "$SCRATCH/trace.ctr" ||
    fail "the compiled trace does not carry the store identity"
# The store re-created at the same path with the same two jobs (manifests
# that may be byte for byte the same): its new identity makes the trace stale.
rm -rf "$SCRATCH/working"
dst backup "$SCRATCH/data/v1" >/dev/null
dst backup "$SCRATCH/data/v2" >/dev/null
expect_status 2 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
grep -q 'is stale: it was compiled against another store' "$SCRATCH/err" ||
    fail "a compiled trace of an earlier store must be called stale"
# A job committed again differently under the same id: stale by its manifest.
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.ctr"
rm -rf "$SCRATCH/working/jobs/00000001"
dst backup "$SCRATCH/data/v1" >/dev/null
expect_status 2 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
grep -q "is stale: job 1's manifest has changed" "$SCRATCH/err" || fail "a re-committed job must make the trace stale"
note "damaged compiled traces exit 3, stale ones exit 2"
