#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# trace_export_hostile.sh: trace export needs no store, so nothing holds a
# compiled trace's claimed pool size to a real one. A sound file (CRC
# right) that claims 2^32-1 containers and reads container 2^32-2 twice must
# export in memory that follows its accesses: it once made export allocate
# 8 bytes per claimed container (32 GiB: an abort in g_malloc under a 2 GiB
# address-space limit here, an out-of-memory abort under ASan).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

"$PYTHON" - "$SCRATCH/huge-pool.ctr" <<'PY'
import struct, sys, zlib
jobs = struct.pack("<II", 0, 0x12345678)
reqs = struct.pack("<QII", 4096, 0, 2)               # one request of job 0: two accesses
ids = struct.pack("<II", 0xFFFFFFFE, 0xFFFFFFFE)
head = b"DPLCCTR1" + struct.pack("<II", 1, 64) + bytes(16) + struct.pack("<IIII", 131072, 0xFFFFFFFF, 1, 0) + \
    struct.pack("<QQ", 1, 2)
body = head + jobs + reqs + ids
open(sys.argv[1], "wb").write(body + struct.pack("<I", zlib.crc32(body)))
PY

# Without sanitizers an address-space limit keeps the old behaviour from
# paging the machine to death; ASan reserves terabytes of shadow and
# refuses the allocation by itself.
limit=
[ "${DESTOR_SANITIZERS:-no}" = yes ] || limit="ulimit -v 2097152;"
for format in oracle-general libcachesim-csv txt; do
    set +e
    sh -c "$limit"' exec "$@"' sh "$DESTOR_BIN" trace export "$SCRATCH/huge-pool.ctr" --format $format \
        -o "$SCRATCH/out.$format" 2>"$SCRATCH/err"
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "trace export --format $format exited $rc"; }
done
"$PYTHON" - "$SCRATCH/out.oracle-general" <<'PY' || fail "oracle-general export of the hostile trace is wrong"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert len(data) == 48, len(data)
assert struct.unpack("<IQIq", data[:24]) == (0, 0xFFFFFFFE, 131072, 2), struct.unpack("<IQIq", data[:24])
assert struct.unpack("<IQIq", data[24:]) == (0, 0xFFFFFFFE, 131072, -1), struct.unpack("<IQIq", data[24:])
PY
[ "$(cat "$SCRATCH/out.txt")" = "$(printf '4294967294\n4294967294')" ] || fail "txt export of the hostile trace"
note "a compiled trace claiming 2^32-1 containers exports in memory of its accesses (3 formats)"
