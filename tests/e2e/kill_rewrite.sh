#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_rewrite.sh: SIGKILL a backup that rewrites (capping and HAR, which
# also publishes its container_utilization record) at every rename and
# fsync it makes, into a store whose older job holds the shared chunks.
# After each kill the next backup (rewriting too) commits, the index names
# only copies that exist (verify, verify --deep, and a backup of the same
# tree stores nothing new), and the newest job restores byte for byte.
# Skipped when strace cannot inject.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
require_pool "the kill points are counted on a pool store's main thread"

strace_kill_setup

gen_data "$SCRATCH/data" --preset tiny --versions 3 --seed 41
mv "$SCRATCH/data/v1" "$SCRATCH/old"
mv "$SCRATCH/data/v2" "$SCRATCH/src"
mv "$SCRATCH/data/v3" "$SCRATCH/src2"
printf 'container-size 128K\nrewrite-algorithm capping 128\nrewrite-capping-level 1\nrewrite-enable-har yes\n' >> "$CONFIG"
printf 'rewrite-har-utilization-threshold 1\nrewrite-har-rewrite-limit 1\n' >> "$CONFIG"

# count_calls WORKDIR SYSCALL: the most calls one thread of a backup makes
# (strace counts an injection's calls thread by thread; the commit syncs
# the job's records on a thread of its own).
count_calls() {
    strace -f -qq -o "$SCRATCH/trace" -e trace="$2" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/src" >/dev/null
    grep "$2(" "$SCRATCH/trace" | awk '{ n[$1]++ } END { m = 0; for (t in n) if (n[t] > m) m = n[t]; print m }'
}
with_old_job() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup "$SCRATCH/old" >/dev/null; }
# After the sweep's own checks: deep verify, and the index finds every chunk.
index_whole() {
    [ -d "$1/jobs" ] || return 0
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" verify --deep >/dev/null || return 1
}

# The rewriting actually happens in the backup that is killed.
rm -rf "$SCRATCH/probe"
with_old_job "$SCRATCH/probe"
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/probe" backup --json "$SCRATCH/src" > "$SCRATCH/b.json"
[ "$(json_field "$SCRATCH/b.json" rewritten_chunks)" -gt 0 ] || fail "the killed backup would rewrite nothing"
rm -rf "$SCRATCH/probe"

kill_sweep rewrite with_old_job count_calls index_whole
note "killed a rewriting backup at each of $kills renames and fsyncs; the next backup, verify --deep and restore succeeded"

# And once more by hand on the last kill point's kind: the index is whole.
W="$SCRATCH/w-final"
with_old_job "$W"
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" backup "$SCRATCH/src" >/dev/null
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" -p"rewrite-algorithm no" -p"rewrite-enable-har no" \
    backup --json "$SCRATCH/src" > "$SCRATCH/b.json"
[ "$(json_field "$SCRATCH/b.json" new_chunks)" -eq 0 ] || fail "the index lost chunks after rewriting"
