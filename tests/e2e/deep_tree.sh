#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# deep_tree.sh: a tree deeper than PATH_MAX (25 directories of 200-byte
# names, about 5,000 bytes of path) backs up with nothing skipped, restores
# byte for byte and reads back with read-file; an entry that cannot be read
# makes backup exit 1 after committing the rest (never a silent exit 0).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

name=$(printf 'd%0199d' 0)
SRC="$SCRATCH/src"
mkdir -p "$SRC"

(
    cd "$SRC"
    i=0
    while [ $i -lt 25 ]; do mkdir "$name$i" && cd -P "$name$i"; i=$((i + 1)); done
    pseudo_random 300000 7 > bottom.bin
    ln -s bottom.bin link
)
rel=""
i=0
while [ $i -lt 25 ]; do rel="$rel$name$i/"; i=$((i + 1)); done
[ ${#rel} -gt 4096 ] || fail "test tree is not deeper than PATH_MAX"

expect_status 0 dst backup "$SRC"
grep -q '1 files, 25 directories, 1 symlinks, 0 skipped' "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "deep entries not all stored"; }
expect_status 0 dst restore 0 "$SCRATCH/restored"

# Compare the bottom file by walking down with relative cd (full paths are
# too long for cmp to open).
deep_cat() { (cd "$1" && for d in $(echo "$rel" | tr '/' ' '); do cd -P "$d"; done && cat "$2"); }
deep_cat "$SRC" bottom.bin > "$SCRATCH/want"
deep_cat "$SCRATCH/restored" bottom.bin > "$SCRATCH/got"
cmp "$SCRATCH/want" "$SCRATCH/got" || fail "deep file restored differently"
[ "$(deep_cat "$SCRATCH/restored" link | wc -c)" -eq 300000 ] || fail "deep symlink not restored"
expect_status 0 dst read-file 0 "${rel}bottom.bin" -o "$SCRATCH/read" --verify
cmp "$SCRATCH/want" "$SCRATCH/read" || fail "read-file of the deep file differs"

# A FIFO is not backed up: warned, counted, and the backup exits 1 after
# committing everything else (job 1 holds the readable file).
mkdir -p "$SCRATCH/odd"
echo kept > "$SCRATCH/odd/a.txt"
mkfifo "$SCRATCH/odd/pipe"
expect_status 1 dst backup "$SCRATCH/odd"
grep -q '1 entries could not be read and are not in job 1' "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "skip not reported"; }
grep -q 'pipe: not a regular file' "$SCRATCH/err" || fail "skipped entry not named"
[ "$(dst read-file 1 a.txt)" = kept ] || fail "readable file not committed"
note "deep tree stored and restored; unreadable entries give exit 1"
