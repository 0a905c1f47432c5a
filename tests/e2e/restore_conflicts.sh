#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# restore_conflicts.sh: a job whose own entries conflict (a symlink `trap`,
# aimed outside the target, and a file `trap/evil`: a record's path
# rewritten under a right CRC, the recipe index rebuilt by repair) is a
# damaged job: restore exits 3 with one destor: line naming it, makes no
# symlink through which the file could land outside, and writes nothing
# outside the target; the rest of the job is restored. verify names the
# same damage (exit 3).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

mkdir -p "$SCRATCH/src" "$SCRATCH/watch"
ln -s "$SCRATCH/watch" "$SCRATCH/src/trap"
echo evil > "$SCRATCH/src/trapXevil"
echo fine > "$SCRATCH/src/ok.txt"
dst backup "$SCRATCH/src" >/dev/null
"$PYTHON" - "$SCRATCH/working/jobs/00000000/job_meta_data" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
at = 32
while at < len(d):
    length = struct.unpack_from("<I", d, at + 4)[0]
    plen = struct.unpack_from("<I", d, at + 28)[0]
    if d[at + 88:at + 88 + plen] == b"trapXevil":
        d[at + 92] = ord("/")
        struct.pack_into("<I", d, at + length - 4, zlib.crc32(bytes(d[at:at + length - 4])))
        open(p, "wb").write(d)
        sys.exit(0)
    at += length
sys.exit("no record trapXevil")
PY
dst repair >/dev/null 2>&1 || fail "repair of the forged job"

expect_status 3 dst restore 0 "$SCRATCH/t"
[ "$(grep -c '^destor: ' "$SCRATCH/err")" -eq 1 ] || fail "not one destor: line: $(cat "$SCRATCH/err")"
grep -q "'trap'.*conflict" "$SCRATCH/err" || fail "the conflict not named: $(cat "$SCRATCH/err")"
[ -z "$(ls -A "$SCRATCH/watch")" ] || fail "restore wrote outside the target: $(ls -A "$SCRATCH/watch")"
[ ! -L "$SCRATCH/t/trap" ] || fail "restore made the symlink the job's file lies below"
cmp -s "$SCRATCH/src/ok.txt" "$SCRATCH/t/ok.txt" || fail "the rest of the job was not restored"
expect_status 3 dst verify
grep -q "path 'trap/evil'.*below the job's own symlink 'trap'" "$SCRATCH/out" || fail "verify said: $(cat "$SCRATCH/out")"
note "a symlink and a file below it in one job: restore exit 3, one destor: line, nothing outside the target; verify names it"
