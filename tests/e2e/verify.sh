#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# verify.sh: destor verify passes on a sound store, and finds (exit 3, with
# job, path or container named) a flipped byte in a container, in
# job_meta_data, in a manifest and in the reference counts, without ever
# changing a stored file; repair reports such a container that live jobs
# name as lost (exit 3).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 21
dst backup "$SCRATCH/data/v1" >/dev/null
dst backup "$SCRATCH/data/v2" >/dev/null
W="$SCRATCH/working"
expect_status 0 dst verify --deep
grep -q '0 problems' "$SCRATCH/out" || fail "sound store reported problems"
expect_status 0 dst verify 1 --json
[ "$(json_field "$SCRATCH/out" problem_count)" -eq 0 ] || fail "json problem count"
expect_status 2 dst verify 7

snapshot() { (cd "$W" && find . -type f ! -name LOCK -exec sha256sum {} + | sort) > "$1"; }

# flip FILE OFFSET: invert one byte in place.
flip() {
    "$PYTHON" - "$1" "$2" <<'PY'
import sys
path, off = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5A]))
PY
}

# corrupt FILE OFFSET PATTERN: damage a copy-protected file, expect verify to
# fail naming PATTERN, leave everything else untouched, then repair.
corrupt() {
    cp "$1" "$SCRATCH/orig"
    flip "$1" "$2"
    snapshot "$SCRATCH/before"
    expect_status 3 dst verify --deep
    grep -q "$3" "$SCRATCH/out" || { cat "$SCRATCH/out" >&2; fail "verify did not name '$3' for $1 at $2"; }
    snapshot "$SCRATCH/after"
    cmp -s "$SCRATCH/before" "$SCRATCH/after" || fail "verify changed the store"
    cp "$SCRATCH/orig" "$1"
    note "flip in $(basename "$1") at $2 found: $(grep -m1 PROBLEM "$SCRATCH/out")"
}

set -- $(container_at "$W" 0 2097152)
corrupt "$1" $(($2 + 5000)) "container 0"
set -- $(container_at "$W" 1 2097152)
corrupt "$1" "$2" "container 1"
corrupt "$W/jobs/00000001/job_meta_data" 200 "job 1"
corrupt "$W/jobs/00000000/job_meta_data" 5 "job 0"
corrupt "$W/jobs/00000001/manifest" 30 "job 1"
corrupt "$W/jobs/00000001/refcount" 20 "reference counts"
expect_status 0 dst verify --deep

# repair rebuilds what is derived, never the containers: a container a
# live job names that does not read back is lost data, exit 3 naming it
# (repair said nothing but a note and exited 0); sound again, exit 0.
set -- $(container_at "$W" 0 2097152)
cp "$1" "$SCRATCH/orig"
flip "$1" $(($2 + 5000))
expect_status 3 dst repair
grep -q "live jobs name do not read back (the first: 0)" "$SCRATCH/err" ||
    fail "repair did not name the lost container: $(cat "$SCRATCH/err")"
cp "$SCRATCH/orig" "$1"
expect_status 0 dst repair
expect_status 0 dst verify --deep
note "repair of a store whose container 0 does not read back: exit 3, named; once sound, exit 0"
