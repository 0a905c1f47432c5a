#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# later_job_syncs.sh: a later backup that stores no chunk (every file taken
# from the files cache) leaves the fingerprint index as it found it: its DB
# is opened read-only, DIRTY is never created, and the job makes 10 syncs
# (fsync and fdatasync: the recipe index's creation, the pool, job_meta_data,
# the recipe index's close twice, refcount, file_status, the job's
# directory, the manifest and its directory; 15 before issue 42's round 3).
# A later job that stores chunks marks the index at its first write (the
# mark's kill points are kill_commit_steps.sh's) and clears it at its
# commit; verify passes and the last job restores byte for byte.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
require_pool "the syncs are counted on a pool store"
command -v strace >/dev/null 2>&1 || { echo "# strace not installed"; exit 77; }
sweep_without_leak_checks # LeakSanitizer cannot run under strace (ptrace)

mkdir -p "$SCRATCH/src/d"
pseudo_random 700000 51 > "$SCRATCH/src/d/a.bin"
echo one > "$SCRATCH/src/b.txt"
sleep 3 # the files cache trusts no file changed within 2 s of its parent's start
W="$SCRATCH/w"
# traced BACKUP_OPTION... : one backup of src into W under strace -f
traced() {
    strace -f -qq -o "$SCRATCH/trace" -e trace=openat,fsync,fdatasync \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" backup "$@" "$SCRATCH/src" > "$SCRATCH/out"
}
traced
traced
traced --json
files=$("$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["files_cache"]["files"])' < "$SCRATCH/out")
[ "$files" -eq 2 ] || fail "the files cache took $files files, not 2"
syncs=$(grep -c -E 'fsync\(|fdatasync\(' "$SCRATCH/trace" || true)
[ "$syncs" -eq 10 ] || { cat "$SCRATCH/trace" >&2; fail "a later job that stores nothing made $syncs syncs, not 10"; }
! grep -q 'fingerprints.db", O_RDWR' "$SCRATCH/trace" || fail "the fingerprint index was opened to write"
! grep -q 'DIRTY' "$SCRATCH/trace" || fail "the fingerprint index was marked DIRTY"

# New chunks: the index is marked at the first write, and clean after.
pseudo_random 500000 52 > "$SCRATCH/src/c.bin"
traced
grep -q '"DIRTY", O_WRONLY|O_CREAT|O_EXCL' "$SCRATCH/trace" || fail "the job that stored chunks left the index unmarked"
[ ! -e "$W/index/DIRTY" ] || fail "DIRTY left after the commit"
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" verify >/dev/null || fail "verify failed"
last=$("$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" stat --json |
    "$PYTHON" -c 'import json,sys; print(max(j["job"] for j in json.load(sys.stdin)["jobs"]))')
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" restore "$last" "$SCRATCH/r" >/dev/null
same_tree "$SCRATCH/src" "$SCRATCH/r"
note "a later job that stores nothing: 10 syncs, the index untouched; one that stores chunks marks it"
