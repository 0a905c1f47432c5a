# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh: what the RADOS tests share (sourced, not run): the end-to-end
# helpers (tests/e2e/lib.sh) and one Ceph cluster per test script
# (cluster.sh) in the scratch directory, stopped by its PIDs when the
# script ends, whatever way. A test that cannot start one because Ceph is
# not installed is skipped (exit 77; scripts/setup.sh installs it).
#
#   rados_setup [memstore|bluestore]   start the cluster; sets RADOS_CONFIG_LINES
#   on W CMD...                         destor on a rados store in working directory
#                                       $SCRATCH/W, namespace W (one store a namespace)
#   at W CMD...                         destor in working directory $SCRATCH/W (a
#                                       machine) on the store of namespace "s"
#   wait_stopped PID                    wait for a process the shim stopped
#   rados_cli ARGS...                   the rados command on the cluster
. "$TOP_SRCDIR/tests/e2e/lib.sh"
. "$TOP_SRCDIR/tests/rados/cluster.sh"

# The shim (rados_shim.so) is preloaded before the sanitizer build's ASan
# runtime, which then must not insist on coming first.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

rados_setup() {
    for tool in ceph-mon ceph-osd monmaptool ceph rados; do
        command -v "$tool" > /dev/null 2>&1 || { echo "# SKIP: $tool not installed (scripts/setup.sh)"; exit 77; }
    done
    # Stop the cluster before lib.sh's own exit handling (which keeps the
    # scratch directory, daemons' logs included, when the test failed).
    trap 'rc=$?; kill_sample_note; cluster_stop; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT
    # Interrupted (make's ^C, a CI timeout): exit, so that the above stops
    # the daemons rather than leave them running.
    trap 'exit 130' INT TERM HUP
    cluster_start "$SCRATCH/cluster" "${1:-memstore}"
    # Short client timeouts: a test of an unreachable cluster or a dead OSD
    # ends in seconds.
    printf 'container-store rados\nrados-conf %s\nrados-pool %s\nrados-timeout 5\n' "$CEPH_CONF" "$RADOS_POOL" \
        >> "$CONFIG"
}

on() {
    w=$1
    shift
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$w" -p"rados-namespace $w" "$@"
}

# at W CMD...: several machines (working directories) on one store.
at() {
    d=$1
    shift
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$d" -p"rados-namespace s" "$@"
}

# wait_stopped PID: wait until process PID has stopped itself (the shim's
# RADOS_SHIM_ACTION=stop), failing after 30 s.
wait_stopped() {
    tries=0
    until [ "$(awk '{ print $3 }' "/proc/$1/stat" 2> /dev/null)" = T ]; do
        tries=$((tries + 1))
        [ "$tries" -lt 300 ] || fail "process $1 never reached the RADOS write it was to stop at"
        sleep 0.1
    done
}

# rados_cli ARGS...: the rados command on the test's cluster, bounded.
rados_cli() { timeout 60 rados -c "$CEPH_CONF" -p "$RADOS_POOL" "$@"; }

# when_unlocked CMD...: run CMD (its output in $SCRATCH/out) until a dead
# writer's RADOS lock has expired: refused with the lock's error and
# nothing else, every second, for at most 30 s.
when_unlocked() {
    tries=0
    until "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"; do
        grep -q "another writer holds the store's lock" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$*"; }
        tries=$((tries + 1))
        [ "$tries" -lt 30 ] || fail "the dead writer's lock never expired: $*"
        sleep 1
    done
}

# inner_shard LOG I: the Ith write of a shim's log (RADOS_SHIM_LOG) and its
# neighbours all write fingerprint index shards: one wave of writes in
# flight together, of which a sweep kills at the first and the last only.
inner_shard() {
    [ "$2" -gt 1 ] && [ "$(sed -n "$(($2 - 1)),$(($2 + 1))p" "$1" | grep -c '^destor\.index\.')" -eq 3 ]
}
