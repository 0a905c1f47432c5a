#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_store.sh: `container-store rados`, against a real cluster, gives
# the same bytes and answers as `pool` (backup, restore, list, read-file
# plain and through the SSD cache in real mode, verify --deep, repair),
# holding each container as one object with the pool's bytes; a damaged
# object is found alike; the other kind configured is refused (exit 2);
# the namespace belongs to one store (a working directory of another store
# on it is refused, exit 2, and leaves it as it was).
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 29
printf 'working-directory "%s/w-pool"\ncontainer-size 128K\n' "$SCRATCH" > "$SCRATCH/pool.config"
printf 'container-size 128K\n' >> "$CONFIG"
# run KIND CMD...: destor on the pool store or on the rados store "r".
run() {
    kind=$1
    shift
    if [ "$kind" = pool ]; then "$DESTOR_BIN" -c "$SCRATCH/pool.config" "$@"; else on r "$@"; fi
}

for kind in pool rados; do
    run $kind backup --json "$SCRATCH/data/v1" | answers > "$SCRATCH/$kind.backup"
    run $kind backup --json "$SCRATCH/data/v2" | answers >> "$SCRATCH/$kind.backup"
    run $kind stat --json | answers > "$SCRATCH/$kind.stat"
done
cmp "$SCRATCH/pool.backup" "$SCRATCH/rados.backup" || fail "backup answers differ"
cmp "$SCRATCH/pool.stat" "$SCRATCH/rados.stat" || fail "stat answers differ"
[ ! -e "$SCRATCH/r/containers.pool" ] && [ ! -e "$SCRATCH/r/containers" ] || fail "a rados store keeps containers locally"

# Container i of the pool is byte for byte the object container.NNNNNNNN of
# the namespace, and beside them are only the lock's and identity's objects
# and the store's metadata (docs/FORMAT.md, "The store in the cluster").
rados_cli -N r ls | sort > "$SCRATCH/objects"
mkdir "$SCRATCH/objs"
# (the fingerprint index's shards by name only: rados_index.sh reads them)
grep -v '^destor\.index\.' "$SCRATCH/objects" | while read -r obj; do rados_cli -N r get "$obj" "$SCRATCH/objs/$obj"; done
grep -q '^destor\.index\.[0-9a-f][0-9a-f]$' "$SCRATCH/objects" || fail "no fingerprint index shard"
"$PYTHON" - "$SCRATCH/w-pool/containers.pool" "$SCRATCH/objs" <<'PY' || fail "container objects differ from the pool"
import os, sys
pool = open(sys.argv[1], "rb").read()
size = 128 * 1024
n = len(pool) // size
assert n > 2 and len(pool) == n * size, n
import re
names = sorted(os.listdir(sys.argv[2]))
# a job's objects carry the token of the process that wrote it (16 hex digits)
meta = sorted(re.sub(r"^(job\.\d{8})\.[0-9a-f]{16}\.", r"\1.", m) for m in names if m.startswith("job."))
assert meta == sorted("job.%08u.%s" % (j, what) for j in range(2) for what in ("records", "recipe", "refcount", "index")), meta
# the readers' lock object, once a reader ran (no data)
names = [m for m in names if not m.startswith("job.") and m != "destor.readers"]
want = sorted(["container.%08x" % i for i in range(n)] + ["destor.index", "destor.jobs", "destor.lock", "destor.meta", "destor.store"])
assert names == want, (names[:5], want[:5])
for i in range(n):
    assert open(os.path.join(sys.argv[2], "container.%08x" % i), "rb").read() == pool[i * size:(i + 1) * size], i
PY
note "backup: the same answers; every container object holds the pool's bytes"

# restore, list and read-file, plain: the same answers, the originals.
reads_as_pool run rados

# Through the SSD cache in real mode, under two policies, cold then warm:
# the same hits, misses and verified bytes; the misses are the containers
# read from RADOS, counted in bytes read from the store.
for policy in lru plc; do
    for kind in pool rados; do
        for pass in cold warm; do
            run $kind -p"ssd-cache-policy $policy" -p"ssd-cache-directory $SCRATCH/cache-$kind-$policy" \
                -p"ssd-cache-size 6" read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/$kind.$pass.json"
            answers < "$SCRATCH/$kind.$pass.json" > "$SCRATCH/$kind.$pass"
        done
    done
    for pass in cold warm; do
        cmp -s "$SCRATCH/pool.$pass" "$SCRATCH/rados.$pass" || fail "read-file through $policy ($pass): the answers differ"
    done
    grep -q '"mode": "real"' "$SCRATCH/rados.cold" || fail "read-file through $policy was not in real mode"
    "$PYTHON" - "$SCRATCH/rados.cold.json" <<'PY' || fail "$policy: containers read from RADOS are not counted"
import json, sys
d = json.load(open(sys.argv[1]))
def find(v, key):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == key:
                yield x
            yield from find(x, key)
    elif isinstance(v, list):
        for x in v:
            yield from find(x, key)
read = list(find(d, "store_bytes_read"))
assert read and read[0] > 0 and read[0] % (128 * 1024) == 0, read
PY
done
note "read-file plain and through the SSD cache (lru, plc; cold and warm) in real mode: the same bytes and answers"

for kind in pool rados; do
    run $kind verify --deep --json | answers > "$SCRATCH/$kind.verify"
    run $kind repair --json | answers > "$SCRATCH/$kind.repair"
    run $kind verify --deep --json | answers >> "$SCRATCH/$kind.verify"
done
grep -q '"problem_count": 0' "$SCRATCH/rados.verify" || fail "rados store does not verify"
cmp "$SCRATCH/pool.verify" "$SCRATCH/rados.verify" || fail "verify answers differ"
cmp "$SCRATCH/pool.repair" "$SCRATCH/rados.repair" || fail "repair answers differ"

# Damage: a flipped byte in container 1 is found the same way on both.
cp "$SCRATCH/w-pool/containers.pool" "$SCRATCH/pool.saved"
printf 'X' | dd of="$SCRATCH/w-pool/containers.pool" bs=1 seek=$((131072 + 5000)) conv=notrunc status=none
cp "$SCRATCH/objs/container.00000001" "$SCRATCH/one.damaged"
printf 'X' | dd of="$SCRATCH/one.damaged" bs=1 seek=5000 conv=notrunc status=none
rados_cli -N r put container.00000001 "$SCRATCH/one.damaged"
for kind in pool rados; do
    set +e
    run $kind verify --json > "$SCRATCH/$kind.damaged"
    rc=$?
    set -e
    [ "$rc" -eq 3 ] || fail "verify of a damaged $kind store exited $rc"
done
cmp "$SCRATCH/pool.damaged" "$SCRATCH/rados.damaged" || fail "verify reports the damage differently"
cp "$SCRATCH/pool.saved" "$SCRATCH/w-pool/containers.pool"
rados_cli -N r put container.00000001 "$SCRATCH/objs/container.00000001"
run rados verify --deep > /dev/null || fail "the store does not verify once its object is put back"
note "verify --deep and repair: the same answers; damage reported alike"

# The other kind configured: exit 2 naming both, nothing changed.
snapshot() { (cd "$SCRATCH/r" && find . -printf '%p %s %T@\n' | sort && find . -type f ! -name LOCK -exec md5sum {} + | sort); }
snapshot > "$SCRATCH/before"
for cmd in "stat" "backup $SCRATCH/data/v1" "restore 0 $SCRATCH/nowhere" "read-file 0 x" "verify" "repair"; do
    # shellcheck disable=SC2086
    expect_status 2 on r -p"container-store pool" $cmd
    grep -q "container-store rados); container-store pool does not match" "$SCRATCH/err" ||
        fail "$cmd on a rados store with pool: $(cat "$SCRATCH/err")"
done
snapshot > "$SCRATCH/after"
cmp -s "$SCRATCH/before" "$SCRATCH/after" || fail "a refused command changed the store"
[ ! -e "$SCRATCH/nowhere" ] || fail "a refused restore wrote its target"

# One store a namespace: a working directory holding another store (a
# copy of q's) is refused on namespace r (exit 2) by backup and by readers,
# and writes nothing there. (A new working directory is a cache of r's
# store: rados_shared.sh.)
on q backup "$SCRATCH/data/v1" > /dev/null
cp -r "$SCRATCH/q" "$SCRATCH/copy"
rados_cli -N r ls | sort > "$SCRATCH/objects.before"
expect_status 2 on copy -p"rados-namespace r" backup "$SCRATCH/data/v1"
grep -q "belongs to another store" "$SCRATCH/err" || fail "second store on a namespace: $(cat "$SCRATCH/err")"
expect_status 2 on copy -p"rados-namespace r" stat
grep -q "belongs to another store" "$SCRATCH/err" || fail "a reader of another store's namespace: $(cat "$SCRATCH/err")"
rados_cli -N r ls | sort > "$SCRATCH/objects.after"
cmp -s "$SCRATCH/objects.before" "$SCRATCH/objects.after" || fail "a refused store changed the namespace"
note "the other kind configured, or a namespace of another store: exit 2, the store untouched"
