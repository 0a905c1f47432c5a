#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_chunk_log.sh: SIGKILL the chunk cache's segment log (chunk_log.h) at
# every segment write (pwrite64), every open, write, fsync and rename of
# its chunklog.meta save, and every truncate, with segments reclaimed by
# eviction, by the cleaner and by reinsertion (the kept chunks rewritten),
# with chunks stored as they are and
# compressed (lz4 and zstd: the cleaner moves stored bytes; O_DIRECT with
# lz4) (strace's syscall injection, so the points
# are the same on any machine). The log is driven by
# tests/fault/chunk_log_driver, which runs the product's chunk_log code.
# After each kill the log must reopen, serve only chunks that some run put,
# byte for byte (a damaged one may be a miss), take a full run after it,
# and serve right bytes again. A kill falls between system calls, so no
# write is torn: nothing the log lists may then be damaged (torn and
# flipped bytes are the unit tests' part, tests/unit/test_chunk_log.c). The store's fault sweeps do not apply: the
# log is a cache, not the store; `verify` sees the store only.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

# The log does not depend on the kind of container store: one run is enough.
[ "$(store_kind)" = pool ] || { note "the chunk log is the same on every container store: run on pool only"; exit 77; }
strace_kill_setup
DRIVER="${TOP_BUILDDIR:?}/tests/fault/chunk_log_driver"
[ -x "$DRIVER" ] || fail "no $DRIVER (make check builds it)"
N=60
# O_DIRECT too when the scratch directory's file system takes it.
if CHUNK_LOG_O_DIRECT=1 "$DRIVER" run "$SCRATCH/probe" evict 9 3 2>/dev/null; then
    directs="0 1"
else
    directs=0
    note "no O_DIRECT in $SCRATCH: swept without it"
fi
rm -rf "$SCRATCH/probe"

kills=0
variant=0
# none with and without O_DIRECT; lz4 and zstd without, lz4 with it
runs="none:0 lz4:0 zstd:0"
case " $directs " in *" 1 "*) runs="$runs none:1 lz4:1" ;; esac
variants=$(( $(echo $runs | wc -w) * 3 ))
for run in $runs; do
    codec=${run%:*}
    direct=${run#*:}
    if [ "$direct" = 1 ]; then export CHUNK_LOG_O_DIRECT=1; else unset CHUNK_LOG_O_DIRECT; fi
    if [ "$codec" = none ]; then unset CHUNK_LOG_COMPRESSION; else export CHUNK_LOG_COMPRESSION="$codec"; fi
    for mode in evict clean reinsert; do
        kind=0
        for sc in pwrite64 write fsync fdatasync rename renameat renameat2 ftruncate openat; do
            kind=$((kind + 1))
            kill_kind "$variant" "$kind" "$variants" || continue
            driver_kill_points "$sc" "$mode" "$mode, $codec, O_DIRECT $direct"
        done
        variant=$((variant + 1))
    done
done
kill_enough "$kills" 100 || fail "only $kills kill points: the sweep no longer reaches the log's writes"
note "$kills kills"
