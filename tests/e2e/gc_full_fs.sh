#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gc_full_fs.sh: gc on a file system that is really full (a small tmpfs,
# filled to the last byte by a file beside the store). gc frees the
# containers that need no copy first, in the room their freeing makes:
#   - when that room holds the copies, the first gc does all the work;
#   - when it does not, the copy fails with one destor: line saying what
#     to do, its partial copies are gone (the space stays given back), a gc
#     with gc-live-threshold 0 succeeds on the still full disk, and once
#     there is room the next gc finishes.
# After each step verify --deep passes and the live job restores byte for
# byte. Skipped (77) when a tmpfs cannot be mounted (not root, a container
# without the right).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

FS="$SCRATCH/fs"
mkdir -p "$FS"
mount -t tmpfs -o size=8m tmpfs "$FS" 2>/dev/null || { echo "# SKIP: cannot mount a tmpfs (mount -t tmpfs needs root)"; exit 77; }
trap 'rc=$?; umount "$FS" 2>/dev/null || umount -l "$FS"; kill_sample_note; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT

printf 'container-size 128K\n' >> "$CONFIG"
# a: live and mortal files alternating (each container about 40% live);
# b: the live ones (job 1, the one kept); c: unique mortal data, whose
# containers are left with no live chunk at all
mkdir -p "$SCRATCH/a" "$SCRATCH/b"
i=0
while [ "$i" -lt 16 ]; do
    pseudo_random 50000 $((100 + i)) > "$SCRATCH/a/f$i.live"
    pseudo_random 70000 $((200 + i)) > "$SCRATCH/a/f$i.mortal"
    cp "$SCRATCH/a/f$i.live" "$SCRATCH/b/"
    i=$((i + 1))
done
on() { W=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@"; }
avail() { df -k "$FS" | awk 'NR == 2 { print $4 }'; }

# sound W: verify --deep passes and job 1 restores as b.
sound() {
    on "$1" verify --deep >/dev/null 2>"$SCRATCH/verr" || { cat "$SCRATCH/verr" >&2; fail "verify: $2"; }
    rm -rf "$SCRATCH/r"
    on "$1" restore 1 "$SCRATCH/r" >/dev/null || fail "restore: $2"
    same_tree "$SCRATCH/b" "$SCRATCH/r"
}

# fill: the tmpfs full to the last byte.
fill() {
    dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null || true
    [ "$(avail)" -eq 0 ] || fail "the tmpfs is not full ($(avail) KiB free)"
}

# store DEAD_FILES: a store on the tmpfs, jobs 0 (a) and 2 (DEAD_FILES
# files of unique data) deleted, job 1 (b) live.
store() {
    rm -rf "$FS/w" "$FS/filler" "$SCRATCH/c"
    mkdir -p "$SCRATCH/c"
    i=0
    while [ "$i" -lt "$1" ]; do
        pseudo_random 120000 $((300 + i)) > "$SCRATCH/c/g$i"
        i=$((i + 1))
    done
    for t in a b c; do on "$FS/w" backup "$SCRATCH/$t" >/dev/null; done
    on "$FS/w" delete 0 2 >/dev/null
}

# 1. The empty containers give the copies their room: one gc does it all.
store 10
fill
on "$FS/w" gc --json > "$SCRATCH/gc.json" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "gc on a full disk with room to free"; }
[ "$(json_field "$SCRATCH/gc.json" containers_copied)" -gt 0 ] || fail "gc copied nothing (the test lost its sparse containers)"
[ "$(avail)" -gt 0 ] || fail "gc gave no space back"
sound "$FS/w" "after gc on a full disk"
on "$FS/w" gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "the first gc left work"

# 2. They do not: the copy fails, and says what to do.
store 2
fill
set +e
on "$FS/w" gc >/dev/null 2>"$SCRATCH/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "gc copying on a full disk exited $rc"; }
[ "$(grep -c '' "$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "more than one line on stderr"; }
grep -q '^destor: gc stopped copying .*No space left on device; its partial copies removed; make room on the file system and run gc again, or run gc with gc-live-threshold 0' "$SCRATCH/err" ||
    fail "not the expected error: $(cat "$SCRATCH/err")"
freed=$(avail)
[ "$freed" -ge 256 ] || fail "the failed gc gave back only $freed KiB (its copies kept?)"
sound "$FS/w" "after the failed copy"
on "$FS/w" -p"gc-live-threshold 0" gc >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "gc-live-threshold 0 on the full disk"; }
[ "$(avail)" -ge "$((freed - 8))" ] || fail "gc-live-threshold 0 took the room back"
sound "$FS/w" "after gc-live-threshold 0"
rm "$FS/filler"
on "$FS/w" gc --json > "$SCRATCH/gc.json" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "gc with room again"; }
[ "$(json_field "$SCRATCH/gc.json" containers_copied)" -gt 0 ] || fail "gc with room copied nothing"
sound "$FS/w" "after gc with room"
on "$FS/w" gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "the gc with room left work"
[ "$(json_field "$SCRATCH/gc.json" containers_dead)" -eq 0 ] || fail "dead containers left"
note "a full tmpfs ($(store_kind) store): gc freed the empty containers first; copied in their room, or stopped saying what to do and a later gc finished"
