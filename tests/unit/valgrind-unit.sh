#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# valgrind-unit.sh: run every CUnit unit-test program under Valgrind memcheck.
#
# Why: the plain build otherwise has no memory checking at all, and the
# sanitizer build's ASan does not report reads of uninitialised memory. Fails
# if any program has a memcheck error or a definitely or indirectly lost
# block, or fails its own assertions under valgrind; prints the program and
# valgrind's report. Skips (exit 77) without valgrind or in the sanitizer
# build (DESTOR_SANITIZERS=yes: ASan and valgrind do not mix).
#
# The programs come from VALGRIND_UNIT_PROGRAMS (the build's check_PROGRAMS,
# set by tests/unit/valgrind.mk); those under tests/unit/ are the CUnit ones.
# Their own output goes to scratch files, not to this test's log: the log
# must not carry CUnit's "tests TOTAL RAN PASSED FAILED INACTIVE" lines, or
# scripts/test.sh would count those cases twice. When it is shown, on a
# failure, every line is prefixed with "| " for the same reason.
#
# By hand: VALGRIND_UNIT_PROGRAMS="tests/unit/test_policy" TOP_SRCDIR=..
#   TOP_BUILDDIR=. ../tests/unit/valgrind-unit.sh   (from the build directory)
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source directory}"
: "${TOP_BUILDDIR:?TOP_BUILDDIR must name the build directory}"
: "${VALGRIND_UNIT_PROGRAMS:?VALGRIND_UNIT_PROGRAMS must list the check programs}"

if [ "${DESTOR_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build (ASan and valgrind do not mix)"
    exit 77
fi
VALGRIND=${VALGRIND:-valgrind}
if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "SKIP: $VALGRIND not found (apt-get install valgrind)"
    exit 77
fi

programs=""
for p in $VALGRIND_UNIT_PROGRAMS; do
    case "$p" in
        tests/unit/*) programs="$programs $p" ;;
    esac
done
if [ -z "$programs" ]; then
    echo "FAIL: no tests/unit/ program in VALGRIND_UNIT_PROGRAMS" >&2
    exit 1
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/valgrind-unit.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# glib: plain malloc for GSlice (else its magazines look like leaks) and
# freed memory cleared, so stale pointers fail loudly.
G_SLICE=always-malloc G_DEBUG=gc-friendly
export G_SLICE G_DEBUG

VG_ERRORS=99
status=0
total_start=$(date +%s)
for p in $programs; do
    bin="$TOP_BUILDDIR/$p"
    name=$(basename "$p")
    if [ ! -x "$bin" ]; then
        echo "FAIL: $bin is not built" >&2
        status=1
        continue
    fi
    start=$(date +%s)
    "$VALGRIND" --tool=memcheck --leak-check=full \
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
        --error-exitcode=$VG_ERRORS --track-origins=no --num-callers=30 \
        --suppressions="$TOP_SRCDIR/tests/unit/valgrind.supp" \
        --log-file="$scratch/$name.vg" \
        "$bin" >"$scratch/$name.out" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ]; then
        echo "ok: $name (${secs}s)"
        continue
    fi
    status=1
    if [ $rc -eq $VG_ERRORS ]; then
        echo "FAIL: $name: memcheck errors or leaks (${secs}s); valgrind's report:" >&2
    else
        echo "FAIL: $name exited $rc under valgrind (${secs}s); its output:" >&2
        sed 's/^/| /' "$scratch/$name.out" | tail -n 60 >&2
        echo "valgrind's report:" >&2
    fi
    cat "$scratch/$name.vg" >&2
    echo "rerun: $VALGRIND --leak-check=full --track-origins=yes --suppressions=$TOP_SRCDIR/tests/unit/valgrind.supp $bin" >&2
done
echo "valgrind-unit: $(( $(date +%s) - total_start ))s in all"
exit $status
