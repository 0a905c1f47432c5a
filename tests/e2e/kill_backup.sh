#!/bin/sh
# kill_backup.sh: SIGKILL a running backup at several points; after each
# kill the committed job restores identical, stat works, and at the end a
# new backup succeeds and restores identical too.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/small" --preset tiny --seed 3
gen_data "$SCRATCH/large" --size 160M --versions 1 --seed 4
dst backup "$SCRATCH/small/v1" >/dev/null

# Time one whole backup of the large tree elsewhere, then kill at fractions
# of that time, so the kill points spread over the run on any machine.
t0=$(date +%s.%N)
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/timing" backup "$SCRATCH/large/v1" >/dev/null
t1=$(date +%s.%N)
rm -rf "$SCRATCH/timing"
kills=0
for frac in 0.02 0.1 0.2 0.35 0.5 0.65 0.8 0.9 0.97; do
    delay=$(awk -v a="$t0" -v b="$t1" -v f="$frac" 'BEGIN { printf "%.3f", (b - a) * f }')
    "$DESTOR_BIN" -c "$CONFIG" backup "$SCRATCH/large/v1" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    if kill -9 "$pid" 2>/dev/null; then
        kills=$((kills + 1))
    fi
    wait "$pid" 2>/dev/null || true
    echo "# killed after ${delay}s"
    rm -rf "$SCRATCH/r"
    dst restore 0 "$SCRATCH/r" >/dev/null
    same_tree "$SCRATCH/small/v1" "$SCRATCH/r"
    dst stat >/dev/null
done
[ "$kills" -ge 5 ] || fail "only $kills backups were still running when killed"
note "$kills backups killed; job 0 intact after each"

dst backup "$SCRATCH/large/v1" >/dev/null
last=$(dst stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["jobs"][-1]["job"])')
rm -rf "$SCRATCH/r"
dst restore "$last" "$SCRATCH/r" >/dev/null
same_tree "$SCRATCH/large/v1" "$SCRATCH/r"
note "backup after the kills committed as job $last and restores identical"
