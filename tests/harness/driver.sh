#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# driver.sh: the test driver of `make check` (LOG_DRIVER). It runs one test
# as automake's own driver does (output to its .log; exit 0 PASS, 77 SKIP,
# 99 ERROR, else FAIL; a PASS/FAIL line on the terminal) and also records
# the test's wall-clock seconds in its .trs file as ":elapsed: S", which
# scripts/test.sh sums into its stage table and its slowest-tests list.
set -u
name= log= trs= expect_failure=no
while [ $# -gt 0 ]; do
    case $1 in
    --test-name) name=$2; shift ;;
    --log-file) log=$2; shift ;;
    --trs-file) trs=$2; shift ;;
    --expect-failure) expect_failure=$2; shift ;;
    --color-tests | --enable-hard-errors | --collect-skipped-logs) shift ;;
    --) shift; break ;;
    *) echo "driver.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$name" ] && [ -n "$log" ] && [ -n "$trs" ] && [ $# -gt 0 ] || {
    echo "driver.sh: usage: --test-name N --log-file L --trs-file T -- CMD..." >&2
    exit 2
}
start=$(date +%s.%N)
"$@" > "$log" 2>&1
status=$?
end=$(date +%s.%N)
case $status:$expect_failure in
0:yes) result=XPASS ;;
0:*) result=PASS ;;
77:*) result=SKIP ;;
99:*) result=ERROR ;;
*:yes) result=XFAIL ;;
*) result=FAIL ;;
esac
elapsed=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
echo "$result: $name (${elapsed} s)"
echo "$result: $name (exit $status, ${elapsed} s)" >> "$log"
{
    echo ":test-result: $result"
    echo ":global-test-result: $result"
    case $result in PASS | XFAIL | SKIP) echo ":recheck: no" ;; *) echo ":recheck: yes" ;; esac
    case $result in PASS | XFAIL) echo ":copy-in-global-log: no" ;; *) echo ":copy-in-global-log: yes" ;; esac
    echo ":elapsed: $elapsed"
} > "$trs"
