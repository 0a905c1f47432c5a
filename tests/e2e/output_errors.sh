#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# output_errors.sh: output that cannot be written is an error (exit 1 and one
# "destor:" line), every diagnostic is a single "destor:" line, and what an
# error message echoes is cut and escaped.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

mkdir -p "$SCRATCH/src/d"
pseudo_random 3000000 4 > "$SCRATCH/src/big"
echo hello > "$SCRATCH/src/d/f"
dst backup "$SCRATCH/src" >/dev/null
printf '0\tbig\n0\td/f\n' > "$SCRATCH/trace"

# expect_full CMD...: CMD with stdout on /dev/full exits 1 with one line.
expect_full() {
    set +e
    "$@" >/dev/full 2>"$SCRATCH/err"
    got=$?
    set -e
    [ "$got" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "'$*' > /dev/full exited $got, expected 1"; }
    [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "'$*': expected one line on stderr"; }
    grep -q '^destor: .*standard output: No space left on device$' "$SCRATCH/err" ||
        { cat "$SCRATCH/err" >&2; fail "'$*': the message must name stdout and the error"; }
}
[ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 77; }
expect_full dst stat
expect_full dst stat --json
expect_full dst list 0
expect_full dst list 0 --null
expect_full dst verify
expect_full dst verify --json
expect_full dst read-file --trace "$SCRATCH/trace"
expect_full dst read-file --trace "$SCRATCH/trace" --json
expect_full dst read-file 0 big
expect_full dst read-file 0 d/f -o -
expect_full dst restore 0 "$SCRATCH/restored"
expect_full dst backup "$SCRATCH/src"
expect_full "$DESTOR_BIN" --help
expect_full dst --version
dst read-file 0 d/f -o - | grep -qx hello || fail "-o - writes to stdout"

# A trailing slash names a directory: refused on a regular file.
expect_status 2 dst read-file 0 d/f/
grep -q 'not a directory' "$SCRATCH/err" || fail "trailing slash message"
expect_status 2 dst read-file 0 big/

# SSD cache warnings are destor: lines, not GLib's "** (process:N): WARNING **".
CACHE="$SCRATCH/cache"
cached() { dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $CACHE" -p"ssd-cache-size 100%" "$@"; }
cached read-file 0 big >/dev/null
"$PYTHON" -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(5000); f.write(b"XXXX")' "$CACHE/slots.dat"
cached read-file 0 big 2>"$SCRATCH/err" | cmp -s - "$SCRATCH/src/big" || fail "a damaged cache copy changed the bytes"
grep -q '^destor: warning: SSD cache: .*damaged' "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "no destor: warning line"; }
[ "$(grep -cv '^destor: ' "$SCRATCH/err")" -eq 0 ] || { cat "$SCRATCH/err"; fail "a diagnostic line that is not a destor: line"; }

# What a message echoes is escaped (binary config bytes) and cut (a 10 MB line).
printf 'chunk-avg-size \001\377\033[31mred\n' > "$SCRATCH/bin.config"
expect_status 2 "$DESTOR_BIN" -c "$SCRATCH/bin.config" stat
grep -qF "invalid value '\\x01\\xff\\x1b[31mred' for chunk-avg-size" "$SCRATCH/err" || { cat -v "$SCRATCH/err"; fail "config bytes not escaped"; }
"$PYTHON" -c 'import sys; sys.stdout.buffer.write(b"0\t" + b"\xff\x01a" * 3500000 + b"\n")' > "$SCRATCH/long.trace"
expect_status 2 dst read-file --trace "$SCRATCH/long.trace"
[ "$(wc -l < "$SCRATCH/err")" -eq 1 ] || fail "a long line gave more than one stderr line"
[ "$(wc -c < "$SCRATCH/err")" -lt 4096 ] || fail "a 10 MB trace line was echoed whole"
grep -q 'bytes cut' "$SCRATCH/err" || fail "a cut message must say so"
LC_ALL=C grep -q "$(printf '[\001\377]')" "$SCRATCH/err" && fail "raw control or binary bytes on stderr"
note "output errors, diagnostics and echoed text checked"
