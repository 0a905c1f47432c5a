#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# planted_subdir.sh: a symlink planted at a files store's subdirectory of
# containers (containers/000000, here to a copy outside the store) is never
# gone through. Before, container_files.c guarded only the file's own name
# (O_NOFOLLOW on "000000/00000005"): with a second subdirectory in the
# store, gc freed a deleted job's containers by unlinking the files of the
# directory outside (197 of its 256 files), and restore and read-file read
# containers from it (exit 0). Now every writer refuses the store with one
# destor: line naming the link (exit 1), the readers stop on it (exit 3,
# verify a PROBLEM line), and the directory outside keeps every file.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-store files\ncontainer-size 128K\n' >> "$CONFIG"
mkdir -p "$SCRATCH/a" "$SCRATCH/b"
# 300 containers of 128K: the store has subdirectories 000000 and 000001
pseudo_random 18000000 1 > "$SCRATCH/a/f"
pseudo_random 18000000 2 > "$SCRATCH/b/f"
dst backup "$SCRATCH/a" >/dev/null
dst backup "$SCRATCH/b" >/dev/null
dst delete 0 >/dev/null
W="$SCRATCH/working"
[ -d "$W/containers/000001" ] || fail "the store has one subdirectory of containers: $(ls "$W/containers")"
cp -a "$W" "$SCRATCH/state"
OUT="$SCRATCH/outside"
sums() { (cd "$OUT" && find . -type f -exec md5sum {} + | sort); }

# plant: the state again, containers/000000 moved outside, a link to it there
plant() {
    rm -rf "$W" "$OUT" "$SCRATCH/r"
    cp -a "$SCRATCH/state" "$W"
    mkdir "$OUT"
    mv "$W/containers/000000" "$OUT/"
    ln -s "$OUT/000000" "$W/containers/000000"
    sums > "$SCRATCH/outside.sums"
}
runs=0
for cmd in gc "delete 1" repair "backup $SCRATCH/a"; do
    plant
    expect_status 1 dst $cmd
    [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] &&
        grep -q "^destor: container directory $W/containers/000000: it is a symbolic link, which destor never writes through" \
            "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$cmd: not one destor: line naming the link"; }
    sums | cmp -s - "$SCRATCH/outside.sums" || fail "$cmd changed the directory outside: $(ls "$OUT/000000" | wc -l) files"
    runs=$((runs + 1))
done
for cmd in "restore 1 $SCRATCH/r" "read-file 1 f" verify; do
    plant
    expect_status 3 dst $cmd
    grep -q "container [0-9]*'s directory $W/containers/000000 is a symbolic link, not a directory" \
        "$SCRATCH/err" "$SCRATCH/out" || { cat "$SCRATCH/err" >&2; fail "$cmd: no error naming the link"; }
    sums | cmp -s - "$SCRATCH/outside.sums" || fail "$cmd changed the directory outside"
    runs=$((runs + 1))
done
note "$runs commands with a symlink at containers/000000: writers refused, readers stopped, nothing outside changed"
