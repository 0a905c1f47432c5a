#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# ssd_cache.sh: read-file through the SSD cache under every online policy
# (`destor policies`) in real
# mode: the bytes equal the originals, the cache directory never holds more
# than its capacity, simulation mode gives the same hit, miss, admission and
# eviction counts, and cached containers survive a restart.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 12
"$DESTOR_BIN" -c "$CONFIG" -p"container-size 128K" backup "$SCRATCH/data/v1" >/dev/null
"$DESTOR_BIN" -c "$CONFIG" -p"container-size 128K" backup "$SCRATCH/data/v2" >/dev/null

# A skewed trace over both jobs' files: a few files very often, most rarely.
for job in 0 1; do dst list $job --null > "$SCRATCH/list$job"; done
"$PYTHON" - "$SCRATCH/list0" "$SCRATCH/list1" > "$SCRATCH/trace" <<'PY'
import random, sys
reqs = []
for job, name in enumerate(sys.argv[1:]):
    for rec in open(name, "rb").read().split(b"\0")[:-1]:
        kind, _size, path = rec.split(b"\t", 2)
        if kind == b"f" and b"\n" not in path and b"\r" not in path:
            reqs.append(b"%d\t%s" % (job, path))
rng = random.Random(5)
weights = [1.0 / (i + 1) ** 0.53 for i in range(len(reqs))]   # Zipf, alpha 0.47
rng.shuffle(reqs)
for r in rng.choices(reqs, weights, k=1500):
    sys.stdout.buffer.write(r + b"\n")
PY

CAP=6
# Every online policy `destor policies` lists: real = simulation.
POLICIES=$("$DESTOR_BIN" policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["policies"] if not p["offline"]))')
[ -n "$POLICIES" ] || fail "destor policies listed nothing"
for p in $POLICIES; do dst policies | grep -q "^$p (online)" || fail "destor policies (text) misses $p"; done
dst policies --json | "$PYTHON" -c '
import json, sys
for p in json.load(sys.stdin)["policies"]:
    assert p["description"] and p["citation"], p
    for k in p["keys"]:
        assert k["name"].startswith(p["name"] + "-") and k["default"] and k["doc"], k
'
expect_status 2 dst policies extra
if [ -w /dev/full ]; then
    set +e; dst policies --json > /dev/full 2>"$SCRATCH/err"; rc=$?; set -e
    [ "$rc" -eq 1 ] && grep -q '^destor: ' "$SCRATCH/err" || fail "policies into a full device exited $rc"
fi
for policy in $POLICIES; do
    CACHE="$SCRATCH/cache-$policy"
    cfg="$SCRATCH/$policy.config"
    { cat "$CONFIG"; printf 'ssd-cache-policy %s\nssd-cache-directory "%s"\nssd-cache-size %s\n' \
        "$policy" "$CACHE" "$CAP"; [ "$policy" != plc ] || echo "plc-filter-threshold 2"; } > "$cfg"
    "$DESTOR_BIN" -c "$cfg" read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/real.json"
    rm -rf "$CACHE"
    "$DESTOR_BIN" -c "$cfg" read-file --trace "$SCRATCH/trace" --json --simulate > "$SCRATCH/sim.json"
    "$PYTHON" - "$SCRATCH/real.json" "$SCRATCH/sim.json" "$policy" "$CAP" <<'PY'
import json, sys
real, sim = (json.load(open(f))["cache"] for f in sys.argv[1:3])
policy, cap = sys.argv[3], int(sys.argv[4])
assert real["mode"] == "real" and sim["mode"] == "simulate"
for k in ("accesses", "hits", "misses", "admissions", "evictions", "ssd_bytes_written", "refused",
          "policy_counters"):
    assert real[k] == sim[k], (policy, k, real[k], sim[k])
assert real["misses"] == real["admissions"] + real["refused"]
assert real["hits"] + real["misses"] == real["accesses"]
assert real["ssd_bytes_written"] == real["admissions"] * real["container_size"]
assert real["cached_containers"] <= cap
assert real["hits"] > 0, "no hits at all under " + policy
print("# %s: %d accesses, hit ratio %.3f, %d containers written, identical in simulation"
      % (policy, real["accesses"], real["hit_ratio"], real["ssd_containers_written"]))
PY
done

# Real bytes through a warm cache (each slot: a 4 KiB header, then the
# container), then a restart: a second process finds
# the cached containers still there and serves them from the SSD.
cfg="$SCRATCH/lru.config"
rm -rf "$SCRATCH/cache-lru"
"$DESTOR_BIN" -c "$cfg" read-file --trace "$SCRATCH/trace" >/dev/null
slots=$(stat -c %s "$SCRATCH/cache-lru/slots.dat")
[ "$slots" -le $((CAP * (131072 + 4096))) ] || fail "cache slot file holds $slots bytes, more than $CAP containers"
"$PYTHON" "$TOP_SRCDIR/tests/e2e/read_sample.py" "$DESTOR_BIN" "$cfg" 1 "$SCRATCH/data/v2" 30 4
head -n 1 "$SCRATCH/trace" > "$SCRATCH/one"
"$DESTOR_BIN" -c "$cfg" read-file --trace "$SCRATCH/one" --json > "$SCRATCH/a.json"
"$DESTOR_BIN" -c "$cfg" read-file --trace "$SCRATCH/one" --json > "$SCRATCH/b.json"
"$PYTHON" - "$SCRATCH/b.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["accesses"] > 0 and c["hits"] == c["accesses"], c
print("# after a restart the cache served all %d accesses from the SSD" % c["accesses"])
PY

# Restore goes through the cache too, and gives the same tree.
"$DESTOR_BIN" -c "$cfg" restore 1 "$SCRATCH/restored" >/dev/null
same_tree "$SCRATCH/data/v2" "$SCRATCH/restored"
expect_status 2 "$DESTOR_BIN" -c "$cfg" --simulate restore 1 "$SCRATCH/restored2"
note "restore through the SSD cache is identical"
