#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_writers.sh: two machines (working directories wa and wb) back up
# into one rados store at the same moment, round after round. The store's
# RADOS lock lets one writer in at a time: each backup either commits or
# fails with exit 1 (DESTOR_ERROR_LOCKED, destor(1)) and one `destor:` line
# naming the other writer's lock, having committed nothing; a refused
# backup run again once the other is done commits. No job is lost: the
# catalog holds exactly the backups that succeeded, each restores byte for
# byte from either machine, the writer lock moves with the writer (each
# machine's backup of a tree the other stored first stores nothing new),
# and verify --deep passes from both.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"

rounds=4
: > "$SCRATCH/committed"
refused=0
r=0
while [ "$r" -lt "$rounds" ]; do
    seed=$((100 + r * 2))
    for m in wa wb; do
        mkdir -p "$SCRATCH/src-$r-$m"
        pseudo_random 200000 "$seed" > "$SCRATCH/src-$r-$m/$m.bin"
        seed=$((seed + 1))
        pseudo_random 100000 7 > "$SCRATCH/src-$r-$m/shared.bin"
    done
    at wa backup --json "$SCRATCH/src-$r-wa" > "$SCRATCH/wa.json" 2> "$SCRATCH/wa.err" &
    pa=$!
    at wb backup --json "$SCRATCH/src-$r-wb" > "$SCRATCH/wb.json" 2> "$SCRATCH/wb.err" &
    pb=$!
    for m in wa wb; do
        if [ "$m" = wa ]; then p=$pa; else p=$pb; fi
        set +e
        wait "$p"
        rc=$?
        set -e
        if [ "$rc" -eq 0 ]; then
            echo "$(json_field "$SCRATCH/$m.json" job) $r-$m" >> "$SCRATCH/committed"
            continue
        fi
        [ "$rc" -eq 1 ] || { cat "$SCRATCH/$m.err" >&2; fail "round $r: $m's backup exited $rc, not 0 or 1"; }
        [ "$(wc -l < "$SCRATCH/$m.err")" -eq 1 ] && grep -q "^destor: .*another writer holds the store's lock" "$SCRATCH/$m.err" ||
            fail "round $r: $m refused otherwise: $(cat "$SCRATCH/$m.err")"
        refused=$((refused + 1))
        pending="${pending:-} $r-$m"
    done
    r=$((r + 1))
done
# the refused backups again, one at a time: the lock is free (or expires)
for src in ${pending:-}; do
    when_unlocked at "${src#*-}" backup --json "$SCRATCH/src-$src"
    echo "$(json_field "$SCRATCH/out" job) $src" >> "$SCRATCH/committed"
done
n=$(wc -l < "$SCRATCH/committed")
[ "$n" -eq $((rounds * 2)) ] || fail "$n backups committed of $((rounds * 2))"
[ "$(at wb stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])')" -eq "$n" ] ||
    fail "the catalog does not hold exactly the committed backups"
while read -r job src; do
    for m in wa wb; do
        rm -rf "$SCRATCH/r"
        at "$m" restore "$job" "$SCRATCH/r" > /dev/null
        same_tree "$SCRATCH/src-$src" "$SCRATCH/r"
    done
done < "$SCRATCH/committed"
# each machine dedups against the other's chunks
at wa backup --json "$SCRATCH/src-0-wb" > "$SCRATCH/again.json"
[ "$(json_field "$SCRATCH/again.json" stored_bytes)" -eq 0 ] || fail "wa stored wb's tree again"
at wb backup --json "$SCRATCH/src-0-wa" > "$SCRATCH/again.json"
[ "$(json_field "$SCRATCH/again.json" stored_bytes)" -eq 0 ] || fail "wb stored wa's tree again"
at wa verify --deep > /dev/null || fail "the store does not verify from wa"
at wb verify --deep > /dev/null || fail "the store does not verify from wb"
note "$((rounds * 2)) backups from two machines at once: $refused refused (exit 1) and run again, none lost, all restore from both"
