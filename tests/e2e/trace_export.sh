#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# trace_export.sh: destor trace export writes the container-access sequence
# of a trace as libCacheSim reads it (CSV, oracleGeneral, txt), checked
# against output worked out by hand. The store is laid out so the
# containers are known: fixed 32 KiB chunks, 128 KiB containers, which hold
# three chunks each (a fourth would not fit beside the 64-byte header and
# 40 bytes of metadata per chunk). a (3 chunks) fills container 0, b (4
# chunks) fills container 1 and starts container 2, c (1 chunk) follows it
# in container 2.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

mkdir -p "$SCRATCH/data"
pseudo_random 98304 1 > "$SCRATCH/data/a"
pseudo_random 131072 2 > "$SCRATCH/data/b"
pseudo_random 10000 3 > "$SCRATCH/data/c"
printf 'container-size 128K\nchunk-algorithm fixed\nchunk-avg-size 32768\n' >> "$CONFIG"
dst backup "$SCRATCH/data" >/dev/null
# requests: a -> [0]; b -> [1, 2]; c -> [2]; a -> [0]; 10 bytes of b's 4th chunk -> [2]
printf '0\ta\n0\tb\n0\tc\n0\ta\n0\tb\t100000\t10\n' > "$SCRATCH/t"
dst trace compile "$SCRATCH/t" -o "$SCRATCH/t.ctr"

printf 'time,obj_id,obj_size\n0,0,131072\n1,1,131072\n1,2,131072\n2,2,131072\n3,0,131072\n4,2,131072\n' > "$SCRATCH/want.csv"
dst trace export "$SCRATCH/t.ctr" --format libcachesim-csv > "$SCRATCH/got.csv"
cmp "$SCRATCH/want.csv" "$SCRATCH/got.csv" || fail "libcachesim-csv export differs from the hand-worked one"

printf '0\n1\n2\n2\n0\n2\n' > "$SCRATCH/want.txt"
dst trace export "$SCRATCH/t" --format txt -o "$SCRATCH/got.txt"   # a text trace is compiled first
cmp "$SCRATCH/want.txt" "$SCRATCH/got.txt" || fail "txt export differs from the hand-worked one"

# oracleGeneral: time u32, id u64, size u32, next access i64 (1-based index of
# the container's next record: record 1 (container 0) is next read at 5,
# record 3 (container 2) at 4, record 4 at 6; the rest never again).
dst trace export "$SCRATCH/t.ctr" --format oracle-general -o "$SCRATCH/got.bin"
"$PYTHON" - "$SCRATCH/got.bin" <<'PY'
import struct, sys
want = [(0, 0, 131072, 5), (1, 1, 131072, -1), (1, 2, 131072, 4),
        (2, 2, 131072, 6), (3, 0, 131072, -1), (4, 2, 131072, -1)]
data = open(sys.argv[1], "rb").read()
assert data == b"".join(struct.pack("<IQIq", *r) for r in want), \
    [struct.unpack("<IQIq", data[i:i + 24]) for i in range(0, len(data), 24)]
PY
note "csv, txt and oracleGeneral exports equal the hand-worked sequence"

# A timed trace's records carry its requests' times in whole seconds (the
# request number is only the untimed trace's clock); a time past a u32 of
# seconds is refused.
printf '@0.5\t0\ta\n@7.25\t0\tb\n@3600\t0\tc\n' > "$SCRATCH/timed"
printf 'time,obj_id,obj_size\n0,0,131072\n7,1,131072\n7,2,131072\n3600,2,131072\n' > "$SCRATCH/want-timed.csv"
dst trace export "$SCRATCH/timed" --format libcachesim-csv > "$SCRATCH/got-timed.csv"
cmp "$SCRATCH/want-timed.csv" "$SCRATCH/got-timed.csv" || fail "a timed trace's csv export lost its times"
dst trace export "$SCRATCH/timed" --format oracle-general -o "$SCRATCH/got-timed.bin"
"$PYTHON" - "$SCRATCH/got-timed.bin" <<'PY'
import struct, sys
want = [(0, 0, 131072, -1), (7, 1, 131072, -1), (7, 2, 131072, 4), (3600, 2, 131072, -1)]
data = open(sys.argv[1], "rb").read()
assert data == b"".join(struct.pack("<IQIq", *r) for r in want), \
    [struct.unpack("<IQIq", data[i:i + 24]) for i in range(0, len(data), 24)]
PY
printf '@0\t0\ta\n@4294967296\t0\tb\n' > "$SCRATCH/late"
expect_status 2 dst trace export "$SCRATCH/late" --format oracle-general -o "$SCRATCH/late.bin"
[ ! -e "$SCRATCH/late.bin" ] || fail "a refused export left its output"
grep -q "^destor: .*late has times past what oracleGeneral's 32-bit count of seconds holds$" "$SCRATCH/err" ||
    fail "no oracleGeneral time error: $(cat "$SCRATCH/err")"
# csv writes the time whole and txt none: the same trace exports (it was
# refused in both, exit 2)
dst trace export "$SCRATCH/late" --format libcachesim-csv -o "$SCRATCH/late.csv"
[ "$(tail -n 2 "$SCRATCH/late.csv")" = "$(printf '4294967296,1,131072\n4294967296,2,131072')" ] ||
    fail "csv of a late time: $(cat "$SCRATCH/late.csv")"
dst trace export "$SCRATCH/late" --format txt -o "$SCRATCH/late.txt"
[ "$(cat "$SCRATCH/late.txt")" = "$(printf '0\n1\n2')" ] || fail "txt of a late trace: $(cat "$SCRATCH/late.txt")"
note "a timed trace exports its times in seconds; one past 2^32 s is refused for oracleGeneral only"

# -o onto something that is not a regular file (here a FIFO) writes into it
# and leaves it in place, never renaming a file over it.
mkfifo "$SCRATCH/fifo"
cat "$SCRATCH/fifo" > "$SCRATCH/from-fifo" &
dst trace export "$SCRATCH/t.ctr" --format txt -o "$SCRATCH/fifo"
wait
[ -p "$SCRATCH/fifo" ] || fail "export -o replaced a FIFO with a file"
cmp "$SCRATCH/want.txt" "$SCRATCH/from-fifo" || fail "export -o FIFO wrote other bytes"

# Errors: a format that does not exist, none at all, a full device.
expect_status 2 dst trace export "$SCRATCH/t.ctr" --format parquet
expect_status 2 dst trace export "$SCRATCH/t.ctr"
if [ -c /dev/full ] && [ -w /dev/full ]; then
    set +e
    dst trace export "$SCRATCH/t.ctr" --format libcachesim-csv > /dev/full 2> "$SCRATCH/err"
    rc=$?
    set -e
    [ $rc -eq 1 ] && grep -q '^destor: write standard output' "$SCRATCH/err" ||
        fail "an export into a full device must fail with exit 1 (got $rc)"
fi
