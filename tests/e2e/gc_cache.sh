#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gc_cache.sh: an SSD cache filled (real mode) from a store of three jobs,
# then two jobs deleted and gc run (containers freed, sparse ones emptied
# into new containers): read-file of the remaining job through the same
# cache gives the right bytes (--verify: every file's SHA-256; and one file
# compared whole) under every online policy, twice, and the cache's saved
# entries of freed containers are dropped at open (ssd_freed_dropped), with
# no warning of a rolled-back store.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-size 128K\n' >> "$CONFIG"
lifecycle_trees
T="$SCRATCH/template"
on() { W=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@"; }
for t in a b c; do on "$T" backup "$SCRATCH/$t" >/dev/null; done
printf '0\tonly_a.bin\n0\tshared.bin\n1\tshared.bin\n1\tonly_b.bin\n2\tonly_c.bin\n' > "$SCRATCH/all"
printf '1\tshared.bin\n1\tonly_b.bin\n' > "$SCRATCH/left"

POLICIES=$("$DESTOR_BIN" policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["policies"] if not p["offline"]))')
[ -n "$POLICIES" ] || fail "destor policies listed nothing"
dropped_any=0
for policy in $POLICIES; do
    W="$SCRATCH/w-$policy"
    rm -rf "$W"
    cp -a "$T" "$W"
    cached() {
        on "$W" -p"ssd-cache-policy $policy" -p"ssd-cache-directory $SCRATCH/cache-$policy" -p"ssd-cache-size 16" "$@"
    }
    cached read-file --trace "$SCRATCH/all" --verify >/dev/null || fail "$policy: filling the cache"
    on "$W" delete 0 2 >/dev/null
    on "$W" gc --json > "$SCRATCH/gc.json"
    [ "$(json_field "$SCRATCH/gc.json" containers_freed)" -gt 0 ] || fail "$policy: gc freed nothing"
    [ "$(json_field "$SCRATCH/gc.json" containers_copied)" -gt 0 ] || fail "$policy: gc copied nothing"
    for run in 1 2; do
        cached read-file --trace "$SCRATCH/left" --verify --json > "$SCRATCH/read.json" 2>"$SCRATCH/err" ||
            { cat "$SCRATCH/err" >&2; fail "$policy: read after gc (run $run)"; }
        ! grep -q 'rolled back' "$SCRATCH/err" || fail "$policy: gc taken for a rollback: $(cat "$SCRATCH/err")"
        dropped=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"]["ssd_freed_dropped"])' \
            "$SCRATCH/read.json")
        [ "$run" -eq 2 ] && [ "$dropped" -ne 0 ] && fail "$policy: freed entries dropped again on the second run"
        [ "$run" -eq 1 ] && dropped_any=$((dropped_any + dropped))
        cached read-file 1 only_b.bin -o "$SCRATCH/out" >/dev/null 2>&1 || fail "$policy: read-file after gc"
        cmp -s "$SCRATCH/out" "$SCRATCH/b/only_b.bin" || fail "$policy: other bytes after gc (run $run)"
    done
    rm -rf "$W" "$SCRATCH/cache-$policy"
done
[ "$dropped_any" -gt 0 ] || fail "no policy's cache held a container gc freed (the test proves nothing)"
note "cache filled, then delete and gc: $(echo $POLICIES | wc -w) policies read the right bytes;" \
    "$dropped_any saved entries of freed containers dropped in all"
