#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_kill_pull.sh: SIGKILL a working directory's pull from the cluster
# (a `verify` command's open: every job; a `list 1`'s: job 1 alone,
# store_open_job) at each of its renames, fsyncs and its syncfs
# (stopped there by tests/fault/fault_shim.so, counted across its threads,
# then SIGKILLed): once into an empty working directory (a new machine), once
# into one that lags the cluster by a job, a delete and a gc (the freed
# list's pull rewrites the live jobs' records first). The pull writes its
# files without fsyncs, makes them durable by one syncfs and then puts each
# job's manifest in place, also without an fsync, checked against the
# catalog at every open; after each kill the next restore in the same
# working directory gives every live job byte for byte, the deleted job is
# refused, and verify passes there.
. "$TOP_SRCDIR/tests/rados/lib.sh"
sweep_without_leak_checks
rados_setup
SHIM="$TOP_BUILDDIR/tests/fault/fault_shim.so"
printf 'container-size 128K\n' >> "$CONFIG"
lifecycle_trees

at wa backup "$SCRATCH/a" > /dev/null
at wa backup "$SCRATCH/b" > /dev/null
at lagging restore 1 "$SCRATCH/r" > /dev/null
rm -rf "$SCRATCH/r"
at wa delete 0 > /dev/null
at wa gc > /dev/null
at wa backup "$SCRATCH/c" > /dev/null

empty() { :; }
lagging() { cp -a "$SCRATCH/lagging" "$SCRATCH/$1"; }
# after W: what a killed pull left in working directory $SCRATCH/W reads right.
after() {
    for job in 1:b 2:c; do
        rm -rf "$SCRATCH/r"
        at "$1" restore "${job%:*}" "$SCRATCH/r" > /dev/null
        same_tree "$SCRATCH/${job#*:}" "$SCRATCH/r"
    done
    expect_status 2 at "$1" restore 0 "$SCRATCH/nowhere"
    at "$1" verify > /dev/null || fail "verify failed after a killed pull"
}
total=0
# shellcheck disable=SC2086 # $pull: the command's words
for pull in "verify" "list 1"; do
for prep in empty lagging; do
    kills=0
    for kind in rename fsync; do
        rm -rf "$SCRATCH/count"
        $prep count
        env LD_PRELOAD="$SHIM" FAULT_COUNT_FILE="$SCRATCH/counts" \
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/count" -p"rados-namespace s" $pull > /dev/null
        n=$(awk -v k="$kind" '$1 == k { print $2 }' "$SCRATCH/counts")
        i=1
        while [ "$i" -le "$n" ]; do
            w="w-$prep-$kind-$i"
            W="$SCRATCH/$w"
            $prep "$w"
            env LD_PRELOAD="$SHIM" FAULT_CALL="$kind" FAULT_AT="$i" FAULT_ACTION=stop \
                "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" -p"rados-namespace s" $pull > /dev/null 2>&1 &
            pid=$!
            wait_stopped "$pid"
            kill -KILL "$pid"
            set +e
            wait "$pid"
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$prep: the pull was not killed at $kind #$i (exit $rc)"
            kills=$((kills + 1))
            after "$w"
            rm -rf "$W"
            i=$((i + 1))
        done
    done
    [ "$kills" -ge 2 ] || fail "$pull, $prep: only $kills kill points"
    note "$pull, $prep working directory: its pull killed at each of its $kills renames and syncs; every job reads right after"
    total=$((total + kills))
done
done
note "$total kills in all"
