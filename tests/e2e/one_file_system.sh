#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# one_file_system.sh: backup --one-file-system keeps other file systems'
# mount points as empty directories and reads nothing below them, so a tree
# holding a /proc mount (size-0 files with endless content) finishes.
# Mounting needs a user and mount namespace (unshare -rm); without one the
# test is skipped (status 77).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

unshare -rmpf true 2>/dev/null || { note "no user/mount namespaces here: skipped"; exit 77; }
SRC="$SCRATCH/src"
mkdir -p "$SRC/tmpfs" "$SRC/proc" "$SRC/sub"
echo top > "$SRC/a.txt"
echo below > "$SRC/sub/b.txt"

export DESTOR_BIN CONFIG SRC
unshare -rmpf --mount-proc sh -ec '
    mount -t tmpfs none "$SRC/tmpfs"
    echo elsewhere > "$SRC/tmpfs/other.txt"
    "$DESTOR_BIN" -c "$CONFIG" backup "$SRC" > /dev/null
    mount -t proc proc "$SRC/proc"
    timeout 60 "$DESTOR_BIN" -c "$CONFIG" backup --one-file-system "$SRC" > /dev/null
' || fail "backup in the namespace failed"

dst list 0 > "$SCRATCH/job0"
grep -q 'tmpfs/other.txt' "$SCRATCH/job0" || fail "without --one-file-system the tmpfs file must be stored"
dst list 1 > "$SCRATCH/job1"
cut -f3 "$SCRATCH/job1" | sort > "$SCRATCH/paths1"
printf 'a.txt\nproc\nsub\nsub/b.txt\ntmpfs\n' | cmp -s - "$SCRATCH/paths1" || { cat "$SCRATCH/job1"; fail "--one-file-system entries"; }
grep -q "^d	" "$SCRATCH/job1" || fail "mount points must be kept as directories"
dst restore 1 "$SCRATCH/r" > /dev/null
[ -d "$SCRATCH/r/tmpfs" ] && [ -z "$(ls -A "$SCRATCH/r/tmpfs")" ] || fail "mount point not restored empty"
note "--one-file-system stayed on the root's file system"
