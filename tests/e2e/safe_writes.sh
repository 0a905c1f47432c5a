#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# safe_writes.sh: every file destor writes for a user is made under a new,
# unique name beside its target and renamed into place only when complete
# (issue 28). Each block below failed on the code before that change:
#  - concurrent read-file -o OUT: one shared temporary name let one run exit
#    0 with --verify while OUT held another file's bytes or a mix;
#  - a symlink planted at the old fixed temporary name (OUT.destor-tmp) had
#    its target truncated by read-file, trace compile and trace export;
#  - read-file -o into the working directory, or restore into a directory
#    holding it, replaced or emptied the store's own files;
#  - restore wrote through a hard link to a file outside the target (bytes
#    and mode), and emptied an existing file before a read that then failed.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

W="$SCRATCH/working"
mkdir -p "$SCRATCH/data"
for i in 1 2 3; do pseudo_random 4000000 "$i" > "$SCRATCH/data/f$i"; done
printf 'small\n' > "$SCRATCH/data/s"
dst backup "$SCRATCH/data" >/dev/null

no_temporaries() {
    left=$(find "$1" -maxdepth 1 -name '.destor-*' | head -n 1)
    [ -z "$left" ] || fail "a temporary file was left behind: $left"
}

# 1. Three writers of one OUT at once, ten rounds: every run that exits 0
# leaves, at the end of the round, OUT equal to one whole file.
round=0
while [ $round -lt 10 ]; do
    round=$((round + 1))
    for i in 1 2 3; do
        (rc=0; dst read-file 0 "f$i" -o "$SCRATCH/out" --verify > /dev/null 2>&1 || rc=$?; echo $rc > "$SCRATCH/rc$i") &
    done
    wait
    for i in 1 2 3; do
        [ "$(cat "$SCRATCH/rc$i")" -eq 0 ] || fail "round $round: writer $i exited $(cat "$SCRATCH/rc$i")"
    done
    cmp -s "$SCRATCH/out" "$SCRATCH/data/f1" || cmp -s "$SCRATCH/out" "$SCRATCH/data/f2" ||
        cmp -s "$SCRATCH/out" "$SCRATCH/data/f3" || fail "round $round: OUT is no one file (a mix of writers)"
done
no_temporaries "$SCRATCH"
note "concurrent read-file -o: OUT is always one whole file"

# 2. Links planted at the old temporary name and at OUT itself are replaced,
# never written through, whether the command succeeds or fails.
printf 'precious\n' > "$SCRATCH/victim"
ln -s "$SCRATCH/victim" "$SCRATCH/o.destor-tmp"
expect_status 2 dst read-file 0 no-such-file -o "$SCRATCH/o"
dst read-file 0 s -o "$SCRATCH/o"
printf '0\ts\n' > "$SCRATCH/trace"
ln -s "$SCRATCH/victim" "$SCRATCH/t.ctr.destor-tmp"
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/t.ctr"
ln -s "$SCRATCH/victim" "$SCRATCH/t.txt.destor-tmp"
dst trace export "$SCRATCH/t.ctr" --format txt -o "$SCRATCH/t.txt"
ln -s "$SCRATCH/victim" "$SCRATCH/linked-out"
dst read-file 0 s -o "$SCRATCH/linked-out"
[ "$(cat "$SCRATCH/victim")" = precious ] || fail "a write went through a planted symlink"
[ ! -L "$SCRATCH/linked-out" ] && cmp -s "$SCRATCH/linked-out" "$SCRATCH/data/s" ||
    fail "read-file -o did not replace a symlink at OUT with the file"
note "links at OUT or at a temporary name are never written through"

# 3. Outputs into the store's directory, and restores that hold it or lie
# in it, are refused before anything is written.
C=$(containers_of "$W")
cp -a "$C" "$SCRATCH/pool.before"
expect_status 2 dst read-file 0 f1 -o "$W/store.meta"
grep -q 'which the store uses' "$SCRATCH/err" || fail "refusal does not say why: $(cat "$SCRATCH/err")"
expect_status 2 dst read-file 0 f1 -o "$W/index/new"
expect_status 2 dst trace compile "$SCRATCH/trace" -o "$W/t.ctr"
expect_status 2 dst restore 0 "$SCRATCH"
expect_status 2 dst restore 0 "$W/jobs"
expect_status 2 dst restore 0 "$W/inside"
[ ! -e "$W/inside" ] || fail "a refused restore left its target behind in the store"
diff -r -q "$C" "$SCRATCH/pool.before" > /dev/null || fail "the containers changed"
dst verify > /dev/null
note "outputs and restores into the store are refused; the store verifies"

# 4. Restore replaces existing entries: a hard link to a file outside the
# target and a symlink keep their targets' bytes and modes.
T="$SCRATCH/target"
mkdir -p "$T"
printf 'outside\n' > "$SCRATCH/outside"
chmod 600 "$SCRATCH/outside"
ln "$SCRATCH/outside" "$T/s"
dst restore 0 "$T" > /dev/null
[ "$(cat "$SCRATCH/outside")" = outside ] && [ "$(stat -c %a "$SCRATCH/outside")" = 600 ] ||
    fail "restore wrote through a hard link to a file outside the target"
ln -sf "$SCRATCH/victim" "$T/f1"
dst restore 0 "$T" > /dev/null
[ "$(cat "$SCRATCH/victim")" = precious ] || fail "restore wrote through a symlink in the target"
same_tree "$SCRATCH/data" "$T"
no_temporaries "$T"
note "restore replaces hard links and symlinks in the target, never writes through them"

# 5. A restore that fails on a damaged container (every container has one
# bad byte, so the first file restored fails) leaves the files it would have
# replaced as they were.
mkdir -p "$SCRATCH/kept"
for f in f1 f2 f3 s; do printf 'keep me\n' > "$SCRATCH/kept/$f"; done
n=$(container_count "$W" 2097152)
i=0
while [ $i -lt "$n" ]; do
    flip_container_byte "$W" $i 2097152 1000
    i=$((i + 1))
done
expect_status 3 dst restore 0 "$SCRATCH/kept"
for f in f1 f2 f3 s; do
    [ "$(cat "$SCRATCH/kept/$f")" = 'keep me' ] || fail "a failed restore changed $f, which it was replacing"
done
no_temporaries "$SCRATCH/kept"
note "a failed restore leaves existing files as they were"
