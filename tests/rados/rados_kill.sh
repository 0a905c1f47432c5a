#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_kill.sh: destor killed (SIGKILL) at every RADOS write of a backup
# (the store's identity and store.meta in a new namespace, each container,
# the job's records, recipe index, reference counts and fingerprint index
# entries, the job catalog's entry that commits it, then the index
# shards' merge and their state), before the write and once it has
# completed, on a new store and on a store with a job. After each kill the
# committed jobs are those before, plus the killed one only when the kill
# came after its commit; each restores byte for byte and verifies deeply,
# from the killed writer's working directory and from a new one given only
# the conf; once the dead writer's lock has expired the next backup commits,
# verifies and restores.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
sweep_without_leak_checks
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"
SHIM="$TOP_BUILDDIR/tests/rados/rados_shim.so"
mkdir -p "$SCRATCH/src/d" "$SCRATCH/src2"
pseudo_random 500000 1 > "$SCRATCH/src/d/a.bin"
echo one > "$SCRATCH/src/b.txt"
pseudo_random 400000 2 > "$SCRATCH/src2/c.bin"
cp -r "$SCRATCH/src/d" "$SCRATCH/src2/"

# backup_as W SRC [ENV...]: destor backup of SRC into store W (its own
# working directory and namespace) with the shim's ENV settings.
backup_as() {
    w=$1
    src=$2
    shift 2
    env LD_PRELOAD="$SHIM" "$@" "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$w" -p"rados-namespace $w" \
        backup "$src"
}

# committed_sound W JOBS...: the store's jobs are exactly JOBS (sources, in
# order), each restoring as its source, and the store verifies deeply, seen
# from working directory W and from a new one (W-other, the same namespace).
committed_sound() {
    cw=$1
    shift
    committed_sound_in "$cw" "$cw" "$@"
    rm -rf "${SCRATCH:?}/$cw-other"
    committed_sound_in "$cw-other" "$cw" "$@"
    rm -rf "${SCRATCH:?}/$cw-other"
}

# on_in DIR W CMD...: destor in working directory $SCRATCH/DIR on store W's namespace.
on_in() {
    in_dir=$1
    in_ns=$2
    shift 2
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$in_dir" -p"rados-namespace $in_ns" "$@"
}

committed_sound_in() {
    d=$1
    w=$2
    shift 2
    jobs=$(on_in "$d" "$w" stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])' 2> /dev/null ||
        echo 0)
    [ "$jobs" -eq $# ] || fail "$w: $jobs jobs committed, expected $#"
    job=0
    for src in "$@"; do
        rm -rf "$SCRATCH/r"
        on_in "$d" "$w" restore "$job" "$SCRATCH/r" > /dev/null
        same_tree "$src" "$SCRATCH/r"
        job=$((job + 1))
    done
    [ $# -eq 0 ] || on_in "$d" "$w" verify --deep > /dev/null || fail "$w does not verify from $d"
}

# How many RADOS writes each backup makes, and which objects, in order.
backup_as count-new "$SCRATCH/src" RADOS_SHIM_COUNT_FILE="$SCRATCH/n-new" RADOS_SHIM_LOG="$SCRATCH/log-new" > /dev/null
backup_as count-new "$SCRATCH/src2" RADOS_SHIM_COUNT_FILE="$SCRATCH/n-old" RADOS_SHIM_LOG="$SCRATCH/log-old" > /dev/null
n_new=$(cat "$SCRATCH/n-new")
n_old=$(cat "$SCRATCH/n-old")
[ "$n_new" -ge 3 ] && [ "$n_old" -ge 2 ] || fail "too few RADOS writes to sweep: $n_new, $n_old"
# the job catalog's write commits; after it come the index shards' and their state's
c_new=$(grep -n '^destor\.jobs$' "$SCRATCH/log-new" | cut -d: -f1)
c_old=$(grep -n '^destor\.jobs$' "$SCRATCH/log-old" | cut -d: -f1)
[ "$c_new" -lt "$n_new" ] && [ "$c_old" -lt "$n_old" ] || fail "no index writes after the commit: $c_new/$n_new, $c_old/$n_old"
grep -q '^job\..*\.index$' "$SCRATCH/log-new" || fail "no job index object written before the commit"

kills=0
for action in kill kill-after; do
    for store in new old; do
        eval "n=\$n_$store"
        i=1
        while [ "$i" -le "$n" ]; do
            kill_point "$i" "$n" && ! inner_shard "$SCRATCH/log-$store" "$i" || { i=$((i + 1)); continue; }
            w="$store-$action-$i"
            if [ "$store" = old ]; then
                on "$w" backup "$SCRATCH/src" > /dev/null
                before="$SCRATCH/src"
                from="$SCRATCH/src2"
            else
                before=
                from="$SCRATCH/src"
            fi
            set +e
            backup_as "$w" "$from" RADOS_SHIM_AT="$i" RADOS_SHIM_ACTION="$action" > /dev/null 2>&1
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$w: backup not killed (exit $rc)"
            kills=$((kills + 1))
            # once the catalog entry is made, the job is committed
            eval "c=\$c_$store"
            killed=
            if [ "$i" -gt "$c" ] || { [ "$action" = kill-after ] && [ "$i" -eq "$c" ]; }; then killed=$from; fi
            # shellcheck disable=SC2086
            committed_sound "$w" $before $killed
            when_unlocked on "$w" backup "$from"
            # shellcheck disable=SC2086
            committed_sound "$w" $before $killed "$from"
            rm -rf "${SCRATCH:?}/$w"
            i=$((i + 1))
        done
    done
done
note "killed at each of $kills RADOS writes (a new store's backup makes $n_new, a second backup $n_old): committed jobs sound from both working directories, the next backup commits"
