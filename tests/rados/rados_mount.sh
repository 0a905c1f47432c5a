#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_mount.sh: a mount on one machine (working directory wb) of a rados
# store another machine (wa) writes. A job wa deletes leaves wb's root of
# jobs within MOUNT_CLUSTER_PULL_MS + MOUNT_WATCH_MS (1.25 s; 10 s allowed
# here for a loaded machine), and a job wa backs up appears there; a file
# of the deleted job opened before the delete still reads its own bytes,
# because gc on wa defers to the mount's reader lease (nothing freed) for
# as long as the mount lasts; unmounted, gc frees, and wb restores and
# verifies the store. Skipped (77) without FUSE.
. "$TOP_SRCDIR/tests/rados/lib.sh"
. "$TOP_SRCDIR/tests/e2e/mount_lib.sh"
need_fuse
rados_setup
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"
MNT="$SCRATCH/mnt"
MPID=""
mkdir "$MNT"
trap 'rc=$?; fusermount3 -u -z "$MNT" 2>/dev/null || true; [ -z "$MPID" ] || kill "$MPID" 2>/dev/null || true; kill_sample_note; cluster_stop; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT
lifecycle_trees

# until_true SECONDS CMD...: CMD every 0.1 s until it succeeds (its time in
# $took, in tenths of a second); fail after SECONDS.
until_true() {
    limit=$(($1 * 10))
    shift
    took=0
    until "$@"; do
        took=$((took + 1))
        [ "$took" -lt "$limit" ] || fail "not within $((limit / 10)) s: $*"
        sleep 0.1
    done
}
absent() { ! ls "$MNT" | grep -qx "$1"; }
present() { ls "$MNT" | grep -qx "$1"; }

at wa backup "$SCRATCH/a" > /dev/null
at wa backup "$SCRATCH/b" > /dev/null
start_mount "$MNT" -p"working-directory $SCRATCH/wb" -p"rados-namespace s" mount
cmp "$MNT/0/only_a.bin" "$SCRATCH/a/only_a.bin" || fail "the mount's job 0 differs from the tree"
cmp "$MNT/1/only_b.bin" "$SCRATCH/b/only_b.bin" || fail "the mount's job 1 differs from the tree"

# a file of job 0 held open across its delete and gc
exec 3< "$MNT/0/only_a.bin"
at wa delete 0 > /dev/null
until_true 10 absent 0
note "a job deleted on another machine left the mount's root in $took tenths of a second (bound: 12.5)"
at wa gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" deferred)" = True ] || fail "gc did not defer to the mount: $(cat "$SCRATCH/gc.json")"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "gc freed containers under the mount"
cmp - "$SCRATCH/a/only_a.bin" <&3 || fail "the deleted job's open file read other bytes after gc"
exec 3<&-
note "gc on another machine defers to the mount: a deleted job's open file still reads its own bytes"

at wa backup "$SCRATCH/c" > /dev/null
until_true 10 present 2
cmp "$MNT/2/only_c.bin" "$SCRATCH/c/only_c.bin" || fail "the mount's new job 2 differs from the tree"
[ "$(readlink "$MNT/latest")" = 2 ] || fail "latest is $(readlink "$MNT/latest"), not 2"
note "a job backed up on another machine appeared in the mount in $took tenths of a second"

stop_mount fusermount3 "$MNT"
at wa gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -gt 0 ] || fail "gc freed nothing once the mount ended"
at wb restore 1 "$SCRATCH/r" > /dev/null
same_tree "$SCRATCH/b" "$SCRATCH/r"
at wb verify --deep > /dev/null || fail "the store does not verify from the mount's machine after gc"
note "unmounted: gc frees; the mount's machine restores and verifies"
