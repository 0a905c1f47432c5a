#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_delete_gc.sh: SIGKILL `destor delete` and `destor gc` at every system
# call that can change what is on disk (strace's syscall injection: each
# open, write, fsync, rename, unlink, hole punch, truncate and mkdir), on a
# store of three jobs sharing chunks. A kill before a call leaves what a
# kill at any read-only call since the previous such call leaves, so these
# points cover every state a kill can leave. After each kill, before anything
# else runs: verify --deep passes and the job that is not deleted restores
# byte for byte; a backup of job 0's tree (whose containers a gc may have
# been freeing) restores exactly; then repeating the command finishes the
# work (a second gc finds nothing left to free) and all of it holds again. Skipped when strace
# cannot inject. gc's rewritten records go to a unique new file opened in
# the job's directory (issue 35): one openat more, 157 kill points for gc
# where 29a4157 had 156 (delete: 101, as before).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

strace_kill_setup

printf 'container-size 128K\n' >> "$CONFIG"
lifecycle_trees
on() { W=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@"; }
for t in a b c; do on "$SCRATCH/jobs3" backup "$SCRATCH/$t" >/dev/null; done
cp -a "$SCRATCH/jobs3" "$SCRATCH/deleted2"
on "$SCRATCH/deleted2" delete 0 2 >/dev/null

SYSCALLS="openat write pwrite64 fsync fdatasync rename renameat renameat2 unlink unlinkat fallocate ftruncate mkdir"

# sound W: verify --deep passes and job 1 restores as b.
sound() {
    on "$1" verify --deep >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; return 1; }
    rm -rf "$1.r"
    on "$1" restore 1 "$1.r" >/dev/null && same_tree "$SCRATCH/b" "$1.r"
}

# finish_delete W: delete whichever of jobs 0 and 2 the kill left live.
finish_delete() {
    for j in 0 2; do
        if on "$1" list "$j" >/dev/null 2>&1; then on "$1" delete "$j" >/dev/null; fi
    done
}

# finish_gc W: gc again; then a third finds nothing left.
finish_gc() {
    on "$1" gc >/dev/null
    on "$1" gc --json > "$SCRATCH/gc.json"
    [ "$(json_field "$SCRATCH/gc.json" containers_dead)" -eq 0 ] || { echo "gc left dead containers" >&2; return 1; }
}

# sweep NAME TEMPLATE FINISH ARGS...: kill `destor ARGS` at each point.
sweep() {
    name=$1 template=$2 finish=$3
    shift 3
    kills=0
    for sc in $SYSCALLS; do
        rm -rf "$SCRATCH/count"
        cp -a "$template" "$SCRATCH/count"
        strace -f -qq -o "$SCRATCH/trace" -e trace="$sc" "$DESTOR_BIN" -c "$CONFIG" \
            -p"working-directory $SCRATCH/count" "$@" >/dev/null 2>&1 || fail "$name: the traced run failed"
        # strace counts calls per thread (gc writes its copies on a thread
        # of its own): the Nth call of any thread is a kill point
        n=$(grep "$sc(" "$SCRATCH/trace" | awk '{ c[$1]++ } END { m = 0; for (t in c) if (c[t] > m) m = c[t]; print m }')
        i=1
        while [ "$i" -le "$n" ]; do
            kill_point "$i" "$n" || { i=$((i + 1)); continue; }
            W="$SCRATCH/w-$sc-$i"
            cp -a "$template" "$W"
            set +e
            strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$i" \
                "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" "$@" >/dev/null 2>&1
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$name: not killed at $sc #$i (exit $rc)"
            kills=$((kills + 1))
            sound "$W" || fail "$name: after the kill at $sc #$i"
            # a backup next must not take chunks of containers being freed
            on "$W" backup "$SCRATCH/a" >/dev/null || fail "$name: backup after the kill at $sc #$i"
            on "$W" restore 3 "$W.a" >/dev/null && same_tree "$SCRATCH/a" "$W.a"
            $finish "$W" || fail "$name: finishing after the kill at $sc #$i"
            on "$W" gc >/dev/null || fail "$name: gc after the kill at $sc #$i"
            sound "$W" || fail "$name: after finishing what the kill at $sc #$i stopped"
            on "$W" restore 3 "$W.a2" >/dev/null && same_tree "$SCRATCH/a" "$W.a2"
            rm -rf "$W" "$W.r" "$W.a" "$W.a2"
            i=$((i + 1))
        done
    done
    kill_enough "$kills" 20 || fail "$name: only $kills kill points"
    note "$name ($(store_kind) store): killed at each of $kills calls; verify --deep and restore held each time"
}

sweep "delete 0 2" "$SCRATCH/jobs3" finish_delete delete 0 2
sweep "gc" "$SCRATCH/deleted2" finish_gc gc
