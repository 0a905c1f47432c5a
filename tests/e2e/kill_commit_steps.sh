#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_commit_steps.sh: SIGKILL a backup at every rename and every fsync it
# makes (strace's syscall injection), once on a new store and once on a
# store that already holds a job. After each kill the next backup succeeds
# promptly (no wait on a half-created Berkeley DB), verify passes, and the
# newest job restores byte for byte. Skipped when strace cannot inject.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
# Its injection points are the main thread's renames and fsyncs; a files
# store renames and fsyncs on its writer thread too: kill_files_backup.sh.
require_pool "the kill points are counted on a pool store's main thread"

strace_kill_setup

mkdir -p "$SCRATCH/src/d"
pseudo_random 700000 31 > "$SCRATCH/src/d/a.bin"
echo one > "$SCRATCH/src/b.txt"
mkdir -p "$SCRATCH/src2"
pseudo_random 400000 32 > "$SCRATCH/src2/c.bin"
cp "$SCRATCH/src/b.txt" "$SCRATCH/src2/"

# A backup that should take well under a second may take this long here.
LIMIT=${KILL_LIMIT:-60}
SYSCALLS="rename renameat renameat2 fsync fdatasync"

# count_calls WORKDIR SYSCALL: how often one backup of src makes SYSCALL.
count_calls() {
    traced -f -qq -o "$SCRATCH/trace" -e trace="$2" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src" >/dev/null
    grep -c "$2(" "$SCRATCH/trace" || true
}

# sweep NAME PREPARE: for every rename and fsync of a backup of src into a
# store made by PREPARE WORKDIR, kill the backup there, then check the store.
sweep() {
    kills=0
    for sc in $SYSCALLS; do
        rm -rf "$SCRATCH/count"
        $2 "$SCRATCH/count"
        n=$(count_calls "$SCRATCH/count" "$sc")
        i=1
        while [ "$i" -le "$n" ]; do
            W="$SCRATCH/w-$sc-$i"
            $2 "$W"
            set +e
            traced -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$i" \
                "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" backup "$SCRATCH/src" >/dev/null 2>&1
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$1: backup not killed at $sc #$i (exit $rc)"
            kills=$((kills + 1))
            set +e
            timeout "$LIMIT" "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" backup "$SCRATCH/src2" \
                >/dev/null 2>"$SCRATCH/err"
            rc=$?
            set -e
            [ "$rc" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "$1: backup after the kill at $sc #$i exited $rc"; }
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" verify >/dev/null ||
                fail "$1: verify failed after the kill at $sc #$i"
            last=$("$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" stat --json |
                "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"] - 1)')
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" restore "$last" "$W.r" >/dev/null
            same_tree "$SCRATCH/src2" "$W.r"
            rm -rf "$W" "$W.r"
            i=$((i + 1))
        done
    done
    [ "$kills" -ge 10 ] || fail "$1: only $kills kill points"
    note "$1: killed at each of $kills renames and fsyncs; the next backup, verify and restore succeeded"
}

new_store() { :; }
store_with_a_job() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src2" >/dev/null; }

sweep "new store" new_store
sweep "store with a job" store_with_a_job
