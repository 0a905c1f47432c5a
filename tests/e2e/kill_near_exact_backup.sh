#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_near_exact_backup.sh: a backup with each near-exact index (the
# sampled index, silo), killed (SIGKILL, strace's syscall injection) at
# every rename and fsync it makes, on a new store and on one with a job:
# their extra steps (the DUPLICATES mark, the samples or segments saved
# beside the DB) leave a store that verifies, and the next backup commits
# and restores byte for byte (kill_sweep). Skipped when strace cannot
# inject.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

strace_kill_setup

# One sample per container and a one-container cache: the second backup
# misses duplicates, so DUPLICATES is written too.
cp "$CONFIG" "$SCRATCH/base.config"
use_design() {
    cp "$SCRATCH/base.config" "$CONFIG"
    printf 'container-size 128K\nfingerprint-index %s\n' "$1" >> "$CONFIG"
    printf 'fingerprint-index-sampling-method random 65536\nfingerprint-index-cache-size 1\n' >> "$CONFIG"
}
on() { w=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $w" "$@"; }

mkdir -p "$SCRATCH/src/d" "$SCRATCH/src2"
pseudo_random 700000 51 > "$SCRATCH/src/d/a.bin"
pseudo_random 300000 52 > "$SCRATCH/src/b.bin"
cp "$SCRATCH/src/d/a.bin" "$SCRATCH/src2/a.bin"
pseudo_random 200000 53 > "$SCRATCH/src2/c.bin"

count_calls() {
    strace -f -qq -o "$SCRATCH/trace" -e trace="$2" "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" \
        backup "$SCRATCH/src" >/dev/null
    grep "$2(" "$SCRATCH/trace" | awk '{ n[$1]++ } END { m = 0; for (t in n) if (n[t] > m) m = n[t]; print m }'
}
verifies_or_no_store() { [ ! -f "$1/store.meta" ] || on "$1" verify >/dev/null; }

new_store() { :; }
store_with_a_job() { on "$1" backup "$SCRATCH/src2" >/dev/null; }

for design in "near-exact physical" "near-exact logical silo"; do
    use_design "$design"
    # The sweep's setting misses duplicates: check it does, or the DUPLICATES step is not swept.
    rm -rf "$SCRATCH/probe"
    store_with_a_job "$SCRATCH/probe"
    on "$SCRATCH/probe" backup "$SCRATCH/src" >/dev/null
    [ -f "$SCRATCH/probe/index/DUPLICATES" ] || fail "$design: the sweep's backup misses no duplicate"
    for prep in new_store store_with_a_job; do
        kill_sweep "$design, $prep" $prep count_calls verifies_or_no_store
        note "$design, $prep: killed at each of $kills renames and fsyncs; verify, the next backup and restore succeeded"
    done
done
