#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# file_digest.sh: the whole-file digest (issue 27). A new store takes
# XXH3-128 and records it in store.meta (version 4, offset 40); `file-digest
# sha256` makes a store whose list --json digests are the files' sha256sum;
# list --json and stat --json name the algorithm. In both formats, and in a
# store of the release before (tests/fixtures/store-e803a33, SHA-256,
# store.meta version 2), a record whose digest no longer matches its bytes
# (its CRC made right again, so only the digest tells) is caught by verify
# --deep, read-file and restore (exit 3, no output left; unasked in an
# xxh3-128 store, with --verify in a sha256 one) and passed by plain verify
# and a byte range, and a flipped container byte is caught by verify
# --deep. A record whose chunk list names another file's chunk (its size
# and CRC made right: a forged record) is caught the same way by read-file
# (also of a range that is the whole file) and restore. A
# config asking a store for the other digest is refused by backup (exit 2,
# the store untouched); an unknown name in the config is exit 2, an
# unknown digest in store.meta exit 3.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 1 --seed 27
printf 'container-size 128K\n' >> "$CONFIG"
SHA="$SCRATCH/sha.config"
sed "s#/working\"#/w-sha\"#" "$CONFIG" > "$SHA"
printf 'file-digest sha256\n' >> "$SHA"
dst backup "$SCRATCH/data/v1" >/dev/null
"$DESTOR_BIN" -c "$SHA" backup "$SCRATCH/data/v1" >/dev/null

# meta_digest W: store.meta's version and file digest field.
meta_digest() {
    "$PYTHON" -c 'import struct, sys; m = open(sys.argv[1], "rb").read(); print(*(struct.unpack_from("<I", m, at)[0] for at in (8, 40)))' \
        "$1/store.meta"
}
[ "$(meta_digest "$SCRATCH/working")" = "4 2" ] || fail "a new store's store.meta: $(meta_digest "$SCRATCH/working"), not version 4 with XXH3-128"
[ "$(meta_digest "$SCRATCH/w-sha")" = "4 1" ] || fail "a file-digest sha256 store's store.meta: $(meta_digest "$SCRATCH/w-sha")"
[ "$(dst stat --json | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["file_digest"])')" = xxh3-128 ] ||
    fail "stat --json does not name xxh3-128"

# check_listing CONFIG ALGORITHM ROOT: every file of job 0 has its digest
# named ALGORITHM; for sha256 it is the file's sha256sum, for xxh3-128 32 hex
# digits, and files of other bytes have other digests.
check_listing() {
    "$DESTOR_BIN" -c "$1" list 0 --json | "$PYTHON" -c '
import hashlib, json, os, sys
alg, root = sys.argv[1], sys.argv[2]
files = [e for e in json.load(sys.stdin)["entries"] if e["type"] == "file"]
assert files, "no files listed"
seen = {}
for e in files:
    assert e["digest_algorithm"] == alg, e
    data = open(os.path.join(root, e["path"]), "rb").read()
    if alg == "sha256":
        assert e["digest"] == hashlib.sha256(data).hexdigest(), e
    else:
        assert len(e["digest"]) == 32 and int(e["digest"], 16) >= 0, e
    assert seen.setdefault(e["digest"], data) == data, ("two contents, one digest", e)
' "$2" "$3" || fail "list --json digests of the $2 store"
}
check_listing "$CONFIG" xxh3-128 "$SCRATCH/data/v1"
check_listing "$SHA" sha256 "$SCRATCH/data/v1"
note "new stores: store.meta version 4 names the digest; list --json gives each file's, named"

# forge_digest W JOB: invert a byte of the digest of the first non-empty
# file record of JOB in the store at W and make its CRC right again; print
# its path.
forge_digest() {
    "$PYTHON" - "$1/jobs/$(printf %08d "$2")/job_meta_data" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
at = 32
while at < len(d):
    length = struct.unpack_from("<I", d, at + 4)[0]
    kind, size = d[at + 8], struct.unpack_from("<Q", d, at + 32)[0]
    if kind == 1 and size > 0:
        d[at + 48] ^= 0x5A
        struct.pack_into("<I", d, at + length - 4, zlib.crc32(bytes(d[at:at + length - 4])))
        plen = struct.unpack_from("<I", d, at + 28)[0]
        sys.stdout.write(d[at + 88:at + 88 + plen].decode())
        open(p, "wb").write(d)
        sys.exit(0)
    at += length
sys.exit("no file record")
PY
}

# caught CONFIG W JOB ALGORITHM: a forged digest is caught by the checks
# that read it, and only by those; then a flipped byte of the job's first
# container by verify --deep.
caught() {
    cp -R "$2" "$SCRATCH/saved"
    path=$(forge_digest "$2" "$3")
    "$DESTOR_BIN" -c "$1" verify > /dev/null || fail "$4: plain verify failed over a forged digest only"
    "$DESTOR_BIN" -c "$1" read-file "$3" "$path" --offset 1 --length 1 > /dev/null ||
        fail "$4: a byte range failed over a forged digest (it cannot check it)"
    v=; [ "$4" = sha256 ] && v=--verify # checked unasked in an xxh3-128 store only
    expect_status 3 "$DESTOR_BIN" -c "$1" read-file "$3" "$path" -o "$SCRATCH/forged.out" $v
    grep -q "does not match its stored $4" "$SCRATCH/err" || fail "$4: read-file said: $(cat "$SCRATCH/err")"
    [ ! -e "$SCRATCH/forged.out" ] || fail "$4: read-file left the output of a file that does not match its digest"
    expect_status 3 "$DESTOR_BIN" -c "$1" restore "$3" "$SCRATCH/forged.r" $v
    [ ! -e "$SCRATCH/forged.r/$path" ] || fail "$4: restore left a file that does not match its digest"
    rm -rf "$SCRATCH/forged.r"
    expect_status 3 "$DESTOR_BIN" -c "$1" read-file "$3" "$path" --verify
    grep -q "does not match its stored $4" "$SCRATCH/err" || fail "$4: read-file --verify said: $(cat "$SCRATCH/err")"
    expect_status 3 "$DESTOR_BIN" -c "$1" verify --deep
    grep -q "does not match its $4" "$SCRATCH/out" || fail "$4: verify --deep said: $(cat "$SCRATCH/out")"
    rm -rf "$2"
    mv "$SCRATCH/saved" "$2"
    "$DESTOR_BIN" -c "$1" verify --deep > /dev/null || fail "$4: the store put back does not verify"
    flip_container_byte "$2" 0 131072 70000
    expect_status 3 "$DESTOR_BIN" -c "$1" verify --deep
}

# forge_chunks W JOB: give the first one-chunk file record of JOB in the
# store at W the chunk (and size) of another one-chunk file of other bytes,
# its digest kept and its CRC made right; print its path.
forge_chunks() {
    "$PYTHON" - "$1/jobs/$(printf %08d "$2")/job_meta_data" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
at, ones = 32, []
while at < len(d):
    length = struct.unpack_from("<I", d, at + 4)[0]
    if d[at + 8] == 1 and struct.unpack_from("<Q", d, at + 40)[0] == 1:
        ones.append((at, length))
    at += length
a, la = ones[0]
b, lb = next(o for o in ones[1:] if d[o[0] + 48:o[0] + 80] != d[a + 48:a + 80])
d[a + la - 48:a + la - 4] = d[b + lb - 48:b + lb - 4]  # the one chunk reference
d[a + 32:a + 40] = d[b + 32:b + 40]  # the size
struct.pack_into("<I", d, a + la - 4, zlib.crc32(bytes(d[a:a + la - 4])))
plen = struct.unpack_from("<I", d, a + 28)[0]
sys.stdout.write(d[a + 88:a + 88 + plen].decode())
open(p, "wb").write(d)
PY
}

# forged CONFIG W JOB ALGORITHM: a forged chunk list is caught, without
# --verify, by every whole-file read (exit 3, nothing left as if good); a
# byte range cannot check a whole file's digest, and serves what the
# record names.
forged() {
    cp -R "$2" "$SCRATCH/saved"
    path=$(forge_chunks "$2" "$3")
    v=; [ "$4" = sha256 ] && v=--verify
    expect_status 3 "$DESTOR_BIN" -c "$1" read-file "$3" "$path" -o "$SCRATCH/forged.out" $v
    grep -q "does not match its stored $4" "$SCRATCH/err" || fail "$4: forged chunks, read-file said: $(cat "$SCRATCH/err")"
    [ ! -e "$SCRATCH/forged.out" ] || fail "$4: read-file left the output of a forged record"
    [ "$4" = sha256 ] || expect_status 3 "$DESTOR_BIN" -c "$1" read-file "$3" "$path" --offset 0
    expect_status 3 "$DESTOR_BIN" -c "$1" restore "$3" "$SCRATCH/forged.r" $v
    grep -q "does not match its stored $4" "$SCRATCH/err" || fail "$4: forged chunks, restore said: $(cat "$SCRATCH/err")"
    [ ! -e "$SCRATCH/forged.r/$path" ] || fail "$4: restore left a forged record's file"
    rm -rf "$SCRATCH/forged.r"
    "$DESTOR_BIN" -c "$1" read-file "$3" "$path" --offset 0 --length 1 > /dev/null ||
        fail "$4: a byte range of a forged record failed (it cannot check the digest)"
    rm -rf "$2"
    mv "$SCRATCH/saved" "$2"
}
forged "$CONFIG" "$SCRATCH/working" 0 xxh3-128
forged "$SHA" "$SCRATCH/w-sha" 0 sha256
note "xxh3-128 and sha256 stores: a record naming another file's chunk is caught by read-file and restore (exit 3)"
caught "$CONFIG" "$SCRATCH/working" 0 xxh3-128
caught "$SHA" "$SCRATCH/w-sha" 0 sha256
note "xxh3-128 and sha256 stores: a forged digest is caught by verify --deep, read-file and restore, a flipped byte by verify --deep"

# The release before: SHA-256 in a version-2 store.meta, listed by its
# sums, and its digest checked the same way.
OLD="$SCRATCH/old.config"
cp -R "$TOP_SRCDIR/tests/fixtures/store-e803a33/store" "$SCRATCH/old"
chmod -R u+w "$SCRATCH/old"
printf 'working-directory "%s/old"\ncontainer-size 128K\n' "$SCRATCH" > "$OLD"
"$DESTOR_BIN" -c "$OLD" list 1 --json | "$PYTHON" -c '
import json, sys
sums = {}
for line in open(sys.argv[1]):
    s, p = line.split(None, 1)
    sums[p.strip()[2:]] = s
for e in json.load(sys.stdin)["entries"]:
    if e["type"] == "file":
        assert e["digest_algorithm"] == "sha256" and e["digest"] == sums[e["path"]], e
' "$TOP_SRCDIR/tests/fixtures/store-e803a33/sums" || fail "the old store's list --json digests are not its files' sha256sum"
[ "$(meta_digest "$SCRATCH/old" | cut -d' ' -f1)" = 2 ] || fail "the fixture is not a version-2 store"
( DESTOR_TEST_CONTAINER_STORE=pool; caught "$OLD" "$SCRATCH/old" 1 sha256 )
note "a version-2 store (the release before): sha256 listed, forged digest and flipped byte caught"

# The config against the store.
cp "$SCRATCH/working/store.meta" "$SCRATCH/meta.before"
expect_status 2 "$DESTOR_BIN" -c "$CONFIG" -p"file-digest sha256" backup "$SCRATCH/data/v1"
grep -q "created with file-digest xxh3-128; the config asks for sha256" "$SCRATCH/err" || fail "mismatch said: $(cat "$SCRATCH/err")"
expect_status 2 "$DESTOR_BIN" -c "$OLD" -p"file-digest xxh3" backup "$SCRATCH/data/v1"
cmp -s "$SCRATCH/working/store.meta" "$SCRATCH/meta.before" || fail "a refused backup changed store.meta"
[ ! -d "$SCRATCH/working/jobs/00000001" ] || fail "a refused backup made a job"
expect_status 2 dst -p"file-digest md5" stat
grep -q "expected xxh3 or sha256" "$SCRATCH/err" || fail "bad name said: $(cat "$SCRATCH/err")"
"$PYTHON" - "$SCRATCH/working/store.meta" <<'PY'
import struct, sys, zlib
m = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", m, 40, 7)
struct.pack_into("<I", m, 44, zlib.crc32(bytes(m[:44])))
open(sys.argv[1], "wb").write(m)
PY
expect_status 3 dst list 0
grep -q "unknown file digest (7)" "$SCRATCH/err" || fail "unknown digest said: $(cat "$SCRATCH/err")"
note "a config asking for the other digest is refused (exit 2), a bad name exit 2, an unknown stored digest exit 3"

# A file over many containers is read ahead on two threads (read-file,
# READ_PREFETCH_MIN): its bytes and digest check out, a forged digest is
# still caught, and a flipped byte in one of its containers is an
# integrity error (exit 3) at its turn, never other bytes.
BIG="$SCRATCH/big.config"
sed "s#/working\"#/w-big\"#" "$CONFIG" > "$BIG"
mkdir -p "$SCRATCH/bigdata"
pseudo_random 3000000 27 > "$SCRATCH/bigdata/big.bin"
"$DESTOR_BIN" -c "$BIG" backup "$SCRATCH/bigdata" >/dev/null
"$DESTOR_BIN" -c "$BIG" read-file 0 big.bin --verify | cmp - "$SCRATCH/bigdata/big.bin" ||
    fail "a file read ahead gives other bytes"
cp -R "$SCRATCH/w-big" "$SCRATCH/w-big.saved"
[ "$(forge_digest "$SCRATCH/w-big" 0)" = big.bin ] || fail "forged another record than big.bin's"
expect_status 3 "$DESTOR_BIN" -c "$BIG" read-file 0 big.bin --verify
grep -q "does not match its stored xxh3-128" "$SCRATCH/err" || fail "read ahead, forged digest: $(cat "$SCRATCH/err")"
rm -rf "$SCRATCH/w-big"
mv "$SCRATCH/w-big.saved" "$SCRATCH/w-big"
flip_container_byte "$SCRATCH/w-big" 12 131072 5000
expect_status 3 "$DESTOR_BIN" -c "$BIG" read-file 0 big.bin -o "$SCRATCH/big.out"
grep -q "container 12" "$SCRATCH/err" || fail "read ahead, damaged container: $(cat "$SCRATCH/err")"
[ ! -e "$SCRATCH/big.out" ] || fail "a read that failed left its output"
note "a file read ahead: its bytes verify, a forged digest and a damaged container are exit 3"
