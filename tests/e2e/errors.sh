#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# errors.sh: bad input gets one "destor: ..." line and the documented exit
# status (1 runtime, 2 usage/config, 3 integrity), and a failed read changes
# nothing stored.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

expect_status 2 dst stat                              # no store yet
grep -q 'no store' "$SCRATCH/err" || fail "no-store message"
expect_status 2 dst backup "$SCRATCH/does-not-exist"
expect_status 2 dst frobnicate
expect_status 2 dst read-file 0
expect_status 2 "$DESTOR_BIN" -c "$SCRATCH/missing.config" stat
printf 'chunk-avg-size banana\n' > "$SCRATCH/bad.config"
expect_status 2 "$DESTOR_BIN" -c "$SCRATCH/bad.config" stat
grep -q 'bad.config:1: invalid value .banana. for chunk-avg-size' "$SCRATCH/err" || fail "config error must name file, line, key and value"
expect_status 2 dst -p"container-size 64K" stat
expect_status 0 dst -p"no-such-key 1" --help

mkdir -p "$SCRATCH/src/d"
pseudo_random 3000000 9 > "$SCRATCH/src/d/a.bin"
echo hello > "$SCRATCH/src/b.txt"
dst backup "$SCRATCH/src" >/dev/null
expect_status 2 dst -p"container-size 4M" backup "$SCRATCH/src"  # store was made with 2M
expect_status 2 dst read-file 5 b.txt                  # unknown job
expect_status 2 dst read-file 0 nope.txt               # path not in job
expect_status 2 dst read-file 0 d                      # a directory
expect_status 2 dst read-file x b.txt                  # not a job id
expect_status 0 dst read-file 0 /d/a.bin -o "$SCRATCH/a.out"
cmp "$SCRATCH/a.out" "$SCRATCH/src/d/a.bin" || fail "leading slash lookup"

# Unreadable file and directory: skipped with a warning and counted; the
# job still commits and backup exits 1. Root reads everything, so as root
# run as nobody.
mkdir -p "$SCRATCH/unreadable/sub"
echo visible > "$SCRATCH/unreadable/ok.txt"
echo secret > "$SCRATCH/unreadable/locked"
echo hidden > "$SCRATCH/unreadable/sub/x"
chmod 000 "$SCRATCH/unreadable/locked" "$SCRATCH/unreadable/sub"
as_user=""
if [ "$(id -u)" -eq 0 ]; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
    chmod 755 "$SCRATCH"
    mkdir -p "$SCRATCH/w-nobody" && chown 65534:65534 "$SCRATCH/w-nobody"
fi
expect_status 1 $as_user "$DESTOR_BIN" -p"working-directory $SCRATCH/w-nobody" backup "$SCRATCH/unreadable"
[ "$(grep -c 'warning: skipping' "$SCRATCH/err")" -eq 2 ] || fail "expected two skip warnings"
grep -q '^destor: 2 entries could not be read and are not in job 0' "$SCRATCH/err" || fail "skips must fail the backup"
grep -q '1 files, 1 directories, 0 symlinks, 2 skipped' "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "skipped entries not counted"; }
chmod 755 "$SCRATCH/unreadable/sub"

# Corrupt a container: reads fail with status 3 and leave OUT untouched.
echo previous > "$SCRATCH/keep.out"
C=$(containers_of "$SCRATCH/working")
cp -a "$C" "$SCRATCH/pool.bak"
flip_container_byte "$SCRATCH/working" 0 2097152 100000
expect_status 3 dst read-file 0 d/a.bin -o "$SCRATCH/keep.out"
grep -q 'container 0 is damaged' "$SCRATCH/err" || fail "integrity message must name the container"
[ "$(cat "$SCRATCH/keep.out")" = previous ] || fail "failed read changed the output file"
expect_status 3 dst restore 0 "$SCRATCH/r"
diff -r -q "$C" "$SCRATCH/pool.bak" > /dev/null && fail "test did not corrupt"
rm -rf "$C" && cp -a "$SCRATCH/pool.bak" "$C"
expect_status 0 dst read-file 0 d/a.bin --verify

# A trace line that is not JOB<TAB>PATH names the line.
printf '0\tb.txt\nnot a line\n' > "$SCRATCH/trace"
expect_status 2 dst read-file --trace "$SCRATCH/trace"
grep -q 'trace:2:' "$SCRATCH/err" || fail "trace error must name the line"
# A NUL inside a line: a --null trace read without --null.
printf '0\tb.txt\0000\tb.txt\000' > "$SCRATCH/trace0"
expect_status 2 dst read-file --trace "$SCRATCH/trace0"
grep -q 'trace0:1: a NUL byte inside a line' "$SCRATCH/err" || fail "NUL in a text trace must be named"
expect_status 0 dst read-file --trace "$SCRATCH/trace0" --null
expect_status 2 dst read-file 0 b.txt --null          # --null is for traces
# A directory given as the trace is a usage error, not an empty trace.
for null in "" --null; do
    expect_status 2 dst read-file --trace "$SCRATCH" $null
    [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] && grep -q 'is a directory' "$SCRATCH/err" ||
        fail "read-file --trace DIR must say in one line that it is a directory"
done

# An SSD cache directory that cannot be created is reported before any work.
expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-directory /proc/destor-no-such-cache" read-file 0 b.txt
grep -q 'ssd-cache-directory /proc/destor-no-such-cache cannot be created' "$SCRATCH/err" || fail "cache directory message"
note "all error cases gave the documented status"
