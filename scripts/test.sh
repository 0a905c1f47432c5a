#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# test.sh: set up, build, and run each test once in every build where it can
# find a bug; tests/manifest.mk says which tests run where:
#   plain       every test, both tiers, in ./build
#   files       the tests that write, damage or free containers, again with
#               every store they make a `container-store files` one
#   sanitizers  the tests that run our C code, in ./build-sanitizers
#               (AddressSanitizer and UBSan; any finding fails a test), the
#               kill sweeps at every 4th point of each kind of step (and
#               each kind in every 4th variant), without LeakSanitizer
#   distcheck   the release tarball builds, passes the quick tier out of a
#               read-only source tree, installs and uninstalls cleanly
# Then a table of the stages' times and test counts and the ten slowest
# tests, and last one line "N passed, N failed": CUnit test cases plus one
# per test script, every run, and one for distcheck.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
passed=0
failed=0
stages=$(mktemp "${TMPDIR:-/tmp}/test-stages.XXXXXX")
times=$(mktemp "${TMPDIR:-/tmp}/test-times.XXXXXX")
trap 'rm -f "$stages" "$times"' EXIT

# run_suite STAGE DIR [TEST...]: make check in DIR (of the TESTs only, if
# given), add their results to the totals and their times to the tables.
run_suite() {
    stage=$1
    dir=$2
    shift 2
    status=0
    start=$(date +%s)
    before_p=$passed
    before_f=$failed
    if [ $# -gt 0 ]; then
        make -C "$dir" -j2 check TESTS="$*" || status=$?
        trs=$(for t in "$@"; do echo "$dir/$t.trs"; done)
    else
        make -C "$dir" -j2 check || status=$?
        trs=$(find "$dir" -name '*.trs')
    fi
    count=0
    for t in $trs; do
        count=$((count + 1))
        log="${t%.trs}.log"
        if grep -q -E '^:test-result: (FAIL|ERROR)' "$t"; then
            echo "---- $log"
            tail -n 80 "$log"
        fi
        name=${t#"$dir"/}
        awk -v s="$stage" -v t="${name%.trs}" '$1 == ":elapsed:" { e = $2 } $1 == ":cpu:" { c = $2 }
            END { print e + 0, c + 0, s, t }' "$t" >> "$times"
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
    cpu=$(awk -v s="$stage" '$3 == s { c += $2 } END { print int(c) }' "$times")
    echo "$stage $count $((passed - before_p)) $((failed - before_f)) $(($(date +%s) - start)) $cpu" >> "$stages"
}

# tests_of TIER WHERE...: the tests of a tier (quick, slow or any) that run in
# any of the WHEREs (store, c, plain), from tests/manifest.mk.
tests_of() {
    tier=$1
    shift
    make -s -C build list-tests | awk -v tier="$tier" -v where=" $* " \
        '(tier == "any" || $2 == tier) && index(where, " " $3 " ") { print $1 }'
}

run_suite plain build
export DESTOR_TEST_CONTAINER_STORE=files
run_suite files build $(tests_of any store)
unset DESTOR_TEST_CONTAINER_STORE
mkdir -p build-sanitizers
if [ ! -f build-sanitizers/Makefile ]; then
    (cd build-sanitizers && ../configure -q --enable-sanitizers)
fi
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 DESTOR_KILL_SAMPLE=4
run_suite sanitizers build-sanitizers $(tests_of any store c)
unset ASAN_OPTIONS UBSAN_OPTIONS DESTOR_KILL_SAMPLE
# One test, however many it runs inside (counted in the stage table).
start=$(date +%s)
if make -C build -j2 distcheck TESTS="$(tests_of quick store c plain | tr '\n' ' ')" > build/distcheck.log 2>&1; then
    passed=$((passed + 1))
    result="1 0"
else
    echo "---- build/distcheck.log"
    tail -n 80 build/distcheck.log
    failed=$((failed + 1))
    result="0 1"
fi
inside=$(awk '$1 == "#" && $2 == "TOTAL:" { n = $3 } END { print n + 0 }' build/distcheck.log)
echo "distcheck $inside $result $(($(date +%s) - start)) -" >> "$stages"

echo
awk 'BEGIN { printf "%-11s %6s %7s %7s %8s %12s\n", "stage", "tests", "passed", "failed", "minutes", "CPU minutes" }
     { printf "%-11s %6d %7d %7d %8.1f %12s\n", $1, $2, $3, $4, $5 / 60, $6 == "-" ? "-" : sprintf("%.1f", $6 / 60); s += $5 }
     END { printf "%-11s %6s %7s %7s %8.1f\n", "all", "", "", "", s / 60 }' "$stages"
echo
echo "the ten slowest tests (seconds, CPU seconds, stage, test):"
sort -rn "$times" | head -n 10 | awk '{ printf "%8.1f %8.1f  %-10s %s\n", $1, $2, $3, $4 }'
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
