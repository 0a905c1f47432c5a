#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cache_identity.sh: an SSD cache directory never serves another store's
# containers (issue 10 item 1). Two stores share one ssd-cache-directory,
# and a store is deleted and re-created while its cache directory is kept:
# every read returns the reading store's own bytes, and the foreign cache
# is dropped with one warning and counted.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

CACHE="$SCRATCH/shared-cache"
for s in a b; do
    mkdir -p "$SCRATCH/data-$s"
    pseudo_random 3145728 "$( [ $s = a ] && echo 101 || echo 202 )" > "$SCRATCH/data-$s/f"
    printf 'working-directory "%s/store-%s"\nssd-cache-policy lru\nssd-cache-directory "%s"\nssd-cache-size 100%%\n' \
        "$SCRATCH" "$s" "$CACHE" > "$SCRATCH/$s.config"
    # b becomes a version-1 store below: SHA-256 file digests, as those held
    [ $s = b ] && echo 'file-digest sha256' >> "$SCRATCH/$s.config"
    "$DESTOR_BIN" -c "$SCRATCH/$s.config" backup "$SCRATCH/data-$s" >/dev/null
done
# Same file name and size in both stores, so the same container ids.
cmp -s "$SCRATCH/data-a/f" "$SCRATCH/data-b/f" && fail "the two files should differ"

# foreign_dropped JSON: the dropped-foreign counter of a read's cache report.
foreign_dropped() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"]["ssd_foreign_dropped"])' "$1"; }

"$DESTOR_BIN" -c "$SCRATCH/a.config" read-file 0 f -o "$SCRATCH/out-a" 2>"$SCRATCH/err-a"
cmp "$SCRATCH/data-a/f" "$SCRATCH/out-a" || fail "store a read wrong bytes"

# Store b reads through the cache store a filled.
"$DESTOR_BIN" -c "$SCRATCH/b.config" read-file 0 f -o "$SCRATCH/out-b" 2>"$SCRATCH/err-b"
cmp "$SCRATCH/data-b/f" "$SCRATCH/out-b" || fail "store b was served store a's cached containers"
[ "$(grep -c '^destor: warning: .*another store' "$SCRATCH/err-b")" -eq 1 ] || { cat "$SCRATCH/err-b" >&2; fail "no single warning about the foreign cache"; }
grep -v '^destor: ' "$SCRATCH/err-b" | grep . && fail "stderr holds a line that is not a destor: line"

# And back: store a finds the directory now holding store b's cache.
"$DESTOR_BIN" -c "$SCRATCH/a.config" read-file --trace /dev/stdin --json > "$SCRATCH/a.json" 2>"$SCRATCH/err-a2" <<EOF
0	f
EOF
[ "$(foreign_dropped "$SCRATCH/a.json")" -gt 0 ] || fail "store a did not count b's cache entries as dropped"
"$DESTOR_BIN" -c "$SCRATCH/a.config" read-file 0 f -o "$SCRATCH/out-a2" 2>/dev/null
cmp "$SCRATCH/data-a/f" "$SCRATCH/out-a2" || fail "store a read wrong bytes after b used the cache"

# restore through the shared cache, alternating stores.
"$DESTOR_BIN" -c "$SCRATCH/b.config" restore 0 "$SCRATCH/restored-b" >/dev/null 2>&1
cmp "$SCRATCH/data-b/f" "$SCRATCH/restored-b/f" || fail "restore in store b gave store a's bytes"
"$DESTOR_BIN" -c "$SCRATCH/a.config" restore 0 "$SCRATCH/restored-a" >/dev/null 2>&1
cmp "$SCRATCH/data-a/f" "$SCRATCH/restored-a/f" || fail "restore in store a gave store b's bytes"
note "two stores sharing one cache directory each read their own bytes"

# Delete store a and create it again (new content, same names) while the
# cache directory keeps the old incarnation's containers.
"$DESTOR_BIN" -c "$SCRATCH/a.config" read-file 0 f -o /dev/null 2>/dev/null
rm -rf "$SCRATCH/store-a"
pseudo_random 3145728 303 > "$SCRATCH/data-a/f"
"$DESTOR_BIN" -c "$SCRATCH/a.config" backup "$SCRATCH/data-a" >/dev/null
"$DESTOR_BIN" -c "$SCRATCH/a.config" read-file 0 f -o "$SCRATCH/out-a3" 2>"$SCRATCH/err-a3"
cmp "$SCRATCH/data-a/f" "$SCRATCH/out-a3" || fail "a re-created store was served its old incarnation's containers"
[ "$(grep -c '^destor: warning: .*another store' "$SCRATCH/err-a3")" -eq 1 ] || { cat "$SCRATCH/err-a3" >&2; fail "no single warning about the old incarnation's cache"; }
rm -rf "$SCRATCH/restored-a"
"$DESTOR_BIN" -c "$SCRATCH/a.config" restore 0 "$SCRATCH/restored-a" >/dev/null 2>&1
cmp "$SCRATCH/data-a/f" "$SCRATCH/restored-a/f" || fail "restore in the re-created store gave old bytes"
note "a re-created store never reads its old incarnation's cache"

# A store made before identities (store.meta version 1): still read, without
# the SSD cache (one warning); the next backup gives it an identity. Such a
# store can only be a pool store.
require_pool "a version-1 store.meta names a pool store"
"$PYTHON" - "$SCRATCH/store-b/store.meta" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
m = open(p, "rb").read()
assert len(m) == 48 and struct.unpack_from("<I", m, 8)[0] == 4 and struct.unpack_from("<I", m, 36)[0] == 0
assert struct.unpack_from("<I", m, 40)[0] == 1
v1 = bytearray(m[:20] + bytes(8))
struct.pack_into("<I", v1, 8, 1)
v1 += struct.pack("<I", zlib.crc32(bytes(v1)))
open(p, "wb").write(bytes(v1))
PY
"$DESTOR_BIN" -c "$SCRATCH/b.config" read-file 0 f -o "$SCRATCH/out-b1" 2>"$SCRATCH/err-b1"
cmp "$SCRATCH/data-b/f" "$SCRATCH/out-b1" || fail "a version-1 store read wrong bytes"
grep -q '^destor: warning: .*no identity' "$SCRATCH/err-b1" || { cat "$SCRATCH/err-b1" >&2; fail "no warning that the cache is not used"; }
"$DESTOR_BIN" -c "$SCRATCH/b.config" backup "$SCRATCH/data-b" >/dev/null
[ "$(stat -c %s "$SCRATCH/store-b/store.meta")" -eq 48 ] || fail "backup did not give the version-1 store an identity"
"$PYTHON" -c 'import struct, sys; m = open(sys.argv[1], "rb").read(); sys.exit(struct.unpack_from("<II", m, 36) != (0, 1))' \
    "$SCRATCH/store-b/store.meta" || fail "the identity given to a version-1 store changed its file digest from SHA-256"
"$DESTOR_BIN" -c "$SCRATCH/b.config" read-file 0 f --verify | cmp - "$SCRATCH/data-b/f" || fail "the upgraded store's job 0 does not verify"
"$DESTOR_BIN" -c "$SCRATCH/b.config" read-file 0 f -o "$SCRATCH/out-b2" 2>"$SCRATCH/err-b2"
cmp "$SCRATCH/data-b/f" "$SCRATCH/out-b2" || fail "the upgraded store read wrong bytes"
grep -q 'no identity' "$SCRATCH/err-b2" && fail "the upgraded store still has no identity"
note "a version-1 store is read without the cache until a backup gives it an identity"
