#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# locking.sh: a second backup beside a running one is refused; read-only
# commands run beside it and see only committed jobs; a second process on
# an SSD cache directory in use is refused. No race on timing: the running
# backup is held at its first fsync (strace's syscall injection), the
# running reader waits on a trace that is not finished yet (a FIFO), and
# the test waits until each holds its lock.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

command -v strace >/dev/null 2>&1 || { echo "# strace not installed"; exit 77; }
# LeakSanitizer cannot run under ptrace: off for the traced run.
TRACED_ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# wait_locked FILE PID: until another process holds FILE's flock (at most
# 60 s); PID, the process meant to take it, must not end first.
wait_locked() {
    i=0
    while [ ! -e "$1" ] || flock -n "$1" true; do
        i=$((i + 1))
        [ "$i" -le 600 ] || fail "nothing took the lock $1"
        if ! kill -0 "$2" 2>/dev/null; then
            status=0
            wait "$2" || status=$?
            fail "the process meant to hold $1 ended (status $status) before the test saw it hold the lock"
        fi
        sleep 0.1
    done
}

gen_data "$SCRATCH/small" --preset tiny --seed 2
dst backup "$SCRATCH/small/v1" >/dev/null
ASAN_OPTIONS=$TRACED_ASAN_OPTIONS strace -f -o /dev/null -e trace=fsync \
    -e inject=fsync:delay_enter=4000000:when=1 \
    "$DESTOR_BIN" -c "$CONFIG" backup "$SCRATCH/small/v1" >/dev/null 2>&1 &
pid=$!
wait_locked "$SCRATCH/working/LOCK" "$pid"
kill -0 "$pid" 2>/dev/null || fail "the held backup ended before the test could race it"
expect_status 1 dst backup "$SCRATCH/small/v1"
grep -q 'another writer (backup, delete, gc or repair) is running' "$SCRATCH/err" || fail "lock message"
expect_status 0 dst stat --json
[ "$(json_field "$SCRATCH/out" job_count)" -eq 1 ] || fail "stat saw an uncommitted job"
expect_status 2 dst read-file 1 anything     # job 1 is not committed yet
wait "$pid" || fail "the held backup failed"
[ "$(dst stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])')" -eq 2 ] || fail "job 1 missing after commit"
note "lock refused the second writer; readers saw only committed jobs"

# Two processes sharing one SSD cache directory: the second is refused.
cache_cfg="$SCRATCH/cache.config"
{ cat "$CONFIG"; printf 'ssd-cache-policy lru\nssd-cache-directory "%s/cache"\nssd-cache-size 4\n' "$SCRATCH"; } > "$cache_cfg"
dst list 1 | awk -F '\t' '$1 == "f" && $3 !~ /[[:cntrl:]]/ { print "1\t" $3 }' > "$SCRATCH/one-pass"
mkfifo "$SCRATCH/pending-trace"
"$DESTOR_BIN" -c "$cache_cfg" read-file --trace - < "$SCRATCH/pending-trace" >/dev/null 2>&1 &
pid=$!
exec 3> "$SCRATCH/pending-trace"
head -n 1 "$SCRATCH/one-pass" >&3   # the reader serves it, then waits for more
wait_locked "$SCRATCH/cache/LOCK" "$pid"
expect_status 1 "$DESTOR_BIN" -c "$cache_cfg" read-file --trace "$SCRATCH/one-pass"
grep -q 'in use by another process' "$SCRATCH/err" || fail "cache lock message"
exec 3>&-
wait "$pid" || fail "the first reader failed"
expect_status 0 "$DESTOR_BIN" -c "$cache_cfg" read-file --trace "$SCRATCH/one-pass"
note "a second process on the same SSD cache directory was refused"
