#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cache_usage_errors.sh: a command that ends in a usage error (exit 2) does
# not open the SSD cache, so a mistyped one-off command with another
# granularity leaves a warm cache as it was (opening it at the other
# granularity rebuilds it): read-file of a job or path not there, an output
# inside the store, a compiled trace of the other granularity, a stale one,
# --verify with a compiled trace, a chunk cache larger than its file system
# (exit 2, in little memory). A command that does run rebuilds it.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 41 3 0.8 40
CACHE="$SCRATCH/cache"
warm() { dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $CACHE" -p"ssd-cache-size 100%" "$@"; }
chunk() {
    dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-directory $CACHE" \
        -p"ssd-cache-size 100%" "$@"
}
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.ctr"
dst -p"ssd-cache-granularity chunk" trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.cch"
warm read-file --trace "$SCRATCH/trace" >/dev/null
# snapshot: every cache file's name, size, mtime and bytes
snapshot() { (cd "$CACHE" && find . -type f -printf '%p %s %T@\n' | sort && find . -type f -exec md5sum {} + | sort); }
snapshot > "$SCRATCH/warm.snap"
[ -s "$SCRATCH/warm.snap" ] || fail "no warm cache"
path=$(head -1 "$SCRATCH/trace" | cut -f2)

unchanged() {
    snapshot | cmp -s - "$SCRATCH/warm.snap" || fail "'$*' (exit 2) changed the warm cache"
}
n=0
for args in "read-file 0 no/such/file" "read-file 9 $path" "read-file 0 $path -o $SCRATCH/working/out" \
    "read-file --trace $SCRATCH/trace.ctr" "read-file --trace $SCRATCH/trace.cch --verify"; do
    # shellcheck disable=SC2086 # the words of each command
    expect_status 2 chunk $args
    unchanged chunk $args
    n=$((n + 1))
done
# a chunk trace at container granularity, into a warm chunk cache
rm -rf "$CACHE"
chunk read-file --trace "$SCRATCH/trace" >/dev/null
snapshot > "$SCRATCH/warm.snap"
expect_status 2 warm read-file --trace "$SCRATCH/trace.cch"
unchanged warm read-file --trace "$SCRATCH/trace.cch"
expect_status 2 warm read-file 0 no/such/file
unchanged warm read-file 0 no/such/file
# stale: a job deleted since the trace was compiled
dst delete 1 >/dev/null
expect_status 2 chunk read-file --trace "$SCRATCH/trace.cch"
grep -q "is stale" "$SCRATCH/err" || fail "no stale error: $(cat "$SCRATCH/err")"
unchanged chunk read-file --trace "$SCRATCH/trace.cch" "(stale)"
n=$((n + 3))
# a chunk cache larger than its file system: refused (exit 2) before the
# cache is touched, in little memory (its segment table and metadata file
# were sized by ssd-cache-size: 100T took 1 GB and wrote 205 MB, 999T
# aborted on an allocation); simulation, which holds no such table, runs
limit=""
[ "${DESTOR_SANITIZERS:-no}" = yes ] || limit="ulimit -v 1048576;"
grep '^0' "$SCRATCH/trace" > "$SCRATCH/trace0" # job 1 is deleted
for size in 100T 999T; do
    set +e
    sh -c "$limit"' "$@"' sh "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" \
        -p"ssd-cache-directory $CACHE" -p"ssd-cache-size $size" read-file --trace "$SCRATCH/trace0" >/dev/null 2>"$SCRATCH/err"
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "ssd-cache-size $size: exit $rc, expected 2: $(cat "$SCRATCH/err")"
    grep -q "^destor: SSD chunk cache: ssd-cache-size needs .* more than the file system of" "$SCRATCH/err" ||
        fail "ssd-cache-size $size: $(cat "$SCRATCH/err")"
    unchanged chunk -p"ssd-cache-size $size" "(too large)"
    dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-size $size" --simulate \
        read-file --trace "$SCRATCH/trace0" >/dev/null || fail "a simulated $size chunk cache"
done
n=$((n + 2))
# the same cache opened by a command that runs: rebuilt (the snapshot sees it)
warm read-file 0 "$path" -o "$SCRATCH/out" >/dev/null 2>&1
snapshot | cmp -s - "$SCRATCH/warm.snap" && fail "a read at the other granularity left the cache as it was"
note "$n usage errors left a warm cache of the other granularity as it was"
