#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-corpus.sh: replay every fuzz target's seed corpus and saved crash
# inputs (tests/fuzz/corpus/TARGET, tests/fuzz/regressions/TARGET) through
# its standalone build. Fails if any input crashes, aborts or trips a
# sanitizer (with ./configure --enable-sanitizers), or if a target has no
# corpus at all.
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source directory}"
: "${TOP_BUILDDIR:?TOP_BUILDDIR must name the build directory}"

TARGETS="config file_record job_meta container manifest refcount trace_line cache_meta compiled_trace cache_codec"
# Sanitizer findings must fail the run (harmless without sanitizers).
ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS UBSAN_OPTIONS

status=0
for t in $TARGETS; do
    bin="$TOP_BUILDDIR/tests/fuzz/fuzz_$t"
    corpus="$TOP_SRCDIR/tests/fuzz/corpus/$t"
    regressions="$TOP_SRCDIR/tests/fuzz/regressions/$t"
    if [ ! -x "$bin" ]; then
        echo "FAIL: $bin is not built" >&2
        status=1
        continue
    fi
    if [ -z "$(ls -A "$corpus" 2>/dev/null)" ]; then
        echo "FAIL: no seed corpus in $corpus" >&2
        status=1
        continue
    fi
    out=$("$bin" "$corpus" "$regressions" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "$out" | tail -40 >&2
        echo "FAIL: fuzz_$t exited $rc; rerun with -v to name the input:" >&2
        echo "  $bin -v $corpus $regressions" >&2
        status=1
    else
        echo "ok: $out"
    fi
done
exit $status
