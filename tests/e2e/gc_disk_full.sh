#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gc_disk_full.sh: the disk fills while gc runs. Every write gc makes to
# the containers, to a rewritten job_meta_data, or to anything in the store
# (the index, its DIRTY mark, the freed list, reference counts) fails with
# ENOSPC from the Nth on (the fault shim), for each N: gc stops with one
# destor: line (exit 1) that says to make room, a copy that failed leaves
# none of its containers behind, nothing a live job names is lost (verify
# --deep passes, the live job restores byte for byte), a gc with
# gc-live-threshold 0 succeeds while no container can be written, and the
# next gc, with room again, finishes the work (a third finds nothing).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

SHIM="$TOP_BUILDDIR/tests/fault/fault_shim.so"
[ -f "$SHIM" ] || fail "no fault shim at $SHIM (make builds it before this test)"

printf 'container-size 128K\n' >> "$CONFIG"
# job 0: live and dead files alternating (each container about 40% live);
# job 1 (b): the live ones, which job 0's deletion leaves spread thin;
# job 2 (c): data of its own, whose deletion leaves containers empty
mkdir -p "$SCRATCH/a" "$SCRATCH/b" "$SCRATCH/c"
i=0
while [ "$i" -lt 16 ]; do
    pseudo_random 50000 $((100 + i)) > "$SCRATCH/a/f$i.live"
    pseudo_random 70000 $((200 + i)) > "$SCRATCH/a/f$i.mortal"
    cp "$SCRATCH/a/f$i.live" "$SCRATCH/b/"
    i=$((i + 1))
done
pseudo_random 300000 300 > "$SCRATCH/c/g"
# the stores are all named st-*: FAULT_PATH /st- is every file of theirs
T="$SCRATCH/st-template"
on() { W=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@"; }
for t in a b c; do on "$T" backup "$SCRATCH/$t" >/dev/null; done
on "$T" delete 0 2 >/dev/null

# slots W: one past the newest container id the store at W holds.
slots() {
    if [ "$(store_kind)" = files ]; then
        last=$(find "$1/containers" -type f ! -name '.destor-*' -printf '%f\n' | sort | tail -1)
        echo $((0x$last + 1))
    else
        echo $(( ($(stat -c %s "$1/containers.pool") + 131071) / 131072 ))
    fi
}

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
# its refcount; /st- is every write of gc to the store
for what in containers jobs/00000001/.destor- /st-; do
    rm -rf "$SCRATCH/st-count"
    cp -a "$T" "$SCRATCH/st-count"
    full_from "$what" 1000000 "$SCRATCH/st-count"
    [ "$rc" -eq 0 ] || fail "gc without a fault exited $rc"
    n=$(awk '$1 == "write" { print $2 }' "$SCRATCH/counts")
    [ "${n:-0}" -ge 1 ] || fail "gc made no write to $what (nothing copied?)"
    i=1
    while [ "$i" -le "$n" ]; do
        W="$SCRATCH/st-$i"
        rm -rf "$W" "$W.r"
        cp -a "$T" "$W"
        before=$(slots "$W")
        full_from "$what" "$i" "$W"
        [ "$rc" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "gc with $what full from write $i exited $rc"; }
        [ "$(grep -v '^destor: \(note\|warning\): ' "$SCRATCH/err" | grep -c '')" -eq 1 ] ||
            { cat "$SCRATCH/err" >&2; fail "not one error line ($what write $i)"; }
        grep -q '^destor: .*No space left on device.*make room on the file system and run gc again' "$SCRATCH/err" ||
            fail "no ENOSPC line saying what to do: $(cat "$SCRATCH/err")"
        # a container write fails only while copying: the copies go
        if [ "$what" = containers ] || grep -q '^destor: gc stopped copying' "$SCRATCH/err"; then
            [ "$(slots "$W")" -eq "$before" ] || fail "the failed copy left containers ($what write $i)"
        fi
        on "$W" verify --deep >/dev/null || fail "verify after a full disk at $what write $i"
        on "$W" restore 1 "$W.r" >/dev/null && same_tree "$SCRATCH/b" "$W.r"
        # no container can be written: freeing the empty ones needs none
        set +e
        LD_PRELOAD="$SHIM" FAULT_CALL=write FAULT_AT=1 FAULT_REPEAT=0 FAULT_ERRNO=ENOSPC FAULT_PATH=containers \
            ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" -p"gc-live-threshold 0" gc >/dev/null 2>"$SCRATCH/err"
        rc=$?
        set -e
        [ "$rc" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "gc-live-threshold 0 with no room for a container ($what write $i)"; }
        rm -rf "$W.r"
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
# One fsync fails (EIO), for each of gc's: no advice to make room; gc retries a small file's
# publication or stops, and a copy whose freed list was put in place before
# the failure stays counted (the next gc frees it); nothing is lost.
rm -rf "$SCRATCH/st-count"
cp -a "$T" "$SCRATCH/st-count"
LD_PRELOAD="$SHIM" FAULT_CALL=fsync FAULT_AT=1000000 FAULT_PATH=/st- FAULT_COUNT_FILE="$SCRATCH/counts" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/st-count" gc >/dev/null
n=$(awk '$1 == "fsync" { print $2 }' "$SCRATCH/counts")
i=1
while [ "$i" -le "$n" ]; do
    W="$SCRATCH/st-f$i"
    rm -rf "$W" "$W.r"
    cp -a "$T" "$W"
    set +e
    LD_PRELOAD="$SHIM" FAULT_CALL=fsync FAULT_AT=$i FAULT_REPEAT=1 FAULT_ERRNO=EIO FAULT_PATH=/st- \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" gc >/dev/null 2>"$SCRATCH/err"
    rc=$?
    set -e
    [ "$rc" -le 1 ] || { cat "$SCRATCH/err" >&2; fail "gc with fsync $i failing exited $rc"; }
    # an I/O error is no full disk: no advice to make room (decided from the
    # error's code, not its words)
    ! grep -q 'make room' "$SCRATCH/err" || fail "advice to make room after EIO (fsync $i): $(cat "$SCRATCH/err")"
    on "$W" verify --deep >/dev/null || fail "verify after fsync $i failed"
    on "$W" restore 1 "$W.r" >/dev/null && same_tree "$SCRATCH/b" "$W.r"
    on "$W" gc >/dev/null || fail "gc after fsync $i failed"
    on "$W" gc --json > "$SCRATCH/gc.json"
    [ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "the next gc did not finish (fsync $i)"
    on "$W" verify --deep >/dev/null || fail "verify after the next gc (fsync $i)"
    rm -rf "$W" "$W.r"
    cases=$((cases + 1))
    i=$((i + 1))
done

# The freed list finds no room (every write of a new file at the top of the
# store fails): once, gc frees first and lists after; always, gc stops with
# its dead containers freed but not listed (as a kill between leaves them),
# which the next gc lists.
W="$SCRATCH/st-list"
for repeat in 1 0; do
    rm -rf "$W" "$W.r"
    cp -a "$T" "$W"
    on "$W" gc --json > "$SCRATCH/gc.json"
    dead=$(json_field "$SCRATCH/gc.json" containers_dead)
    rm -rf "$W"
    cp -a "$T" "$W"
    set +e
    LD_PRELOAD="$SHIM" FAULT_CALL=write FAULT_AT=1 FAULT_REPEAT=$repeat FAULT_ERRNO=ENOSPC FAULT_PATH="$W/.destor-" \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" -p"gc-live-threshold 0" gc >/dev/null 2>"$SCRATCH/err"
    rc=$?
    set -e
    if [ "$repeat" -eq 1 ]; then
        [ "$rc" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "gc listing after freeing exited $rc"; }
    else
        [ "$rc" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "gc with no room for its list exited $rc"; }
        grep -q "^destor: .*freed.*No space left on device; make room" "$SCRATCH/err" || fail "not the list's error: $(cat "$SCRATCH/err")"
    fi
    on "$W" verify --deep >/dev/null || fail "verify after a list with no room (repeat $repeat)"
    on "$W" restore 1 "$W.r" >/dev/null && same_tree "$SCRATCH/b" "$W.r"
    on "$W" -p"gc-live-threshold 0" gc --json > "$SCRATCH/gc.json"
    [ "$(json_field "$SCRATCH/gc.json" containers_dead)" -eq 0 ] || fail "dead containers left (repeat $repeat)"
    on "$W" -p"gc-live-threshold 0" gc --json > "$SCRATCH/gc.json"
    [ "$(json_field "$SCRATCH/gc.json" containers_already_freed)" -eq "$dead" ] ||
        fail "$(json_field "$SCRATCH/gc.json" containers_already_freed) of $dead freed containers listed (repeat $repeat)"
done
note "disk full at each of gc's writes (containers, rewritten records, every file of the store), or one fsync failing, $cases cases: stopped cleanly saying what to do, nothing lost, the next gc finished"
