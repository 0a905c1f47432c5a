#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# index_damage.sh: the fingerprint index is derived data. verify reads it
# whole and holds it against the containers (exit 3 naming the index when a
# page fails its checksum or entries are missing); a backup that meets a
# damaged or lagging index rebuilds it from the containers, says so in one
# destor: line, and commits; `destor repair` rebuilds the index, the recipe
# indexes and the reference counts on request. Every job restores byte for
# byte afterwards.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
suppress_bdb_leaks

gen_data "$SCRATCH/data" --size 8M --versions 4 --seed 61
dst backup "$SCRATCH/data/v1" >/dev/null
W="$SCRATCH/working"
DB="$W/index/fingerprints.db"

# flip_page FILE: invert the first byte of the middle page (4 KiB pages).
flip_page() {
    "$PYTHON" - "$1" <<'PY'
import os, sys
path = sys.argv[1]
pages = os.path.getsize(path) // 4096
off = (pages // 2) * 4096
with open(path, "r+b") as f:
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5A]))
PY
}

# A flipped page: verify names the index; backup rebuilds it and commits.
flip_page "$DB"
expect_status 3 dst verify
grep -q 'PROBLEM.*fingerprint index is damaged' "$SCRATCH/out" || { cat "$SCRATCH/out" >&2; fail "verify did not name the index"; }
expect_status 0 dst backup "$SCRATCH/data/v2"
grep -q '^destor: note: fingerprint index .* is damaged .*rebuilding it' "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "no rebuild note"; }
[ "$(grep -c . "$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "the rebuild said more than one line"; }
expect_status 0 dst verify
note "flipped index page: verify exit 3, backup rebuilt the index and committed"

# The same damage, mended by repair.
flip_page "$DB"
expect_status 3 dst verify
expect_status 0 dst repair
grep -q 'fingerprint index rebuilt' "$SCRATCH/out" || fail "repair did not report the index"
expect_status 0 dst verify
note "flipped index page: repair rebuilt it"

# A lagging index (an old copy put back, no DIRTY mark): verify finds the
# missing entries, and a backup's spot check rebuilds it.
cp "$DB" "$SCRATCH/old.db"
dst backup "$SCRATCH/data/v3" >/dev/null
cp "$SCRATCH/old.db" "$DB"
expect_status 3 dst verify
grep -q 'missing from the fingerprint index' "$SCRATCH/out" || { cat "$SCRATCH/out" >&2; fail "verify missed the lost entries"; }
expect_status 0 dst backup "$SCRATCH/data/v3"
grep -q 'lacks the chunks of container' "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "backup did not notice the lagging index"; }
expect_status 0 dst verify
stored=$(dst stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["jobs"][-1]["stored_bytes"])')
[ "$stored" -eq 0 ] || fail "the backup after the rebuild stored $stored bytes of data already stored"
note "lagging index: verify exit 3, backup rebuilt it and deduplicated against it"

# Damaged reference counts and a lost recipe index: repair rebuilds both.
cp "$W/jobs/00000002/refcount" "$SCRATCH/refcount.orig"
"$PYTHON" -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(20); b=f.read(1); f.seek(20); f.write(bytes([b[0]^1]))' \
    "$W/jobs/00000002/refcount"
rm "$W/jobs/00000001/recipe_index.db"
expect_status 3 dst verify
expect_status 0 dst repair
cmp -s "$W/jobs/00000002/refcount" "$SCRATCH/refcount.orig" || fail "repair did not rebuild the reference counts exactly"
expect_status 0 dst verify --deep
note "damaged refcount and a missing recipe index: repair rebuilt both"

jobs=$(dst stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])')
set -- v1 v2 v3 v3
j=0
while [ "$j" -lt "$jobs" ]; do
    rm -rf "$SCRATCH/r"
    dst restore "$j" "$SCRATCH/r" >/dev/null
    same_tree "$SCRATCH/data/$1" "$SCRATCH/r"
    shift
    j=$((j + 1))
done
expect_status 2 "$DESTOR_BIN" -p"working-directory $SCRATCH/none" repair
note "all $jobs jobs restore byte for byte; repair without a store exits 2"
