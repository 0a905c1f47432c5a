#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_backup.sh: SIGKILL a running backup at 24 points spread over its run.
# After each kill: `destor verify` passes, every committed job restores byte
# for byte, and the interrupted job is either absent or complete. At the end
# a new backup succeeds and restores identical too.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
sweep_without_leak_checks

gen_data "$SCRATCH/small" --preset tiny --seed 3
gen_data "$SCRATCH/large" --size 160M --versions 2 --seed 4
dst backup "$SCRATCH/small/v1" >/dev/null

# Time one whole backup of a large version elsewhere, then kill at fractions
# of that time, so the kill points spread over the run on any machine.
t0=$(date +%s.%N)
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/timing" backup "$SCRATCH/large/v1" >/dev/null
t1=$(date +%s.%N)
rm -rf "$SCRATCH/timing"

job_count() { dst stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])'; }

# A backup that finished before its kill (the machine was faster than during
# the timing run, or the version deduplicates against a committed job) is
# checked as complete, and its point is tried again with half the delay, so
# every point ends in a kill whatever the load on a shared machine.
kills=0
point=0
for frac in 0.01 0.03 0.05 0.08 0.11 0.15 0.19 0.23 0.28 0.33 0.38 0.43 \
            0.48 0.53 0.58 0.63 0.68 0.73 0.78 0.83 0.87 0.91 0.95 0.99; do
    point=$((point + 1))
    kill_point "$point" 24 || continue
    version=v$((point % 2 + 1))        # alternate: new data, then mostly dedup
    tries=0
    while [ "$tries" -lt 6 ]; do
        tries=$((tries + 1))
        before=$(job_count)
        delay=$(awk -v a="$t0" -v b="$t1" -v f="$frac" -v t="$tries" \
            'BEGIN { printf "%.3f", (b - a) * f / 2 ^ (t - 1) }')
        "$DESTOR_BIN" -c "$CONFIG" backup "$SCRATCH/large/$version" >/dev/null 2>&1 &
        pid=$!
        sleep "$delay"
        killed=0
        kill -9 "$pid" 2>/dev/null && killed=1
        wait "$pid" 2>/dev/null || true
        dst verify >/dev/null || fail "verify failed after the kill at ${delay}s"
        rm -rf "$SCRATCH/r"
        dst restore 0 "$SCRATCH/r" >/dev/null
        same_tree "$SCRATCH/small/v1" "$SCRATCH/r"
        after=$(job_count)
        if [ "$after" -ne "$before" ]; then  # the backup finished first: it is complete
            rm -rf "$SCRATCH/r"
            dst restore "$before" "$SCRATCH/r" >/dev/null
            same_tree "$SCRATCH/large/$version" "$SCRATCH/r"
        fi
        if [ "$killed" -eq 1 ] && [ "$after" -eq "$before" ]; then
            kills=$((kills + 1))
            break
        fi
    done
done
kill_enough "$kills" 20 || fail "only $kills of 24 points ended in a kill of a running backup"
note "$kills backups killed at 24 points; verify passed and committed jobs restored after each"

dst backup "$SCRATCH/large/v2" >/dev/null
last=$(($(job_count) - 1))
rm -rf "$SCRATCH/r"
dst restore "$last" "$SCRATCH/r" >/dev/null
same_tree "$SCRATCH/large/v2" "$SCRATCH/r"
dst verify --deep >/dev/null || fail "deep verify failed at the end"
note "backup after the kills committed as job $last, restores identical, deep verify passes"
