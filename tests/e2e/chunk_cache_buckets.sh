#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunk_cache_buckets.sh: the chunk cache with AustereCache's bucket layout
# (ssd-cache-layout buckets, policy austere) end to end. Simulation makes
# exactly the decisions real mode makes on the same trace (the bucket
# index and sketch run without the data); files read through it are byte
# for byte the originals, uncompressed and with lz4 and zstd, the second
# time from the SSD; chunk bytes damaged on the SSD are misses refetched
# and counted (--verify checks every file's digest); a directory written
# with one layout and opened with the other is rebuilt, said on stderr;
# mismatched policy and layout are configuration errors. With lz4 and zstd
# simulation (each admitted chunk compressed once, its stored length
# remembered) places chunks in the sub-slots real mode does: the same
# decisions and stored bytes.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 33 8 0.9 300
CACHE="$SCRATCH/ssd"
awk -F'\t' 'NF == 2' "$SCRATCH/trace" > "$SCRATCH/whole"   # --verify checks whole files
bk() { dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy austere" -p"ssd-cache-layout buckets" "$@"; }
real() { bk -p"ssd-cache-directory $CACHE" "$@"; }

"$DESTOR_BIN" policies --json | "$PYTHON" -c '
import json, sys
assert "austere" in [p["name"] for p in json.load(sys.stdin)["chunk_policies"]]' || fail "austere is not a chunk policy"

# Simulation = real mode, with a cache of a few buckets (evicting) and a larger one.
for size in 800K 4M; do
    rm -rf "$CACHE"
    real -p"ssd-cache-size $size" read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/real.json"
    bk -p"ssd-cache-size $size" read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/sim.json"
    "$PYTHON" - "$SCRATCH/real.json" "$SCRATCH/sim.json" "$size" <<'PY'
import json, sys
real, sim = (json.load(open(f))["cache"] for f in sys.argv[1:3])
assert real["mode"] == "real" and sim["mode"] == "simulate", (real, sim)
assert real["layout"] == sim["layout"] == "buckets", (real, sim)
for k in ("hits", "misses", "misses_cached", "admissions", "refused", "evictions", "hdd_reads", "hdd_bytes_read",
          "bytes_hit", "admitted_bytes", "cached_chunks", "cached_bytes"):
    assert real[k] == sim[k], (sys.argv[3], k, real[k], sim[k])
assert real["damaged"] == 0 and real["ssd_write_errors"] == 0, real
b = real["chunk_buckets"]
assert b["chunks_dropped_by_layout"] == real["evictions"], real
assert b["user_bytes_written"] == real["admitted_bytes"], real
assert real["ssd_bytes_written"] == b["device_bytes_written"] >= real["admitted_bytes"], real
assert real["hits"] > 0, real
# simulation reports the buckets' model, not a log of zeros
assert "chunk_log" not in sim and "device_bytes_written" not in sim["chunk_buckets"], sim
assert sim["chunk_buckets"]["user_bytes_written"] == b["user_bytes_written"], (sim, real)
if sys.argv[3] == "800K":
    assert real["evictions"] > 0, real
PY
done

# Simulation = real mode with compression: the sub-slots of compressed chunks.
for codec in lz4 zstd; do
    rm -rf "$CACHE"
    real -p"ssd-cache-size 800K" -p"ssd-cache-compression $codec" read-file --trace "$SCRATCH/whole" --verify \
        --json > "$SCRATCH/real.json"
    bk -p"ssd-cache-size 800K" -p"ssd-cache-compression $codec" read-file --trace "$SCRATCH/whole" --simulate \
        --json > "$SCRATCH/sim.json"
    "$PYTHON" - "$SCRATCH/real.json" "$SCRATCH/sim.json" "$codec" <<'PY'
import json, sys
real, sim = (json.load(open(f))["cache"] for f in sys.argv[1:3])
for k in ("hits", "misses", "admissions", "refused", "evictions", "admitted_bytes", "cached_chunks", "cached_bytes",
          "ssd_logical_bytes_written", "ssd_compressed_written", "cached_stored_bytes", "capacity_logical_bytes"):
    assert real[k] == sim[k], (sys.argv[3], k, real[k], sim[k])
assert abs(real["compression_ratio"] - sim["compression_ratio"]) < 1e-9, (real, sim)
assert real["damaged"] == 0 and real["evictions"] > 0 and real["ssd_compressed_written"] > 0, real
assert 0 < sim["stored_lengths"] <= sim["admissions"] and sim["stored_lengths_unread"] == 0, sim
PY
done

# Container fetch through the buckets: the offered chunks go into the
# layout as any admission; real mode still makes simulation's decisions
# and every file's digest checks.
rm -rf "$CACHE"
real -p"ssd-cache-size 800K" -p"ssd-cache-chunk-fetch container" read-file --trace "$SCRATCH/whole" --verify \
    --json > "$SCRATCH/real.json"
bk -p"ssd-cache-size 800K" -p"ssd-cache-chunk-fetch container" read-file --trace "$SCRATCH/whole" --simulate \
    --json > "$SCRATCH/sim.json"
"$PYTHON" - "$SCRATCH/real.json" "$SCRATCH/sim.json" <<'PY'
import json, sys
real, sim = (json.load(open(f))["cache"] for f in sys.argv[1:3])
for k in ("hits", "misses", "admissions", "refused", "evictions", "offered", "offers_admitted", "offers_refused",
          "offers_cached", "cached_bytes"):
    assert real[k] == sim[k], (k, real[k], sim[k])
assert real["offers_admitted"] > 0 and real["offers_mismatched"] == 0 and real["damaged"] == 0, real
PY

# One file read twice, each compression: the original bytes both times,
# the second from the SSD.
awk -F'\t' '$1 == 1 { print; exit }' "$SCRATCH/whole" > "$SCRATCH/one"
path=$(cut -f2 "$SCRATCH/one")
for codec in none lz4 zstd; do
    rm -rf "$CACHE"
    for pass in 1 2; do
        real -p"ssd-cache-size 4M" -p"ssd-cache-compression $codec" read-file 1 "$path" -o "$SCRATCH/out$pass"
        cmp "$SCRATCH/out$pass" "$SCRATCH/data/v2/$path" || fail "$codec pass $pass: other bytes through the buckets"
        real -p"ssd-cache-size 4M" -p"ssd-cache-compression $codec" read-file --trace "$SCRATCH/one" --verify \
            --json > "$SCRATCH/pass$pass.json"
    done
    "$PYTHON" - "$SCRATCH/pass2.json" "$codec" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["hits"] > 0 and c["misses"] == 0 and c["damaged"] == 0, (sys.argv[2], c)
PY
    # the compression report, over a cold pass of the whole trace (the
    # generated files are mostly random: some chunks compress), against none's
    rm -rf "$CACHE"
    real -p"ssd-cache-size 4M" -p"ssd-cache-compression $codec" read-file --trace "$SCRATCH/whole" --verify \
        --json > "$SCRATCH/codec-$codec.json"
    "$PYTHON" - "$SCRATCH/codec-$codec.json" "$codec" "$SCRATCH/codec-none.json" <<'PY'
import json, sys
c, codec = json.load(open(sys.argv[1]))["cache"], sys.argv[2]
none = json.load(open(sys.argv[3]))["cache"]
assert c["compression"] == codec, c
b = c["chunk_buckets"]
assert c["ssd_logical_bytes_written"] == b["user_bytes_written"] == c["admitted_bytes"], c
if codec == "none":
    assert c["ssd_compressed_written"] == 0 and c["compression_ratio"] <= 1.0, c
    assert c["capacity_logical_bytes"] <= c["capacity_bytes"], c   # sub-slot padding
else:
    assert c["ssd_compressed_written"] > 0 and c["compression_ratio"] > none["compression_ratio"], (c, none)
    assert c["capacity_logical_bytes"] > none["capacity_logical_bytes"], (c, none)
    assert c["cpu_compress_ms"] > 0, c
assert c["cached_stored_bytes"] > 0 and c["cached_stored_bytes"] % 2048 == 0, c
PY
    [ -s "$CACHE/chunks.buckets" ] || fail "no chunks.buckets in $CACHE"
done

# Damage bytes all over the buckets' sub-slots (a bucket is 8 KiB of
# metadata, then 256 KiB of sub-slots): each damaged chunk is a miss read
# from the store, counted; the files' digests still check. (A damaged
# metadata area empties its bucket at open: tests/unit/test_chunk_buckets.)
rm -rf "$CACHE"
real -p"ssd-cache-size 4M" -p"ssd-cache-compression lz4" read-file --trace "$SCRATCH/whole" --verify >/dev/null
"$PYTHON" - "$CACHE/chunks.buckets" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    for i in range(100, len(data), 1499):
        if i % (264 * 1024) >= 8192:
            data[i] ^= 0x5A
    f.seek(0)
    f.write(data)
PY
real -p"ssd-cache-size 4M" -p"ssd-cache-compression lz4" read-file --trace "$SCRATCH/whole" --verify --json \
    > "$SCRATCH/damaged.json"
"$PYTHON" - "$SCRATCH/damaged.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["damaged"] > 0, c
PY

# Buckets opened as a log, and back: rebuilt, said on stderr, right bytes.
dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-directory $CACHE" -p"ssd-cache-size 4M" \
    read-file --trace "$SCRATCH/whole" --verify >/dev/null 2>"$SCRATCH/tolog.err"
grep -q "^destor: .*rebuilding it as a chunk log" "$SCRATCH/tolog.err" || fail "no note when buckets became a log: $(cat "$SCRATCH/tolog.err")"
[ ! -e "$CACHE/chunks.buckets" ] || fail "chunks.buckets left beside the chunk log"
real -p"ssd-cache-size 4M" read-file --trace "$SCRATCH/whole" --verify >/dev/null 2>"$SCRATCH/tobk.err"
grep -q "^destor: .*rebuilding it as a chunk cache in buckets" "$SCRATCH/tobk.err" || fail "no note when a log became buckets: $(cat "$SCRATCH/tobk.err")"
[ -s "$CACHE/chunks.buckets" ] || fail "no chunks.buckets after the rebuild"
# another compression: rebuilt too, said on stderr
real -p"ssd-cache-size 4M" -p"ssd-cache-compression zstd" read-file --trace "$SCRATCH/whole" --verify >/dev/null 2>"$SCRATCH/codec.err"
grep -q "^destor: " "$SCRATCH/codec.err" || fail "no note when the compression changed"

# Mismatches are configuration errors.
expect_status 2 bk -p"ssd-cache-policy lru" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-layout buckets needs ssd-cache-policy austere" "$SCRATCH/err" || fail "no policy error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy austere" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*austere needs ssd-cache-layout buckets" "$SCRATCH/err" || fail "no layout error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-layout buckets" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-layout buckets applies to ssd-cache-granularity chunk only" "$SCRATCH/err" || fail "no granularity error: $(cat "$SCRATCH/err")"
# the log's segment keys with buckets: errors, not ignored
for kv in "ssd-cache-segment-size 1M" "ssd-cache-segment-reclaim clean"; do
    expect_status 2 bk -p"$kv" read-file --trace "$SCRATCH/trace" --simulate
    grep -q "^destor: ${kv%% *} applies to ssd-cache-layout log only" "$SCRATCH/err" ||
        fail "no layout error for $kv: $(cat "$SCRATCH/err")"
done
expect_status 2 bk -p"ssd-cache-size 100K" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*bucket" "$SCRATCH/err" || fail "no error for a cache smaller than a bucket: $(cat "$SCRATCH/err")"
