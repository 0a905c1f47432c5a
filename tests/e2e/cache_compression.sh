#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cache_compression.sh: ssd-cache-compression none, lz4 and zstd on the
# real read path. Every replay is verified (each file's SHA-256); real and
# simulation mode (text and compiled traces) give the same hits, misses
# and bytes written; lz4 and zstd store some copies compressed and write
# fewer bytes than the containers hold, none writes them whole; copies
# damaged on the SSD (header fields intact, compressed bytes changed) are
# misses refetched and counted, never wrong bytes; a cache written with
# one compression and opened with another starts empty and says so; bad
# settings exit 2.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 23 7 0.6 400
cut -f1,2 "$SCRATCH/trace" > "$SCRATCH/whole" # --verify checks whole files
mv "$SCRATCH/whole" "$SCRATCH/trace"

cached() { dst -p"ssd-cache-policy lru" -p"ssd-cache-size 6" -p"ssd-cache-directory $SCRATCH/cache-$comp" \
    -p"ssd-cache-compression $comp" "$@"; }

dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.ctr" >/dev/null
for comp in none lz4 zstd; do
    cached read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/real-$comp.json"
    cached read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/sim-$comp.json"
    # a compiled trace's simulation runs the core's own loop: the same figures
    cached read-file --trace "$SCRATCH/trace.ctr" --simulate --json > "$SCRATCH/compiled-$comp.json"
    cached read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/again-$comp.json" 2>"$SCRATCH/err"
    [ ! -s "$SCRATCH/err" ] || { cat "$SCRATCH/err" >&2; fail "$comp: the second replay warned"; }
    "$PYTHON" - "$SCRATCH" "$comp" <<'PY' || fail "$comp: figures"
import json, sys
d, comp = sys.argv[1:3]
real, sim, again, compiled = (json.load(open("%s/%s-%s.json" % (d, k, comp)))["cache"]
                              for k in ("real", "sim", "again", "compiled"))
for k in ("hits", "misses", "admissions", "evictions", "ssd_bytes_written", "ssd_logical_bytes_written",
          "ssd_compressed_written", "ssd_bytes_read", "cached_stored_bytes"):
    assert real[k] == sim[k] == compiled[k], (k, real[k], sim[k], compiled[k])
assert abs(real["model_elapsed_ms"] - sim["model_elapsed_ms"]) < 1e-6 * max(1, real["model_elapsed_ms"])
for c in (real, again):
    assert c["compression"] == comp, c["compression"]
    assert c["ssd_corrupt_dropped"] == 0 and c["ssd_read_errors"] == 0, c
    assert c["ssd_logical_bytes_written"] == c["ssd_containers_written"] * c["container_size"], c
    assert c["capacity_logical_bytes"] == c["capacity_bytes"] == 6 * c["container_size"], c
    if comp == "none":
        assert c["ssd_bytes_written"] == c["ssd_logical_bytes_written"] and c["ssd_compressed_written"] == 0, c
        assert c["compression_ratio"] == 1.0, c
    else:
        assert 0 < c["ssd_compressed_written"], c
        # each compressed copy saves at least one 4 KiB page; all are pages
        assert c["ssd_bytes_written"] + 4096 * c["ssd_compressed_written"] <= c["ssd_logical_bytes_written"], c
        assert c["compression_ratio"] > 1.0, c
        assert c["cached_stored_bytes"] < c["cached_bytes"], c
assert again["hits"] > real["hits"] and again["hits"] > 0, (real["hits"], again["hits"])
if comp != "none":
    assert again["cpu_decompress_ms"] > 0, again
PY
done
note "SSD bytes written of the container bytes admitted: $("$PYTHON" -c '
import json, sys
for c in sys.argv[1:]:
    j = json.load(open(c))["cache"]
    print("%s %d of %d" % (j["compression"], j["ssd_bytes_written"], j["ssd_logical_bytes_written"]), end="; ")
' "$SCRATCH/real-none.json" "$SCRATCH/real-lz4.json" "$SCRATCH/real-zstd.json")"

# Damage every compressed copy in the lz4 cache (a byte of its compressed
# bytes; the header stays sound) and replay: right bytes, each damaged copy
# hit is dropped and counted.
comp=lz4
damaged=$("$PYTHON" - "$SCRATCH/cache-lz4/slots.dat" 131072 <<'PY'
import struct, sys
path, csize = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
n = 0
for slot in range(len(data) // (4096 + csize) + 1):
    off = slot * (4096 + csize)
    if off + 4096 > len(data) or data[off:off + 8] != b"DPLCSLT1":
        continue
    codec, stored = struct.unpack_from("<II", data, off + 40)
    if codec == 0:
        continue
    at = off + 4096 + (stored * 2) // 3
    data[at] ^= 0x5A
    n += 1
open(path, "r+b").write(data)
print(n)
PY
)
[ "$damaged" -gt 0 ] || fail "no compressed copy in the lz4 cache to damage"
cached read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/damaged.json" 2>"$SCRATCH/err"
grep -q "is damaged; dropped" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "no warning about damaged copies"; }
"$PYTHON" - "$SCRATCH/damaged.json" "$damaged" <<'PY' || fail "damaged copies not counted"
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
n = int(sys.argv[2])
assert 1 <= c["ssd_corrupt_dropped"] <= n, (c["ssd_corrupt_dropped"], n)
assert c["ssd_decode_failed"] <= c["ssd_corrupt_dropped"], c
assert c["ssd_read_errors"] == 0, c
PY
rm -rf "$SCRATCH/r"
cached restore 1 "$SCRATCH/r" >/dev/null
same_tree "$SCRATCH/data/v2" "$SCRATCH/r"

# Opened with another compression: starts empty, says so, still right.
dst -p"ssd-cache-policy lru" -p"ssd-cache-size 6" -p"ssd-cache-directory $SCRATCH/cache-lz4" \
    -p"ssd-cache-compression zstd" read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/other.json" 2>"$SCRATCH/err"
grep -q "was written with ssd-cache-compression lz4, opened with zstd; starting empty" "$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "no word about the other compression"; }
[ "$(grep -c . "$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "expected one line on stderr"; }

# Bad settings: exit 2, one line naming the key.
expect_status 2 dst -p"ssd-cache-compression gzip" policies
grep -q "^destor: .*ssd-cache-compression: invalid value \"gzip\" (expected none, lz4 or zstd)" "$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "gzip: no clear error"; }
expect_status 2 dst -p"ssd-cache-compression-level 3" policies
grep -q "^destor: .*ssd-cache-compression-level: invalid value \"3\" (ssd-cache-compression none takes no level" "$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "level with none: no clear error"; }
expect_status 2 dst -p"ssd-cache-compression zstd" -p"ssd-cache-compression-level 20" policies
expect_status 0 dst -p"ssd-cache-compression zstd" -p"ssd-cache-compression-level 19" policies
