#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# verify_during_backup.sh: verify beside a committing backup checks one
# consistent snapshot of committed jobs and never reports a false problem.
# Backups commit in a loop while verify runs in another loop (bounded: a
# fixed number of backups); every verify run must pass.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --size 6M --versions 2 --seed 51
dst backup "$SCRATCH/data/v1" >/dev/null

BACKUPS=12
(
    i=0
    while [ "$i" -lt "$BACKUPS" ]; do
        dst backup "$SCRATCH/data/v$((i % 2 + 1))" >/dev/null || { echo "backup $i failed" >&2; exit 1; }
        i=$((i + 1))
    done
) &
writer=$!

runs=0
alarms=0
while kill -0 "$writer" 2>/dev/null; do
    set +e
    dst verify >"$SCRATCH/vout" 2>"$SCRATCH/verr"
    rc=$?
    set -e
    runs=$((runs + 1))
    if [ "$rc" -ne 0 ]; then
        alarms=$((alarms + 1))
        cat "$SCRATCH/vout" "$SCRATCH/verr" | head -5 >&2
    fi
done
wait "$writer" || fail "the backup loop failed"
[ "$alarms" -eq 0 ] || fail "$alarms of $runs verify runs beside committing backups reported problems"
[ "$runs" -ge 3 ] || fail "only $runs verify runs overlapped the backups"
expect_status 0 dst verify
note "$runs verify runs beside $BACKUPS committing backups: no false alarm"
