#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_kill_lifecycle.sh: destor killed (SIGKILL) at every RADOS write of
# a delete (the tombstone, the stale-refcount mark, the recounted counts,
# the mark's removal) and of a gc after it (the live jobs' records, the
# copied containers, the freed list, each freed container's removal, the
# deleted job's records, the index shards rewritten and their state),
# before the write and once it has completed. After each kill, from the
# killed writer's working directory and from a new one given only the
# conf: the live job restores byte for byte, the deleted one is either
# whole or refused (exit 2) and never half there, the store verifies
# deeply; once the dead writer's lock has expired the interrupted command
# runs again to its end (gc instead of a delete that had committed), and
# a backup from a new working directory deduplicates against what is left
# and restores. Of a run of index shard writes, in flight together, the
# first and last are killed at (inner_shard).
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
sweep_without_leak_checks
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"
SHIM="$TOP_BUILDDIR/tests/rados/rados_shim.so"
lifecycle_trees

# in DIR W CMD...: destor in working directory $SCRATCH/DIR on namespace W.
in_ns() {
    d=$1
    ns=$2
    shift 2
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$d" -p"rados-namespace $ns" "$@"
}
# shimmed W ENV... : the next command on store W with the shim and ENV.
shimmed() {
    ns=$1
    shift
    env LD_PRELOAD="$SHIM" "$@"
}
# make_store W: jobs 0 (tree a) and 1 (tree b); with `deleted`, job 0 deleted.
make_store() {
    in_ns "$1" "$1" backup "$SCRATCH/a" > /dev/null
    in_ns "$1" "$1" backup "$SCRATCH/b" > /dev/null
    [ "${2:-}" != deleted ] || in_ns "$1" "$1" delete 0 > /dev/null
}
restores() {
    rm -rf "$SCRATCH/r"
    in_ns "$1" "$2" restore "$3" "$SCRATCH/r" > /dev/null
    same_tree "$4" "$SCRATCH/r"
}
# sound DIR W: job 1 restores; job 0 restores or is refused as deleted; deep verify.
sound() {
    restores "$1" "$2" 1 "$SCRATCH/b"
    rm -rf "$SCRATCH/r"
    set +e
    in_ns "$1" "$2" restore 0 "$SCRATCH/r" > /dev/null 2> "$SCRATCH/err"
    rc=$?
    set -e
    zero_live=$rc
    if [ "$rc" -eq 0 ]; then
        same_tree "$SCRATCH/a" "$SCRATCH/r"
    else
        [ "$rc" -eq 2 ] && grep -q "deleted" "$SCRATCH/err" || fail "$2 from $1: job 0 neither whole nor deleted: $(cat "$SCRATCH/err")"
    fi
    in_ns "$1" "$2" verify --deep > "$SCRATCH/v" 2>&1 || { cat "$SCRATCH/v" >&2; fail "$2 does not verify from $1"; }
}
make_store count-delete
shimmed x RADOS_SHIM_COUNT_FILE="$SCRATCH/n-delete" RADOS_SHIM_LOG="$SCRATCH/log-delete" \
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/count-delete" -p"rados-namespace count-delete" delete 0 > /dev/null
shimmed x RADOS_SHIM_COUNT_FILE="$SCRATCH/n-gc" RADOS_SHIM_LOG="$SCRATCH/log-gc" \
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/count-delete" -p"rados-namespace count-delete" gc > /dev/null
n_delete=$(cat "$SCRATCH/n-delete")
n_gc=$(cat "$SCRATCH/n-gc")
[ "$n_delete" -ge 2 ] && [ "$n_gc" -ge 3 ] || fail "too few RADOS writes to sweep: $n_delete, $n_gc"
grep -q '^container\.' "$SCRATCH/log-gc" || fail "gc freed or copied no container"

kills=0
for op in delete gc; do
    eval "n=\$n_$op"
    for action in kill kill-after; do
        i=1
        while [ "$i" -le "$n" ]; do
            kill_point "$i" "$n" && ! inner_shard "$SCRATCH/log-$op" "$i" || { i=$((i + 1)); continue; }
            w="$op-$action-$i"
            if [ "$op" = gc ]; then make_store "$w" deleted; else make_store "$w"; fi
            set +e
            if [ "$op" = gc ]; then set -- gc; else set -- delete 0; fi
            shimmed "$w" RADOS_SHIM_AT="$i" RADOS_SHIM_ACTION="$action" \
                "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$w" -p"rados-namespace $w" "$@" > /dev/null 2>&1
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$w: $op not killed (exit $rc)"
            kills=$((kills + 1))
            sound "$w" "$w"
            rm -rf "${SCRATCH:?}/$w-other"
            sound "$w-other" "$w"
            # the interrupted command again, or, when a delete had committed, gc (the next writer)
            if [ "$op" = delete ] && [ "$zero_live" -ne 0 ]; then set -- gc; fi
            when_unlocked in_ns "$w" "$w" "$@"
            sound "$w" "$w"
            rm -rf "${SCRATCH:?}/$w-new"
            in_ns "$w-new" "$w" backup --json "$SCRATCH/b" > "$SCRATCH/b.json"
            [ "$(json_field "$SCRATCH/b.json" stored_bytes)" -eq 0 ] || fail "$w: a new working directory stored b again"
            restores "$w-new" "$w" 2 "$SCRATCH/b"
            in_ns "$w-new" "$w" verify --deep > /dev/null || fail "$w does not verify after the last backup"
            rm -rf "${SCRATCH:?}/$w" "${SCRATCH:?}/$w-other" "${SCRATCH:?}/$w-new"
            i=$((i + 1))
        done
    done
done
note "killed at each of $kills RADOS writes (a delete makes $n_delete, a gc $n_gc): every committed job sound from both working directories, the command then finishes, a new working directory dedups"
