#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_chunk_buckets.sh: SIGKILL the chunk cache's bucketized layout
# (chunk_buckets.h, ssd-cache-layout buckets) at every bucket write
# (pwrite64: a put's compressed write of its bucket, or a refresh of a
# bucket without its dropped chunks at sync), every fsync, every open and
# every truncate, with each compression and lz4 with O_DIRECT (strace's
# syscall injection, so the points are the same on any machine). The layout is driven by
# tests/fault/chunk_buckets_driver, which runs the product's code. After
# each kill the layout must reopen, serve only chunks that some run put,
# byte for byte, take a full run after it, and serve right bytes again. A
# kill falls between system calls, so no write is torn: nothing the layout
# lists may then be damaged (torn and flipped bytes are the unit tests'
# part, tests/unit/test_chunk_buckets.c). The layout is a cache, not the
# store: the store's fault sweeps do not apply.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

# The layout does not depend on the kind of container store: one run is enough.
[ "$(store_kind)" = pool ] || { note "the chunk buckets are the same on every container store: run on pool only"; exit 77; }
strace_kill_setup
DRIVER="${TOP_BUILDDIR:?}/tests/fault/chunk_buckets_driver"
[ -x "$DRIVER" ] || fail "no $DRIVER (make check builds it)"
N=30
# O_DIRECT too (with lz4) when the scratch directory's file system takes it.
if CHUNK_BUCKETS_O_DIRECT=1 "$DRIVER" run "$SCRATCH/probe" lz4 9 3 2>/dev/null; then
    runs="none:0 lz4:0 zstd:0 lz4:1"
else
    runs="none:0 lz4:0 zstd:0"
    note "no O_DIRECT in $SCRATCH: swept without it"
fi
rm -rf "$SCRATCH/probe"

kills=0
variant=0
variants=$(echo $runs | wc -w)
for r in $runs; do
    codec=${r%:*}
    if [ "${r#*:}" = 1 ]; then export CHUNK_BUCKETS_O_DIRECT=1; else unset CHUNK_BUCKETS_O_DIRECT; fi
    kind=0
    for sc in pwrite64 fsync openat ftruncate; do
        kind=$((kind + 1))
        kill_kind "$variant" "$kind" "$variants" || continue
        driver_kill_points "$sc" "$codec" "$codec, O_DIRECT ${r#*:}"
    done
    variant=$((variant + 1))
done
kill_enough "$kills" 60 || fail "only $kills kill points: the sweep no longer reaches the layout's writes"
note "$kills kills"
