#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_retention.sh: SIGKILL a backup with backup-retention-time 2 at every
# rename and fsync it makes (kill_sweep), the backup's own and those of the
# retention step after it: deleting the oldest job and the gc that frees
# its dead containers and copies the live chunks out of the sparse ones.
# After each kill, and after the next backup: verify --deep passes, at
# least the two newest jobs are live and every live job restores as the
# tree it was made from. Skipped when strace cannot inject.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
# the kill points are counted per thread; a files store renames and
# fsyncs on its writer thread too (kill_files_backup.sh covers its backup)
require_pool "the kill points are counted on a pool store's threads"

strace_kill_setup

printf 'container-size 128K\nbackup-retention-time 2\n' >> "$CONFIG"
lifecycle_trees
cp -a "$SCRATCH/c" "$SCRATCH/src"
mkdir -p "$SCRATCH/src2"
cp "$SCRATCH/b/shared.bin" "$SCRATCH/src2/"
pseudo_random 120000 55 > "$SCRATCH/src2/only_src2.bin"

# two jobs sharing chunks (a, b): the killed backup's retention deletes a,
# whose containers are dead or, where they hold b's chunks too, sparse
two_jobs() {
    for t in a b; do
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/$t" >/dev/null 2>&1
    done
}

# count_calls WORKDIR SYSCALL: the most calls one thread of a backup makes.
count_calls() {
    strace -f -qq -o "$SCRATCH/trace" -e trace="$2" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src" >/dev/null 2>&1
    grep "$2(" "$SCRATCH/trace" | awk '{ c[$1]++ } END { m = 0; for (t in c) if (c[t] > m) m = c[t]; print m }'
}

# kept_sound WORKDIR: verify --deep, two or more live jobs, each restoring
# as its source tree.
kept_sound() {
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" verify --deep >/dev/null 2>"$SCRATCH/err" ||
        { cat "$SCRATCH/err" >&2; return 1; }
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" stat --json |
        "$PYTHON" -c 'import json,sys
for j in json.load(sys.stdin)["jobs"]: print(j["job"], j["source_root"])' > "$SCRATCH/live"
    [ "$(wc -l < "$SCRATCH/live")" -ge 2 ] || { cat "$SCRATCH/live" >&2; echo "fewer than two live jobs" >&2; return 1; }
    while read -r job root; do
        rm -rf "$1.k"
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" restore "$job" "$1.k" >/dev/null
        same_tree "$root" "$1.k"
    done < "$SCRATCH/live"
    rm -rf "$1.k"
}

kill_sweep retention two_jobs count_calls kept_sound
note "killed at each of $kills renames and fsyncs of a backup with retention; verify --deep and the live jobs held"
