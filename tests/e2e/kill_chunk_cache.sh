#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_chunk_cache.sh: SIGKILL a real-mode replay through the chunk cache
# (ssd-cache-granularity chunk, policy cdac-lru, 64 KiB segments) at its
# segment writes (pwrite64), the writes, fsyncs and renames of its index
# save, with segments reclaimed by eviction and by the cleaner, chunks
# stored as they are and compressed (clean with lz4, evict with zstd)
# (strace's syscall injection); the cleaner's pass reads whole containers
# (ssd-cache-chunk-fetch container), so the puts of offered chunks are
# among the writes killed. After each kill the next replay of the same trace
# with --verify (every file's digest checked) must succeed on what the
# kill left, a third must too, and the store must still verify: the cache
# never serves wrong bytes and never touches the store. The log's own
# steps are swept in kill_chunk_log.sh; this is the whole read path.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

strace_kill_setup
two_job_trace 41 5 0.9 150
awk -F'\t' 'NF == 2' "$SCRATCH/trace" > "$SCRATCH/whole"
fetch_of() { if [ "$1" = clean ]; then echo container; else echo chunk; fi; }
replay() {
    "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-granularity chunk" -p"ssd-cache-policy cdac-lru" -p"ssd-cache-chunk-fetch $(fetch_of "$2")" \
        -p"ssd-cache-directory $1" -p"ssd-cache-segment-size 64K" -p"ssd-cache-size 10%" \
        -p"ssd-cache-segment-reclaim $2" -p"ssd-cache-compression $comp" read-file --trace "$SCRATCH/whole" --verify
}
kills=0
for run in evict:none clean:none clean:lz4 evict:zstd; do
    reclaim=${run%:*}
    comp=${run#*:}
    for sc in pwrite64 write fsync rename; do
        rm -rf "$SCRATCH/count"
        strace -f -qq -o "$SCRATCH/calls" -e trace="$sc" \
            "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-granularity chunk" -p"ssd-cache-policy cdac-lru" -p"ssd-cache-chunk-fetch $(fetch_of "$reclaim")" \
            -p"ssd-cache-directory $SCRATCH/count" -p"ssd-cache-segment-size 64K" -p"ssd-cache-size 10%" \
            -p"ssd-cache-segment-reclaim $reclaim" -p"ssd-cache-compression $comp" read-file --trace "$SCRATCH/whole" \
            --verify >/dev/null 2>&1
        n=$(grep -c "$sc(" "$SCRATCH/calls" || true)
        [ "$n" -gt 0 ] || continue
        step=$(( (n + 5) / 6 ))   # at most about six kill points per call kind
        i=1
        while [ "$i" -le "$n" ]; do
            kill_point "$i" "$n" || { i=$((i + 1)); continue; }
            C="$SCRATCH/c-$reclaim-$comp-$sc-$i"
            set +e
            strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$i" \
                "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-granularity chunk" -p"ssd-cache-policy cdac-lru" -p"ssd-cache-chunk-fetch $(fetch_of "$reclaim")" \
                -p"ssd-cache-directory $C" -p"ssd-cache-segment-size 64K" -p"ssd-cache-size 10%" \
                -p"ssd-cache-segment-reclaim $reclaim" -p"ssd-cache-compression $comp" read-file --trace "$SCRATCH/whole" \
                --verify >/dev/null 2>&1
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$reclaim $comp: replay not killed at $sc #$i (exit $rc)"
            kills=$((kills + 1))
            replay "$C" "$reclaim" >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$reclaim $comp: the replay after the kill at $sc #$i failed"; }
            replay "$C" "$reclaim" >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$reclaim $comp: the second replay after the kill at $sc #$i failed"; }
            rm -rf "$C"
            i=$((i + step))
        done
    done
done
kill_enough "$kills" 20 || fail "only $kills kill points"
dst verify >/dev/null || fail "the store does not verify after the sweep"
