#!/bin/sh
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

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 31
printf 'container-size 128K\n' >> "$CONFIG"
dst backup "$SCRATCH/data/v1" >/dev/null
dst backup "$SCRATCH/data/v2" >/dev/null
for job in 0 1; do dst list $job --null > "$SCRATCH/list$job"; done
"$PYTHON" - "$SCRATCH/list0" "$SCRATCH/list1" > "$SCRATCH/trace" <<'PY'
import random, sys
reqs = []
for job, name in enumerate(sys.argv[1:]):
    for rec in open(name, "rb").read().split(b"\0")[:-1]:
        kind, size, path = rec.split(b"\t", 2)
        if kind == b"f" and b"\n" not in path and b"\r" not in path:
            reqs.append((job, path, int(size)))
rng = random.Random(9)
weights = [1.0 / (i + 1) ** 0.53 for i in range(len(reqs))]
for job, path, size in rng.choices(reqs, weights, k=1200):
    line = b"%d\t%s" % (job, path)
    if rng.random() < 0.3:
        line += b"\t%d\t%d" % (rng.randrange(size + 10), rng.choice([0, 100, 70000, 300000]))
    sys.stdout.buffer.write(line + b"\n")
PY
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
assert (a.get("latency_model_usec") is None) == (b.get("latency_model_usec") is None)
if a.get("latency_model_usec"):
    assert a["latency_model_usec"] == b["latency_model_usec"], (a["latency_model_usec"], b["latency_model_usec"])
assert (a["cache"] is None) == (b["cache"] is None)
if a["cache"]:
    for k, v in a["cache"].items():
        if "wall" not in k:
            assert b["cache"][k] == v, (k, v, b["cache"][k])
PY
}
for policy in none fifo lru lfu lfu-incache plc; do
    set -- -p"ssd-cache-policy $policy" -p"ssd-cache-size 5" -p"plc-filter-threshold 2"
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
    printf '\377' | dd of="$SCRATCH/dmg.ctr" bs=1 seek=$at conv=notrunc status=none
    expect_status 3 dst --simulate read-file --trace "$SCRATCH/dmg.ctr"
done
head -c $((size - 5)) "$SCRATCH/trace.ctr" > "$SCRATCH/cut.ctr"
expect_status 3 dst --simulate read-file --trace "$SCRATCH/cut.ctr"

# The HDD-only simulation reads no container: it passes with the pool's
# bytes destroyed, where a real replay reports the damage.
cp "$SCRATCH/working/containers.pool" "$SCRATCH/pool.saved"
dd if=/dev/zero of="$SCRATCH/working/containers.pool" bs=65536 count=16 conv=notrunc status=none
expect_status 0 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
expect_status 0 dst --simulate read-file --trace "$SCRATCH/trace"
expect_status 3 dst read-file --trace "$SCRATCH/trace.ctr"
cp "$SCRATCH/pool.saved" "$SCRATCH/working/containers.pool"

# A later backup leaves the compiled trace valid; a store re-created with
# other data under the same path makes it stale (exit 2).
dst backup "$SCRATCH/data/v1" >/dev/null
expect_status 0 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
rm -rf "$SCRATCH/working"
dst backup "$SCRATCH/data/v2" >/dev/null
dst backup "$SCRATCH/data/v1" >/dev/null
expect_status 2 dst --simulate read-file --trace "$SCRATCH/trace.ctr"
grep -q 'is stale' "$SCRATCH/err" || fail "a stale compiled trace must be called stale"
note "damaged compiled traces exit 3, stale ones exit 2"
