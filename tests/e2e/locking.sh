#!/bin/sh
# locking.sh: a second backup beside a running one is refused; read-only
# commands run beside it and see only committed jobs.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/small" --preset tiny --seed 2
gen_data "$SCRATCH/large" --size 160M --versions 1 --seed 8
dst backup "$SCRATCH/small/v1" >/dev/null
"$DESTOR_BIN" -c "$CONFIG" backup "$SCRATCH/large/v1" >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -0 "$pid" 2>/dev/null || fail "backup finished before the test could race it"
expect_status 1 dst backup "$SCRATCH/small/v1"
grep -q 'another backup is running' "$SCRATCH/err" || fail "lock message"
expect_status 0 dst stat --json
[ "$(json_field "$SCRATCH/out" job_count)" -eq 1 ] || fail "stat saw an uncommitted job"
expect_status 2 dst read-file 1 anything     # job 1 is not committed yet
wait "$pid"
[ "$(dst stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])')" -eq 2 ] || fail "job 1 missing after commit"
note "lock refused the second writer; readers saw only committed jobs"

# Two processes sharing one SSD cache directory: the second is refused.
cache_cfg="$SCRATCH/cache.config"
{ cat "$CONFIG"; printf 'ssd-cache-policy lru\nssd-cache-directory "%s/cache"\nssd-cache-size 4\n' "$SCRATCH"; } > "$cache_cfg"
dst list 1 | awk -F '\t' '$1 == "f" && $3 !~ /[[:cntrl:]]/ { print "1\t" $3 }' > "$SCRATCH/one-pass"
for i in $(seq 40); do cat "$SCRATCH/one-pass"; done > "$SCRATCH/long-trace"
"$DESTOR_BIN" -c "$cache_cfg" read-file --trace "$SCRATCH/long-trace" >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -0 "$pid" 2>/dev/null || fail "the first reader finished before the test could race it"
expect_status 1 "$DESTOR_BIN" -c "$cache_cfg" read-file --trace "$SCRATCH/one-pass"
grep -q 'in use by another process' "$SCRATCH/err" || fail "cache lock message"
wait "$pid"
expect_status 0 "$DESTOR_BIN" -c "$cache_cfg" read-file --trace "$SCRATCH/one-pass"
note "a second process on the same SSD cache directory was refused"
