#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gc_disk_full.sh: the disk fills while gc copies live chunks out of sparse
# containers. Every write gc makes to the containers and to a rewritten
# job_meta_data fails with ENOSPC from the Nth on (the fault shim), for each
# N: gc stops with one destor: line (exit 1), nothing a live job names is
# lost (verify --deep passes, the live job restores byte for byte), and the
# next gc, with room again, finishes the work (a third finds nothing).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

SHIM="$TOP_BUILDDIR/tests/fault/fault_shim.so"
[ -f "$SHIM" ] || fail "no fault shim at $SHIM (make builds it before this test)"

printf 'container-size 128K\n' >> "$CONFIG"
# job 0: live and dead files alternating (each container about 40% live);
# job 1 (b): the live ones, which job 0's deletion leaves spread thin
mkdir -p "$SCRATCH/a" "$SCRATCH/b"
i=0
while [ "$i" -lt 16 ]; do
    pseudo_random 50000 $((100 + i)) > "$SCRATCH/a/f$i.live"
    pseudo_random 70000 $((200 + i)) > "$SCRATCH/a/f$i.mortal"
    cp "$SCRATCH/a/f$i.live" "$SCRATCH/b/"
    i=$((i + 1))
done
T="$SCRATCH/template"
on() { W=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@"; }
for t in a b; do on "$T" backup "$SCRATCH/$t" >/dev/null; done
on "$T" delete 0 >/dev/null

# full_from WHAT N W: gc on W with every write to paths holding WHAT failing
# from the Nth on; prints the number of such writes (FAULT_COUNT_FILE).
full_from() {
    set +e
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" LD_PRELOAD="$SHIM" FAULT_CALL=write FAULT_AT="$2" \
        FAULT_REPEAT=0 FAULT_ERRNO=ENOSPC FAULT_PATH="$1" FAULT_COUNT_FILE="$SCRATCH/counts" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $3" gc >/dev/null 2>"$SCRATCH/err"
    rc=$?
    set -e
}

cases=0
# the rewritten records go to a new file of a unique name in the job's
# directory (.destor-*.tmp, renamed over job_meta_data, issue 35), as does
# its refcount: 9 cases in all where 29a4157 had 8 (7 container writes and
# one to job_meta_data.new)
for what in containers jobs/00000001/.destor-; do
    rm -rf "$SCRATCH/count"
    cp -a "$T" "$SCRATCH/count"
    full_from "$what" 1000000 "$SCRATCH/count"
    [ "$rc" -eq 0 ] || fail "gc without a fault exited $rc"
    n=$(awk '$1 == "write" { print $2 }' "$SCRATCH/counts")
    [ "${n:-0}" -ge 1 ] || fail "gc made no write to $what (nothing copied?)"
    i=1
    while [ "$i" -le "$n" ]; do
        W="$SCRATCH/w-$i"
        rm -rf "$W" "$W.r"
        cp -a "$T" "$W"
        full_from "$what" "$i" "$W"
        [ "$rc" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "gc with $what full from write $i exited $rc"; }
        grep -q '^destor: .*No space left on device' "$SCRATCH/err" || fail "no ENOSPC line: $(cat "$SCRATCH/err")"
        on "$W" verify --deep >/dev/null || fail "verify after a full disk at $what write $i"
        on "$W" restore 1 "$W.r" >/dev/null && same_tree "$SCRATCH/b" "$W.r"
        on "$W" gc >/dev/null || fail "gc after room came back ($what write $i)"
        on "$W" gc --json > "$SCRATCH/gc.json"
        [ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "the next gc did not finish ($what $i)"
        rm -rf "$W.r"
        on "$W" restore 1 "$W.r" >/dev/null && same_tree "$SCRATCH/b" "$W.r"
        on "$W" verify --deep >/dev/null || fail "verify after the next gc ($what write $i)"
        rm -rf "$W" "$W.r"
        cases=$((cases + 1))
        i=$((i + 1))
    done
done
note "disk full at each of $cases writes of gc's copying (containers, rewritten records): stopped cleanly, nothing lost, the next gc finished"
