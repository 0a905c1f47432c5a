#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# range_read.sh: read-file JOB PATH --offset N --length N writes exactly the
# bytes [N, N+LEN) of the original, cut at its end (none past it), for
# ranges inside one chunk, across chunk and container boundaries, of zero
# length and past the end; it fetches only the containers holding them;
# ranged trace lines (text and --null) read the same bytes and count the
# same container accesses.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

mkdir -p "$SCRATCH/data/d"
pseudo_random 900000 21 > "$SCRATCH/data/big"        # about 7 containers of 128 KiB
pseudo_random 5000 22 > "$SCRATCH/data/d/small"
printf 'x' > "$SCRATCH/data/one"
: > "$SCRATCH/data/empty"
printf 'container-size 128K\n' >> "$CONFIG"
dst backup "$SCRATCH/data" >/dev/null

# Every range against a Python slice of the original.
"$PYTHON" - "$DESTOR_BIN" "$CONFIG" "$SCRATCH/data" <<'PY'
import random, subprocess, sys
destor, cfg, root = sys.argv[1:4]
rng = random.Random(7)
cases = []
for name in ("big", "d/small", "one", "empty"):
    data = open("%s/%s" % (root, name), "rb").read()
    n = len(data)
    picks = [(0, 0), (0, 1), (0, n), (n, 0), (n, 5), (n + 1000, 10), (max(n - 3, 0), 100),
             (0, 2 ** 64 - 1), (2 ** 64 - 1, 2 ** 64 - 1)]
    if n > 300000:
        # around the 128 KiB container boundaries and across several containers
        picks += [(131072 * k - 70, 140) for k in range(1, 7)]
        picks += [(1000, 500000), (131000, 262144 + 200)]
    for _ in range(40 if n > 1 else 0):
        off = rng.randrange(n)
        picks.append((off, rng.choice([1, 7, 4096, 8191, 20000, 70000, 300000])))
    cases += [(name, data, o, l) for o, l in picks]
for name, data, off, length in cases:
    out = subprocess.run([destor, "-c", cfg, "read-file", "0", name, "--offset", str(off), "--length", str(length)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    want = data[off:off + length]
    assert out.returncode == 0, (name, off, length, out.stderr)
    assert out.stdout == want, "%s [%d, +%d): %d bytes, expected %d" % (name, off, length, len(out.stdout), len(want))
print("# %d ranges equal the originals' slices" % len(cases))
PY

# dd agrees too; --offset alone reads to the end, --length alone from 0.
dst read-file 0 big --offset 300000 --length 200000 -o "$SCRATCH/r1"
dd if="$SCRATCH/data/big" of="$SCRATCH/r1.dd" bs=1 skip=300000 count=200000 status=none
cmp "$SCRATCH/r1" "$SCRATCH/r1.dd" || fail "read-file -o with a range differs from dd"
dst read-file 0 big --offset 899990 > "$SCRATCH/tail"
tail -c 10 "$SCRATCH/data/big" | cmp -s - "$SCRATCH/tail" || fail "--offset alone must read to the end"
dst read-file 0 big --length 10 > "$SCRATCH/head"
head -c 10 "$SCRATCH/data/big" | cmp -s - "$SCRATCH/head" || fail "--length alone must read from offset 0"

# Bad combinations and values are usage errors.
expect_status 2 dst read-file 0 big --offset 10 --verify
expect_status 2 dst read-file 0 big --offset -1
expect_status 2 dst read-file 0 big --length 1x
expect_status 2 dst read-file 0 big --offset 18446744073709551616
expect_status 2 dst read-file --trace "$SCRATCH/none" --offset 1

# Only the containers holding the range are read: in simulation, and
# through a real SSD cache, a range inside the first container costs one
# access, a zero-length one none, the whole file every container.
accesses() { "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["container_accesses"])'; }
printf '0\tbig\t10\t100\n' > "$SCRATCH/t1"
printf '0\tbig\t10\t0\n' > "$SCRATCH/t0"
printf '0\tbig\n' > "$SCRATCH/tall"
for mode in --simulate ""; do
    set -- -p"ssd-cache-policy lru" -p"ssd-cache-directory $SCRATCH/cache" -p"ssd-cache-size 2"
    a1=$(dst "$@" $mode read-file --trace "$SCRATCH/t1" --json | accesses)
    a0=$(dst "$@" $mode read-file --trace "$SCRATCH/t0" --json | accesses)
    aa=$(dst "$@" $mode read-file --trace "$SCRATCH/tall" --json | accesses)
    [ "$a1" -eq 1 ] && [ "$a0" -eq 0 ] && [ "$aa" -ge 7 ] ||
        fail "container accesses${mode:+ ($mode)}: range $a1 (want 1), empty $a0 (want 0), whole $aa (want >= 7)"
done
note "a 100-byte range reads 1 container, an empty one none, the whole file $aa"

# Ranged trace lines, text and --null, give the same bytes as read-file
# (bytes counted in the summary) as single reads would.
printf '0\tbig\t131000\t300\n0\td/small\t4990\t100\n0\tone\t0\t-\n0\tbig\t899999\t-\n0\tempty\t3\t4\n0\tbig\n' > "$SCRATCH/tr"
tr '\n' '\0' < "$SCRATCH/tr" > "$SCRATCH/tr0"
want_bytes=$((300 + 10 + 1 + 1 + 0 + 900000))
for args in "$SCRATCH/tr" "$SCRATCH/tr0 --null"; do
    got=$(dst read-file --trace $args --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["bytes"])')
    [ "$got" -eq "$want_bytes" ] || fail "trace $args: $got bytes, expected $want_bytes"
done
# --verify checks whole files: a range line with --verify names the line.
expect_status 2 dst read-file --trace "$SCRATCH/tr" --verify
grep -q 'tr:1: a range request' "$SCRATCH/err" || fail "--verify with a range line must name the line"
note "ranged trace lines serve $want_bytes bytes, text and --null"
