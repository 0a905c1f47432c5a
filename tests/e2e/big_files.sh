#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# big_files.sh: a 120 MiB file and a sparse file over 4 GiB (with data past
# the 4 GiB mark) survive backup, restore and read-file --verify.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

SRC="$SCRATCH/src"
mkdir -p "$SRC"
pseudo_random 125829120 3 > "$SRC/big.bin"
# 4 GiB + 3 MiB, zeros except three random islands; past 2^32 too.
truncate -s $((4 * 1024 * 1024 * 1024 + 3 * 1024 * 1024)) "$SRC/huge.img"
pseudo_random 1048576 4 | dd of="$SRC/huge.img" bs=1M seek=0 conv=notrunc status=none
pseudo_random 1048576 5 | dd of="$SRC/huge.img" bs=1M seek=2048 conv=notrunc status=none
pseudo_random 1048576 6 | dd of="$SRC/huge.img" bs=1M seek=4097 conv=notrunc status=none

dst backup "$SRC" > "$SCRATCH/backup.txt"
cat "$SCRATCH/backup.txt"
dst restore 0 "$SCRATCH/restored" >/dev/null
cmp "$SRC/big.bin" "$SCRATCH/restored/big.bin" || fail "big.bin differs"
cmp "$SRC/huge.img" "$SCRATCH/restored/huge.img" || fail "huge.img differs"
rm -f "$SCRATCH/restored/huge.img"
dst read-file 0 huge.img --verify | cmp - "$SRC/huge.img" || fail "read-file of huge.img differs"
note "120 MiB and 4 GiB+ files restored and read back identical"
