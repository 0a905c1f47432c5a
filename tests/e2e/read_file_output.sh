#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# read_file_output.sh: read-file -o OUT writes OUT through a new file and
# a rename, so a failed read leaves OUT as it was; but an OUT that is not a
# regular file (a FIFO here, a device such as /dev/null as root) is written
# into, never replaced by a renamed file (it once was: as root,
# `read-file -o /dev/null` turned /dev/null into a regular file).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

mkdir -p "$SCRATCH/data"
pseudo_random 300000 4 > "$SCRATCH/data/f"
dst backup "$SCRATCH/data" >/dev/null

mkfifo "$SCRATCH/fifo"
cat "$SCRATCH/fifo" > "$SCRATCH/from-fifo" &
reader=$!
dst read-file 0 f -o "$SCRATCH/fifo"
if [ ! -p "$SCRATCH/fifo" ]; then
    kill $reader 2>/dev/null || true
    fail "read-file -o replaced a FIFO with a regular file"
fi
wait $reader
cmp "$SCRATCH/data/f" "$SCRATCH/from-fifo" || fail "read-file -o FIFO wrote other bytes"
[ -z "$(find "$SCRATCH" -maxdepth 1 -name ".destor-*")" ] || fail "read-file -o FIFO left a temporary file"

# A regular OUT is still replaced whole, and kept when the read fails.
printf 'old\n' > "$SCRATCH/dest"
expect_status 2 dst read-file 0 no-such-file -o "$SCRATCH/dest"
[ "$(cat "$SCRATCH/dest")" = old ] || fail "a failed read-file -o changed OUT"
dst read-file 0 f -o "$SCRATCH/dest"
cmp "$SCRATCH/data/f" "$SCRATCH/dest" || fail "read-file -o wrote other bytes"
note "read-file -o writes into a FIFO and replaces a regular file atomically"
