#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# test.sh: set up, build, and run every test (make check) twice: a plain
# build in ./build, then a build with AddressSanitizer and UBSan in
# ./build-sanitizers (any finding fails a test); in the plain build the
# end-to-end tests once more on `container-store files` stores; then make
# distcheck. Ends with one line "N passed, N failed": CUnit test cases plus
# one per test script, every run, and one for distcheck.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
passed=0
failed=0

# run_suite DIR [TEST...]: make check in DIR (of the TESTs only, if given),
# add their results to the totals.
run_suite() {
    status=0
    dir=$1
    shift
    if [ $# -gt 0 ]; then
        make -C "$dir" -j2 check TESTS="$*" || status=$?
        trs=$(for t in "$@"; do echo "$dir/$t.trs"; done)
    else
        make -C "$dir" -j2 check || status=$?
        trs=$(find "$dir" -name '*.trs')
    fi
    for t in $trs; do
        log="${t%.trs}.log"
        if grep -q -E '^:test-result: (FAIL|ERROR)' "$t"; then
            echo "---- $log"
            tail -n 80 "$log"
        fi
        # A CUnit program reports its cases: "tests  TOTAL  RAN  PASSED  FAILED  INACTIVE".
        cunit=$(awk '$1 == "tests" && NF == 6 { print $4, $5 }' "$log" | tail -n 1)
        if [ -n "$cunit" ]; then
            passed=$((passed + ${cunit% *}))
            failed=$((failed + ${cunit#* }))
            if grep -q -E '^:test-result: (FAIL|ERROR)' "$t" && [ "${cunit#* }" -eq 0 ]; then
                failed=$((failed + 1))
            fi
        elif grep -q '^:test-result: PASS' "$t"; then
            passed=$((passed + 1))
        elif grep -q -E '^:test-result: (FAIL|ERROR|XPASS)' "$t"; then
            failed=$((failed + 1))
        fi
    done
    [ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=$((failed + 1))
}

run_suite build
# The end-to-end tests again, every store they make a `container-store
# files` one (tests about the pool file itself skip, saying so). The RADOS
# tests (tests/rados/, each with a Ceph cluster of its own) are not in this
# list: they ran in `build` above and run again in `build-sanitizers` below,
# where the sanitizers watch the lock's renewal thread and the librados calls.
e2e=$(sed -n 's/^\t\(tests\/e2e\/[a-z_]*\.sh\).*/\1/p' tests/e2e/local.mk)
export DESTOR_TEST_CONTAINER_STORE=files
run_suite build $e2e
unset DESTOR_TEST_CONTAINER_STORE
mkdir -p build-sanitizers
if [ ! -f build-sanitizers/Makefile ]; then
    (cd build-sanitizers && ../configure -q --enable-sanitizers)
fi
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
run_suite build-sanitizers
unset ASAN_OPTIONS UBSAN_OPTIONS
# make distcheck: the release tarball builds, passes make check out of a
# read-only source tree, installs and uninstalls cleanly. One test.
if make -C build distcheck > build/distcheck.log 2>&1; then
    passed=$((passed + 1))
else
    echo "---- build/distcheck.log"
    tail -n 80 build/distcheck.log
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
