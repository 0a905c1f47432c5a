#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_gc_copy.sh: SIGKILL `destor gc` at every system call that can change
# what is on disk (as kill_delete_gc.sh) on a store holding both kinds of
# work: dead containers, which gc frees first, and sparse ones, whose live
# chunks it copies out before freeing them. After each kill: verify --deep
# passes and the live job restores byte for byte; then a gc finishes the
# work (the one after finds nothing to free) and all of it holds again.
# And a later backup of b with the files cache (job 1 its parent) writes
# the records a full read does: a kill that leaves copies and originals
# both must leave index/COPIES (by the next open's rebuild), or the
# parent's chunks would be taken where the index does not name them.
# Skipped when strace cannot inject.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

strace_kill_setup

printf 'container-size 128K\n' >> "$CONFIG"
# a: live and mortal files alternating; b: the live ones (job 1, kept);
# c: data of its own (job 2): deleting jobs 0 and 2 leaves containers
# sparse and dead
mkdir -p "$SCRATCH/a" "$SCRATCH/b" "$SCRATCH/c"
i=0
while [ "$i" -lt 8 ]; do
    pseudo_random 50000 $((100 + i)) > "$SCRATCH/a/f$i.live"
    pseudo_random 70000 $((200 + i)) > "$SCRATCH/a/f$i.mortal"
    cp "$SCRATCH/a/f$i.live" "$SCRATCH/b/"
    i=$((i + 1))
done
pseudo_random 300000 300 > "$SCRATCH/c/g"
sleep 3 # older than the files cache's racy margin (2 s) when job 1 starts
T="$SCRATCH/template"
on() { W=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@"; }
for t in a b c; do on "$T" backup "$SCRATCH/$t" >/dev/null; done
on "$T" delete 0 2 >/dev/null
cp -a "$T" "$SCRATCH/probe"
on "$SCRATCH/probe" gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" containers_dead)" -gt 0 ] || fail "no dead container to free"
[ "$(json_field "$SCRATCH/gc.json" containers_copied)" -gt 0 ] || fail "no sparse container copied"

SYSCALLS="openat write pwrite64 fsync fdatasync rename renameat renameat2 unlink unlinkat fallocate ftruncate mkdir"

# sound W: verify --deep passes and job 1 restores as b.
sound() {
    on "$1" verify --deep >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; return 1; }
    rm -rf "$1.r"
    on "$1" restore 1 "$1.r" >/dev/null && same_tree "$SCRATCH/b" "$1.r"
}

# same_later W: a backup of b into W (the files cache on) and into a copy
# of W (off) write the same job 3; counts in `unlooked` those that took
# job 1's chunks without a lookup.
unlooked=0
same_later() {
    rm -rf "$1.full"
    cp -a "$1" "$1.full"
    # not through on(), which sets W
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" backup --json "$SCRATCH/b" > "$SCRATCH/later.json" || return 1
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1.full" backup --no-files-cache "$SCRATCH/b" >/dev/null ||
        return 1
    for f in job_meta_data refcount; do
        cmp -s "$1/jobs/00000003/$f" "$1.full/jobs/00000003/$f" || { echo "$f of job 3 differs" >&2; return 1; }
    done
    [ "$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["index"]["db_reads"])' "$SCRATCH/later.json")" -gt 0 ] ||
        unlooked=$((unlooked + 1))
    rm -rf "$1.full"
}

kills=0
for sc in $SYSCALLS; do
    rm -rf "$SCRATCH/count"
    cp -a "$T" "$SCRATCH/count"
    strace -f -qq -o "$SCRATCH/trace" -e trace="$sc" "$DESTOR_BIN" -c "$CONFIG" \
        -p"working-directory $SCRATCH/count" gc >/dev/null 2>&1 || fail "the traced gc failed"
    # the Nth call of any thread is a kill point (the copies are written on
    # a thread of their own)
    n=$(grep "$sc(" "$SCRATCH/trace" | awk '{ c[$1]++ } END { m = 0; for (t in c) if (c[t] > m) m = c[t]; print m }')
    i=1
    while [ "$i" -le "$n" ]; do
        kill_point "$i" "$n" || { i=$((i + 1)); continue; }
        W="$SCRATCH/w-$sc-$i"
        cp -a "$T" "$W"
        set +e
        strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$i" \
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" gc >/dev/null 2>&1
        rc=$?
        set -e
        [ "$rc" -eq 137 ] || fail "not killed at $sc #$i (exit $rc)"
        kills=$((kills + 1))
        sound "$W" || fail "after the kill at $sc #$i"
        same_later "$W" || fail "the files cache after the kill at $sc #$i"
        on "$W" gc >/dev/null || fail "gc after the kill at $sc #$i"
        on "$W" gc --json > "$SCRATCH/gc.json"
        [ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "the gc after the kill at $sc #$i left work"
        sound "$W" || fail "after finishing what the kill at $sc #$i stopped"
        rm -rf "$W" "$W.r"
        i=$((i + 1))
    done
done
kill_enough "$kills" 50 || fail "only $kills kill points"
[ "$unlooked" -gt 0 ] || fail "the files cache looked job 1's chunks up after every kill: the test tests nothing"
note "gc freeing and copying ($(store_kind) store): killed at each of $kills calls; verify --deep and restore held each time, and a later backup's files cache ($unlooked times without lookups) wrote what a full read does"
