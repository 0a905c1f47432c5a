#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# missing_files.sh: a store whose containers.pool or a job's refcount file
# is gone is damaged: every command that needs it exits 3 with one line
# naming the file (not 1, as for a passing I/O hiccup), and a backup never
# starts over with an empty pool.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

mkdir -p "$SCRATCH/src"
pseudo_random 900000 41 > "$SCRATCH/src/a.bin"
echo two > "$SCRATCH/src/b.txt"
dst backup "$SCRATCH/src" >/dev/null
W="$SCRATCH/working"

mv "$W/jobs/00000000/refcount" "$SCRATCH/refcount"
for cmd in "backup $SCRATCH/src" "verify" "stat"; do
    # shellcheck disable=SC2086
    expect_status 3 dst $cmd
    cat "$SCRATCH/out" "$SCRATCH/err" | grep -q 'refcount' || fail "'$cmd' without refcount: $(cat "$SCRATCH/err")"
done
mv "$SCRATCH/refcount" "$W/jobs/00000000/refcount"

note "missing refcount: exit 3 naming the file; nothing recreated"
require_pool "what follows takes the pool file away"
mv "$W/containers.pool" "$SCRATCH/pool"
for cmd in "backup $SCRATCH/src" "verify" "read-file 0 a.bin" "restore 0 $SCRATCH/r" "stat"; do
    # shellcheck disable=SC2086
    expect_status 3 dst $cmd
    cat "$SCRATCH/out" "$SCRATCH/err" | grep -q 'containers.pool' || fail "'$cmd' without the pool: $(cat "$SCRATCH/err")"
done
[ ! -e "$W/containers.pool" ] || fail "a command created an empty pool in place of the lost one"
mv "$SCRATCH/pool" "$W/containers.pool"
expect_status 0 dst verify
dst read-file 0 a.bin | cmp - "$SCRATCH/src/a.bin" || fail "read after putting the files back"
note "missing refcount and containers.pool: exit 3 naming the file; nothing recreated"
