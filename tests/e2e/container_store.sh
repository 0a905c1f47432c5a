#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# container_store.sh: `container-store files` gives the same bytes and
# answers as `pool` (backup, restore, read-file plain and through every
# online cache policy in real mode, verify --deep, repair), holding each
# container in a file of its own with the pool's bytes; a store opened with
# the other kind configured is refused (exit 2) and left as it was; a
# store.meta of version 2 (made before kinds existed) reads as a pool.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 21

# Each kind's config: its own working directory, nothing else differs.
# SHA-256 file digests, as the version-2 store.meta made below holds.
for kind in pool files; do
    printf 'working-directory "%s/w-%s"\ncontainer-size 128K\ncontainer-store %s\nfile-digest sha256\n' \
        "$SCRATCH" "$kind" "$kind" > "$SCRATCH/$kind.config"
done
on() { kind=$1; shift; "$DESTOR_BIN" -c "$SCRATCH/$kind.config" "$@"; }

for kind in pool files; do
    on $kind backup --json "$SCRATCH/data/v1" | answers > "$SCRATCH/$kind.backup"
    on $kind backup --json "$SCRATCH/data/v2" | answers >> "$SCRATCH/$kind.backup"
    on $kind stat --json | answers > "$SCRATCH/$kind.stat"
done
[ -f "$SCRATCH/w-pool/containers.pool" ] && [ ! -e "$SCRATCH/w-pool/containers" ] || fail "pool layout"
[ -d "$SCRATCH/w-files/containers" ] && [ ! -e "$SCRATCH/w-files/containers.pool" ] || fail "files layout"
cmp "$SCRATCH/pool.backup" "$SCRATCH/files.backup" || fail "backup answers differ"
cmp "$SCRATCH/pool.stat" "$SCRATCH/files.stat" || fail "stat answers differ"

# Container i of the pool is byte for byte the file containers/SSSSSS/NNNNNNNN,
# and there is no other file.
"$PYTHON" - "$SCRATCH/w-pool/containers.pool" "$SCRATCH/w-files/containers" <<'PY' || fail "container files differ from the pool"
import os, sys
pool = open(sys.argv[1], "rb").read()
size = 128 * 1024
n = len(pool) // size
assert n > 2 and len(pool) == n * size, n
names = sorted(os.path.relpath(os.path.join(d, f), sys.argv[2]) for d, _, fs in os.walk(sys.argv[2]) for f in fs)
assert names == ["%06x/%08x" % (i >> 8, i) for i in range(n)], names[:5]
for i in range(n):
    assert open(os.path.join(sys.argv[2], names[i]), "rb").read() == pool[i * size:(i + 1) * size], i
PY
note "backup: the same answers; every container file holds the pool's bytes"

# restore, list and read-file, plain: the same answers, the originals.
reads_as_pool on files

# Through the SSD cache under every online policy, in real mode: the same
# hits, misses, admissions and evictions and verified bytes on both kinds.
POLICIES=$("$DESTOR_BIN" policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["policies"] if not p["offline"]))')
[ -n "$POLICIES" ] || fail "destor policies listed nothing"
for policy in $POLICIES; do
    for kind in pool files; do
        on $kind -p"ssd-cache-policy $policy" -p"ssd-cache-directory $SCRATCH/cache-$kind-$policy" \
            -p"ssd-cache-size 6" read-file --trace "$SCRATCH/trace" --verify --json | answers > "$SCRATCH/$kind.read"
    done
    cmp -s "$SCRATCH/pool.read" "$SCRATCH/files.read" || fail "read-file through $policy: the answers differ"
    grep -q '"mode": "real"' "$SCRATCH/files.read" || fail "read-file through $policy was not in real mode"
done
note "read-file plain and through $(echo $POLICIES | wc -w) policies in real mode: the same bytes and answers"

for kind in pool files; do
    on $kind verify --deep --json | answers > "$SCRATCH/$kind.verify"
    on $kind repair --json | answers > "$SCRATCH/$kind.repair"
    on $kind verify --deep --json | answers >> "$SCRATCH/$kind.verify"
done
grep -q '"problem_count": 0' "$SCRATCH/files.verify" || fail "files store does not verify"
cmp "$SCRATCH/pool.verify" "$SCRATCH/files.verify" || fail "verify answers differ"
cmp "$SCRATCH/pool.repair" "$SCRATCH/files.repair" || fail "repair answers differ"

# Damage: a flipped byte in container 1 is found the same way on both.
cp "$SCRATCH/w-pool/containers.pool" "$SCRATCH/pool.saved"
cp "$SCRATCH/w-files/containers/000000/00000001" "$SCRATCH/one.saved"
printf 'X' | dd of="$SCRATCH/w-pool/containers.pool" bs=1 seek=$((131072 + 5000)) conv=notrunc status=none
printf 'X' | dd of="$SCRATCH/w-files/containers/000000/00000001" bs=1 seek=5000 conv=notrunc status=none
for kind in pool files; do
    set +e
    on $kind verify --json > "$SCRATCH/$kind.damaged"
    rc=$?
    set -e
    [ "$rc" -eq 3 ] || fail "verify of a damaged $kind store exited $rc"
done
cmp "$SCRATCH/pool.damaged" "$SCRATCH/files.damaged" || fail "verify reports the damage differently"
cp "$SCRATCH/pool.saved" "$SCRATCH/w-pool/containers.pool"
cp "$SCRATCH/one.saved" "$SCRATCH/w-files/containers/000000/00000001"
note "verify --deep and repair: the same answers; damage reported alike"

# Something other than a regular file at a container's name (a directory,
# a FIFO, a symlink) is reported as what it is, not as a torn container,
# and a FIFO does not block the reader.
F="$SCRATCH/w-files/containers/000000/00000001"
for what in directory FIFO "symbolic link"; do
    rm -f "$F"
    case $what in
    directory) mkdir "$F" ;;
    FIFO) mkfifo "$F" ;;
    *) ln -s "$SCRATCH/one.saved" "$F" ;;
    esac
    set +e
    timeout 60 "$DESTOR_BIN" -c "$SCRATCH/files.config" verify > "$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    set -e
    [ "$rc" -eq 3 ] || fail "verify with a $what for container 1 exited $rc"
    grep -q "container 1's file .*000000/00000001 is a $what, not a regular file" "$SCRATCH/out" "$SCRATCH/err" ||
        fail "a $what for container 1 is not reported as one: $(cat "$SCRATCH/out" "$SCRATCH/err" | head -5)"
    grep -q "torn" "$SCRATCH/out" "$SCRATCH/err" && fail "a $what for container 1 reported as torn"
    rm -rf "$F"
done
cp "$SCRATCH/one.saved" "$F"
on files verify >/dev/null || fail "the restored container 1 does not verify"
note "a directory, FIFO or symlink for a container file: named as such (exit 3)"

# The other kind configured: exit 2 naming both, nothing created or changed.
snapshot() { (cd "$1" && find . -printf '%p %s %T@\n' | sort && find . -type f ! -name LOCK -exec md5sum {} + | sort); }
for pair in "pool files" "files pool"; do
    set -- $pair
    snapshot "$SCRATCH/w-$1" > "$SCRATCH/before"
    for cmd in "stat" "backup $SCRATCH/data/v1" "restore 0 $SCRATCH/nowhere" "read-file 0 x" "verify" "repair"; do
        # shellcheck disable=SC2086
        expect_status 2 on "$1" -p"container-store $2" $cmd
        grep -q "container-store $1); container-store $2 does not match" "$SCRATCH/err" ||
            fail "$cmd on a $1 store with $2: $(cat "$SCRATCH/err")"
    done
    snapshot "$SCRATCH/w-$1" > "$SCRATCH/after"
    cmp -s "$SCRATCH/before" "$SCRATCH/after" || fail "a refused command changed the $1 store"
    [ ! -e "$SCRATCH/nowhere" ] || fail "a refused restore wrote its target"
done
note "the other kind configured: exit 2 in both directions, the store untouched"

# A version-2 store.meta (before kinds) is a pool store: it opens and
# verifies as one, refuses files, and a backup leaves it as it is.
"$PYTHON" - "$SCRATCH/w-pool/store.meta" <<'PY'
import struct, sys, zlib
m = bytearray(open(sys.argv[1], "rb").read())
assert len(m) == 48 and m[:8] == b"DPLCSTO1" and struct.unpack_from("<I", m, 8)[0] == 4
assert struct.unpack_from("<I", m, 36)[0] == 0 and struct.unpack_from("<I", m, 40)[0] == 1
struct.pack_into("<I", m, 8, 2)
struct.pack_into("<I", m, 40, 0)
struct.pack_into("<I", m, 44, zlib.crc32(bytes(m[:44])))
open(sys.argv[1], "wb").write(m)
PY
expect_status 2 on pool -p"container-store files" stat
on pool stat --json | answers > "$SCRATCH/v2.stat"
cmp "$SCRATCH/pool.stat" "$SCRATCH/v2.stat" || fail "a version-2 store reads differently"
rm -rf "$SCRATCH/r-v2"
on pool restore 1 "$SCRATCH/r-v2" >/dev/null
same_tree "$SCRATCH/data/v2" "$SCRATCH/r-v2"
on pool verify --deep >/dev/null || fail "a version-2 store does not verify"
cp "$SCRATCH/w-pool/store.meta" "$SCRATCH/meta.v2"
on pool backup "$SCRATCH/data/v1" >/dev/null
cmp -s "$SCRATCH/w-pool/store.meta" "$SCRATCH/meta.v2" || fail "a backup rewrote a version-2 store.meta"
note "a version-2 store.meta reads, verifies and backs up as a pool store, and stays version 2"
