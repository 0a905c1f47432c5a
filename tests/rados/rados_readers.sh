#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_readers.sh: gc against readers on other machines. A reader in
# another working directory (machine) holds a lease on destor.readers,
# renewed while it runs: gc from the writer's working directory, which
# cannot see that machine's READERS lock, defers (nothing freed) while the
# reader is mid-restore, also past the lease's duration, and the reader's
# restore comes out whole; once it is done gc frees. A reader that stops
# (a dead machine) stops renewing: gc waits at most the lease's duration
# and then collects; resumed, that reader reads no further container
# (its lease lapsed) and fails.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"
SHIM="$TOP_BUILDDIR/tests/rados/rados_shim.so"
lifecycle_trees

# paused_reader DIR JOB: restore JOB from working directory DIR in the
# background, paused at its first container read (its pid in $reader).
paused_reader() {
    rm -f "$SCRATCH/paused"
    rm -rf "$SCRATCH/r"
    env LD_PRELOAD="$SHIM" RADOS_SHIM_READ_PAUSE="$SCRATCH/paused" "$DESTOR_BIN" -c "$CONFIG" \
        -p"working-directory $SCRATCH/$1" -p"rados-namespace s" restore "$2" "$SCRATCH/r" > /dev/null 2> "$SCRATCH/reader.err" &
    reader=$!
    tries=0
    until [ -e "$SCRATCH/paused" ]; do
        tries=$((tries + 1))
        [ "$tries" -lt 300 ] || fail "the reader never read a container"
        sleep 0.1
    done
}
gc_field() { at wa gc --json > "$SCRATCH/gc.json" && json_field "$SCRATCH/gc.json" "$1"; }

at wa backup "$SCRATCH/a" > /dev/null
at wa backup "$SCRATCH/b" > /dev/null
at wa delete 0 > /dev/null
paused_reader wb 1
[ "$(gc_field deferred)" = True ] || fail "gc did not defer to a reader on another machine: $(cat "$SCRATCH/gc.json")"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -eq 0 ] || fail "gc freed containers under a reader"
sleep 4 # past the lease's 3 s: the reader renews it
[ "$(gc_field deferred)" = True ] || fail "gc did not defer once the reader's first lease ran out"
rm -f "$SCRATCH/paused"
wait "$reader" || { cat "$SCRATCH/reader.err" >&2; fail "the paused reader failed"; }
same_tree "$SCRATCH/b" "$SCRATCH/r"
[ "$(gc_field deferred)" = False ] || fail "gc deferred with no reader left"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -gt 0 ] || fail "gc freed nothing once the reader was done"
note "a reader on another machine holds gc off (deferred, nothing freed) past its first lease; gc frees once it is done"

at wa backup "$SCRATCH/c" > /dev/null
at wa delete 2 > /dev/null
paused_reader wc 1
kill -STOP "$reader"
start=$(date +%s)
[ "$(gc_field deferred)" = False ] || fail "gc deferred to a stopped reader whose lease ran out"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -gt 0 ] || fail "gc freed nothing past a dead reader"
took=$(($(date +%s) - start))
[ "$took" -le 15 ] || fail "gc waited $took s for a dead reader's 3 s lease"
# resumed, the stopped reader reads nothing more: its lease lapsed
rm -f "$SCRATCH/paused"
kill -CONT "$reader"
set +e
wait "$reader"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a reader whose lease lapsed went on reading"
grep -q "lease .* lapsed" "$SCRATCH/reader.err" || fail "the lapsed reader's error: $(cat "$SCRATCH/reader.err")"
rm -rf "$SCRATCH/r"
at wc restore 1 "$SCRATCH/r" > /dev/null
same_tree "$SCRATCH/b" "$SCRATCH/r"
at wc verify --deep > /dev/null || fail "the store does not verify after gc"
note "a stopped reader's lease runs out: gc waited ${took} s and collected; resumed, the reader stops (exit $rc)"
