#!/bin/sh
# test.sh: set up, build, and run every test (make check). Ends with one line
# "N passed, N failed": CUnit test cases plus one per test script.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
cd build
status=0
make -j2 check || status=$?
trs=$(find . -name '*.trs')
for t in $trs; do
    if grep -q -E '^:test-result: (FAIL|ERROR)' "$t"; then
        echo "---- ${t%.trs}.log"
        tail -n 80 "${t%.trs}.log"
    fi
done
passed=0
failed=0
for t in $trs; do
    log="${t%.trs}.log"
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
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
