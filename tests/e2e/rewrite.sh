#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rewrite.sh: rewriting during backup (capping, CFL, CBR, HAR, the
# cache-aware filter). Over
# generated versioned trees of several seeds, each algorithm (set so that it
# does rewrite: the test fails if none does) backs up every version; after
# each backup verify --deep passes and every job so far restores byte for
# byte. Then the two copies of a rewritten fingerprint survive delete, gc
# and repair; a backup after rewriting finds every chunk (the index names a
# copy that exists); and a bad value of each rewrite key is exit 2.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

VERSIONS=4
# name, then the lines that set it up: small containers and forcing settings,
# so that a tiny tree fragments enough for each rule to act
set_algorithm() {
    case "$1" in
    no) echo "rewrite-algorithm no" ;;
    capping) printf 'rewrite-algorithm capping 256\nrewrite-capping-level 2\n' ;;
    cfl) printf 'rewrite-algorithm cfl 256\nrewrite-cfl-require 1\nrewrite-cfl-usage-threshold 0.5\n' ;;
    cbr) printf 'rewrite-algorithm cbr 256\nrewrite-cbr-limit 0.5\nrewrite-cbr-minimal-utility 0.1\n' ;;
    har) printf 'rewrite-enable-har yes\nrewrite-har-utilization-threshold 1\nrewrite-har-rewrite-limit 1\n' ;;
    capping+har) printf 'rewrite-algorithm cap\nrewrite-capping-level 3\nrewrite-enable-har yes\n' ;;
    capping+caf) printf 'rewrite-algorithm cap 256\nrewrite-capping-level 2\nrewrite-enable-cache-aware yes\nrestore-cache lru 4\n' ;;
    esac
}

# restore_all W: every job of W restores as the version it was made from.
restore_all() {
    rv=1
    while [ "$rv" -le "$2" ]; do
        rm -rf "$SCRATCH/r"
        "$DESTOR_BIN" -c "$1" restore $((rv - 1)) "$SCRATCH/r" >/dev/null
        same_tree "$3/v$rv" "$SCRATCH/r"
        rv=$((rv + 1))
    done
}

# Each algorithm on one of three seeds' trees (platform_property.py crosses
# every algorithm with every index design over more trees).
for seed in 11 12 13; do
    gen_data "$SCRATCH/data$seed" --preset tiny --versions $VERSIONS --seed $seed
done
for run in no:11 capping:11 har:11 cfl:12 capping+har:12 cbr:13 capping+caf:13; do
    alg=${run%:*}
    seed=${run#*:}
    C="$SCRATCH/$alg-$seed.config"
    cp "$CONFIG" "$C"
    printf 'working-directory "%s/w-%s-%s"\ncontainer-size 128K\n' "$SCRATCH" "$alg" "$seed" >> "$C"
    set_algorithm "$alg" >> "$C"
    rewritten=0
    v=1
    while [ "$v" -le $VERSIONS ]; do
        "$DESTOR_BIN" -c "$C" backup --json "$SCRATCH/data$seed/v$v" > "$SCRATCH/b.json"
        n=$(json_field "$SCRATCH/b.json" rewritten_chunks)
        rewritten=$((rewritten + n))
        [ "$alg" != no ] || [ "$n" -eq 0 ] || fail "rewrite-algorithm no rewrote $n chunks"
        "$DESTOR_BIN" -c "$C" verify --deep >/dev/null || fail "$alg seed $seed: verify --deep after v$v"
        restore_all "$C" "$v" "$SCRATCH/data$seed"
        v=$((v + 1))
    done
    [ "$alg" = no ] || [ "$rewritten" -gt 0 ] || fail "$alg seed $seed rewrote nothing"
    # The index names a copy that exists: the last version again stores nothing new.
    "$DESTOR_BIN" -c "$C" -p"rewrite-algorithm no" -p"rewrite-enable-har no" backup --json \
        "$SCRATCH/data$seed/v$VERSIONS" > "$SCRATCH/b.json"
    [ "$(json_field "$SCRATCH/b.json" new_chunks)" -eq 0 ] || fail "$alg seed $seed: the index lost chunks"
    note "seed $seed $alg: $rewritten chunks rewritten over $VERSIONS versions; every job restores"
done

# Two copies of one fingerprint: deleting the jobs that name either copy,
# gc, and repair keep the rest whole.
C="$SCRATCH/capping-11.config"
"$DESTOR_BIN" -c "$C" delete 0 2 >/dev/null
"$DESTOR_BIN" -c "$C" gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" index_entries_restored)" -gt 0 ] || fail "gc put no entry back at an older copy"
"$DESTOR_BIN" -c "$C" verify --deep >/dev/null || fail "verify --deep after delete and gc"
for job in 1 3; do
    rm -rf "$SCRATCH/r"
    "$DESTOR_BIN" -c "$C" restore $job "$SCRATCH/r" >/dev/null
    same_tree "$SCRATCH/data11/v$((job + 1))" "$SCRATCH/r"
done
"$DESTOR_BIN" -c "$C" repair >/dev/null
"$DESTOR_BIN" -c "$C" verify --deep >/dev/null || fail "verify --deep after repair"
"$DESTOR_BIN" -c "$C" backup "$SCRATCH/data11/v1" >/dev/null
"$DESTOR_BIN" -c "$C" verify --deep >/dev/null || fail "verify --deep after a backup following gc"

# HAR's record: each HAR job leaves one; the others none.
W="$SCRATCH/w-har-11"
[ "$(find "$W/jobs" -name container_utilization | wc -l)" -eq $VERSIONS ] || fail "HAR records missing"
[ "$(find "$SCRATCH/w-cfl-12/jobs" -name container_utilization | wc -l)" -eq 0 ] || fail "a record without HAR"
# A damaged record is warned about and only turns HAR off for one job.
printf 'garbage' > "$(find "$W/jobs" -name container_utilization | sort | tail -1)"
"$DESTOR_BIN" -c "$SCRATCH/har-11.config" delete $VERSIONS >/dev/null # the job without HAR, newest
expect_status 0 "$DESTOR_BIN" -c "$SCRATCH/har-11.config" backup "$SCRATCH/data11/v2"
grep -q "^destor: warning: .*container_utilization: not a container utilization record; HAR rewrites nothing" \
    "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "damaged HAR record not warned about"; }
"$DESTOR_BIN" -c "$SCRATCH/har-11.config" verify --deep >/dev/null

# Every rewrite key refuses a bad value: exit 2 with one destor: line.
for line in "rewrite-algorithm often" "rewrite-algorithm cap 0" "rewrite-algorithm no 5" \
    "rewrite-capping-level 0" "rewrite-cfl-require 0" "rewrite-cfl-usage-threshold 2" \
    "rewrite-enable-cfl-switch 1" "rewrite-cbr-limit -1" "rewrite-cbr-minimal-utility x" \
    "rewrite-enable-har sometimes" "rewrite-har-utilization-threshold 0" "rewrite-har-rewrite-limit 1.5" \
    "rewrite-enable-cache-aware 1"; do
    expect_status 2 dst -p"$line" backup "$SCRATCH/data11/v1"
    grep -q "^destor: .*${line%% *}" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "'$line': error does not name the key"; }
done
