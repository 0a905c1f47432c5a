# SPDX-License-Identifier: GPL-3.0-or-later
# mount_lib.sh: starting and ending a `destor mount` in a test (sourced
# after lib.sh, not run). The test sets MPID="" and ends any mount left in
# its exit trap.

# need_fuse: skip the test (77) where no FUSE mount can be made.
need_fuse() {
    [ -c /dev/fuse ] || { echo "# SKIP: /dev/fuse is missing: no FUSE mount can be made here"; exit 77; }
    command -v fusermount3 >/dev/null 2>&1 || { echo "# SKIP: fusermount3 is missing (apt-get install fuse3)"; exit 77; }
}

mounted() { grep -q " $1 fuse.destor " /proc/mounts; }

# start_mount MNT ARGS...: destor ARGS... -f MNT (ARGS hold the word
# mount) in the background, its output in $SCRATCH/mount.out and .err;
# back once the mount is in place.
start_mount() {
    m=$1; shift
    "$DESTOR_BIN" -c "$CONFIG" "$@" -f "$m" >"$SCRATCH/mount.out" 2>"$SCRATCH/mount.err" &
    MPID=$!
    i=0
    until mounted "$m"; do
        if ! kill -0 "$MPID" 2>/dev/null; then
            set +e; wait "$MPID"; rc=$?; set -e
            MPID=""
            if grep -q 'cannot mount' "$SCRATCH/mount.err"; then
                cat "$SCRATCH/mount.err"
                echo "# SKIP: FUSE cannot mount here"
                exit 77
            fi
            cat "$SCRATCH/mount.err" >&2
            fail "mount at $m exited $rc before mounting"
        fi
        i=$((i + 1))
        [ "$i" -lt 200 ] || fail "not mounted at $m after 10 s"
        sleep 0.05
    done
}

# stop_mount HOW MNT: end the mount started last (fusermount3, umount, INT
# or TERM); the process must exit 0 within 10 s, without a warning.
stop_mount() {
    case $1 in
    fusermount3) fusermount3 -u "$2" ;;
    umount) umount "$2" ;;
    INT | TERM) kill -s "$1" "$MPID" ;;
    esac
    i=0
    while kill -0 "$MPID" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -lt 200 ] || fail "the mount did not end after $1"
        sleep 0.05
    done
    set +e; wait "$MPID"; rc=$?; set -e
    MPID=""
    [ "$rc" -eq 0 ] || { cat "$SCRATCH/mount.err" >&2; fail "mount ended by $1 exited $rc"; }
    ! mounted "$2" || fail "still mounted after $1"
    ! grep -q '^destor: ' "$SCRATCH/mount.err" || { cat "$SCRATCH/mount.err" >&2; fail "mount ended by $1 warned"; }
}

