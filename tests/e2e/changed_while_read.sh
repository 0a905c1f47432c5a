#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# changed_while_read.sh: a file that changes while backup reads it is
# stored as read, with a warning naming it and exit status 1, as tar does
# (issue 28: backup said nothing). The fault shim appends a byte to the file
# at its second read, so the change lands mid-read every time.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

SHIM="$TOP_BUILDDIR/tests/fault/fault_shim.so"
[ -f "$SHIM" ] || fail "no fault shim at $SHIM (make builds it before this test)"
mkdir -p "$SCRATCH/data"
pseudo_random 3000000 7 > "$SCRATCH/data/growing"
printf 'steady\n' > "$SCRATCH/data/steady"

# ASan wants to be first in the library list; the shim only interposes libc.
ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" LD_PRELOAD="$SHIM" FAULT_CALL=read FAULT_AT=2 \
    FAULT_PATH=/growing FAULT_ACTION=grow expect_status 1 dst backup "$SCRATCH/data"
grep -q "growing changed as it was read" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "no warning names the changed file"; }
grep -q "1 files changed while they were read and are in job 0" "$SCRATCH/err" || fail "no closing line"
grep -q steady "$SCRATCH/err" && fail "a file that did not change was reported"
# The job is committed and holds what was read.
dst verify --deep > /dev/null
dst read-file 0 steady | cmp -s - "$SCRATCH/data/steady" || fail "steady file not stored"
[ "$(dst read-file 0 growing | wc -c)" -ge 3000000 ] || fail "the changed file was not stored as read"

# A tree that does not change backs up with exit 0 and no warning.
expect_status 0 dst backup "$SCRATCH/data"
[ ! -s "$SCRATCH/err" ] || { cat "$SCRATCH/err"; fail "an unchanged tree got warnings"; }
note "a file that changes during backup is stored as read, warned about, exit 1"
