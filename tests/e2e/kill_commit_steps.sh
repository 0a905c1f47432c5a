#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_commit_steps.sh: SIGKILL a backup at every rename and every fsync it
# makes (strace's syscall injection), once on a new store and once on a
# store that already holds a job. After each kill the next backup succeeds
# promptly (no wait on a half-created Berkeley DB), verify passes, and the
# newest job restores byte for byte. Skipped when strace cannot inject.
# The kill points are counted by a run of the same backup (count_calls),
# not written here: each thread's renames and fsyncs, as strace counts an
# injection's calls thread by thread (the commit syncs the job's records
# on a thread of its own). How many there are and why: git log of this
# file; later_job_syncs.sh holds a later job's syncs to their number.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
# Its injection points are each thread's renames and fsyncs; a files
# store renames and fsyncs on its writer thread too: kill_files_backup.sh.
require_pool "the kill points are counted on a pool store"

strace_kill_setup

mkdir -p "$SCRATCH/src/d"
pseudo_random 700000 31 > "$SCRATCH/src/d/a.bin"
echo one > "$SCRATCH/src/b.txt"
mkdir -p "$SCRATCH/src2"
pseudo_random 400000 32 > "$SCRATCH/src2/c.bin"
cp "$SCRATCH/src/b.txt" "$SCRATCH/src2/"

# count_calls WORKDIR SYSCALL: how often one backup of src makes SYSCALL on
# the thread that makes it most: strace counts an injection's calls thread
# by thread, and the commit syncs the job's records (job_meta_data, the
# recipe index) on a thread of its own, as the job's start creates the
# recipe index (as kill_files_backup.sh counts).
count_calls() {
    strace -f -qq -o "$SCRATCH/trace" -e trace="$2" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src" >/dev/null
    grep "$2(" "$SCRATCH/trace" | awk '{ n[$1]++ } END { m = 0; for (t in n) if (n[t] > m) m = n[t]; print m }'
}

new_store() { :; }
store_with_a_job() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src2" >/dev/null; }
# The killed backup takes every file from the files cache (its parent, a
# job of src, read them more than 2 s after they changed): the kill points
# of a job that reads nothing, file_status's publication among them.
store_with_its_parent() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src" >/dev/null; }
sleep 3

for prep in new_store store_with_a_job store_with_its_parent; do
    kill_sweep "$prep" $prep count_calls :
    note "$prep: killed at each of $kills renames and fsyncs; the next backup, verify and restore succeeded"
done
