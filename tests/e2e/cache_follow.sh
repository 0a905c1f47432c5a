#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cache_follow.sh: a trace replay through the SSD cache serves a job
# committed after the replay started, as it does without a cache (issue 28
# item 8): the cache grows its view of the store when the replay opens the
# new job. The trace comes from a FIFO written in two phases, with a backup
# between them, so the order of events is fixed: the second phase is
# written only once the replay has the cache open (its cache.meta exists)
# and the backup has committed.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-size 128K\n' >> "$CONFIG"
mkdir -p "$SCRATCH/d1" "$SCRATCH/d2"
pseudo_random 1048576 21 > "$SCRATCH/d1/a"
pseudo_random 1048576 22 > "$SCRATCH/d2/f"
dst backup "$SCRATCH/d1" >/dev/null

# replay ARGS...: replay the two-phase trace with ARGS; its JSON summary in
# $SCRATCH/summary.json, stderr in $SCRATCH/err, status in $status.
replay() {
    rm -rf "$SCRATCH/d2-job" "$SCRATCH/fifo"
    mkfifo "$SCRATCH/fifo"
    dst "$@" read-file --trace "$SCRATCH/fifo" --verify --json > "$SCRATCH/summary.json" 2>"$SCRATCH/err" &
    pid=$!
    exec 3<>"$SCRATCH/fifo"                # read-write: never blocks, even if destor died
    printf '# phase one\n0\ta\n' >&3
    # the replay has opened the store (and the cache) once it read the head
    i=0
    until [ -e "$SCRATCH/opened" ] || [ -e "$SCRATCH/cache/cache.meta" ]; do
        i=$((i + 1))
        [ $i -le 6000 ] || { kill $pid; fail "the replay never opened its cache"; }
        kill -0 $pid 2>/dev/null || break
        sleep 0.01
    done
    dst backup "$SCRATCH/d2" >/dev/null    # job 1: containers past the replay's start
    printf '1\tf\n1\tf\n' >&3
    exec 3>&-
    set +e
    wait $pid
    status=$?
    set -e
}

touch "$SCRATCH/opened"                    # no cache: nothing to wait for
replay
[ "$status" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "the replay without a cache failed"; }
rm "$SCRATCH/opened"
note "without a cache the replay serves a job committed after it started"

# Start again from job 0 alone, with a cache.
rm -rf "$SCRATCH/working"
dst backup "$SCRATCH/d1" >/dev/null
replay -p"ssd-cache-policy lru" -p"ssd-cache-directory $SCRATCH/cache" -p"ssd-cache-size 100%"
[ "$status" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "the replay with a cache stopped at the new job (exit $status)"; }
[ "$(json_field "$SCRATCH/summary.json" requests)" -eq 3 ] || fail "not every request was served"
"$PYTHON" - "$SCRATCH/summary.json" <<'PY' || fail "the cache did not serve the new job's containers"
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
# job 0: 9 containers, job 1: 9 more; the cache keeps the 9 slots it
# opened with (100% then), so job 1's second read is all hits
assert c["store_containers"] == 18, c
assert c["hits"] == 9 and c["misses"] == 18, c
PY
dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $SCRATCH/cache" -p"ssd-cache-size 100%" \
    read-file 1 f -o "$SCRATCH/out"
cmp "$SCRATCH/d2/f" "$SCRATCH/out" || fail "the new job's bytes through the cache are wrong"
note "with a cache the replay grows its view and serves the new job"
