#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunk_cache_real.sh: the chunk cache in real mode (the chunk log on the
# SSD directory). Every chunk policy serves a two-job trace (byte ranges
# too; every chunk checked against its fingerprint) and makes exactly the
# decisions simulation makes, with ssd-cache-segment-reclaim clean (the log
# dropping nothing) and evict (the log's whole-segment drops modelled in
# simulation), counting the same SSD bytes (lru under a write budget too,
# with each admission rule that spends one), with container fetch's offers
# too; a file read twice through the cache is
# byte for byte the original, the second time from the SSD; restore
# through the chunk cache gives the same tree; chunk bytes damaged on the
# SSD are refetched and counted, never served (--verify checks every
# file's digest); with evict the log's own drops are counted and the
# bytes stay right; a container cache's directory opened at chunk
# granularity is rebuilt, and a chunk cache's at container granularity
# loses its chunk log, each with a note on stderr. With compression (lz4,
# zstd) the log stores chunks compressed: simulation (which compresses
# each admitted chunk once) makes real mode's decisions and counts the
# same compressed chunks and stored bytes; files read through it are the
# originals; damaged compressed chunks are misses refetched; a log written
# with one compression opened with another starts empty, said on stderr.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 33 8 0.9 300
CACHE="$SCRATCH/ssd"
awk -F'\t' 'NF == 2' "$SCRATCH/trace" > "$SCRATCH/whole"   # --verify checks whole files
real() { dst -p"ssd-cache-granularity chunk" -p"ssd-cache-directory $CACHE" -p"ssd-cache-segment-size 64K" "$@"; }

# (austere goes with ssd-cache-layout buckets: chunk_cache_buckets.sh)
POLICIES=$("$DESTOR_BIN" policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["chunk_policies"] if p["name"] != "austere"))')
# Real and simulated runs of one trace make the same decisions: the same
# hits, admissions and evictions, the same chunks the log drops by itself
# (evict: Nitro's whole segments; clean: none, the log is given room) and
# the same SSD bytes (whole segments, the cleaner's rewrites, chunklog.meta;
# the open segment is not written until the close, after the report).
same_decisions() { # real.json sim.json label keys...
    "$PYTHON" - "$@" <<'PY'
import json, sys
real, sim = (json.load(open(f))["cache"] for f in sys.argv[1:3])
label, keys = sys.argv[3], sys.argv[4:]
assert real["mode"] == "real" and sim["mode"] == "simulate", (real, sim)
for k in keys + ["log_dropped", "ssd_bytes_written", "write_amplification", "cached_stored_bytes"]:
    assert real[k] == sim[k], (label, k, real[k], sim[k])
for k in ("capacity_bytes", "user_bytes_written", "user_stored_bytes_written", "cleaner_bytes_written",
          "device_bytes_written", "segments_written", "segments_evicted", "segments_cleaned"):
    assert real["chunk_log"][k] == sim["chunk_log"][k], (label, "chunk_log", k, real["chunk_log"][k], sim["chunk_log"][k])
assert real["damaged"] == 0 and real["ssd_write_errors"] == 0, real
log = real["chunk_log"]
assert log["user_stored_bytes_written"] + log["cleaner_bytes_written"] <= log["device_bytes_written"], log
assert real["ssd_bytes_written"] == log["device_bytes_written"], real
# all but the open segment's stored bytes (the puts' stored bytes: admitted / compression ratio)
assert log["user_stored_bytes_written"] >= real["admitted_bytes"] / real["compression_ratio"] - 65536 - 1, real
assert real["hits"] > 0, real
PY
}
DECISIONS="hits misses misses_cached admissions refused evictions hdd_reads hdd_bytes_read bytes_hit admitted_bytes cached_chunks cached_bytes"
for reclaim in clean evict; do
    for policy in $POLICIES; do
        rm -rf "$CACHE"
        set -- -p"ssd-cache-policy $policy" -p"ssd-cache-size 25%" -p"ssd-cache-segment-reclaim $reclaim"
        real "$@" read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/real.json"
        dst -p"ssd-cache-granularity chunk" -p"ssd-cache-segment-size 64K" "$@" \
            read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/sim.json"
        same_decisions "$SCRATCH/real.json" "$SCRATCH/sim.json" "$policy $reclaim" $DECISIONS
        [ "$reclaim" = clean ] && "$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["cache"]; assert c["log_dropped"] == 0, c' "$SCRATCH/real.json"
    done
done
# (the last, evict: the log did reclaim segments and drop live chunks, as simulation did)
"$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["cache"]; assert c["chunk_log"]["segments_evicted"] > 0 and c["log_dropped"] > 0, c' "$SCRATCH/real.json"

# The admission rules that spend a write budget (compete, learned) decide
# alike in real mode and in simulation, refusing some misses, with each
# reclaim (clean's cleaner rewrites and reinsert's kept chunks charged to
# the budget alike).
for reclaim in clean evict reinsert; do
  for admission in compete learned; do
    rm -rf "$CACHE"
    set -- -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" -p"ssd-cache-write-budget 2048" \
        -p"ssd-cache-admission $admission" -p"ssd-cache-segment-reclaim $reclaim"
    real "$@" read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/real.json"
    dst -p"ssd-cache-granularity chunk" -p"ssd-cache-segment-size 64K" "$@" \
        read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/sim.json"
    same_decisions "$SCRATCH/real.json" "$SCRATCH/sim.json" "lru $admission $reclaim" $DECISIONS refused_admission
    "$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["cache"]; assert c["refused_admission"] > 0, c' "$SCRATCH/real.json"
  done
done

# Container fetch: the misses' containers' other chunks are offered; real
# mode puts the admitted ones from the container it read (each
# fingerprinted) and makes the decisions simulation makes, with either
# reclaim; every file's digest checks, and a second pass hits on offered
# chunks.
for reclaim in clean evict; do
    for policy in lru tinylfu cdac-lru; do
        rm -rf "$CACHE"
        set -- -p"ssd-cache-policy $policy" -p"ssd-cache-size 25%" -p"ssd-cache-segment-reclaim $reclaim" \
            -p"ssd-cache-chunk-fetch container"
        real "$@" read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/real.json"
        dst -p"ssd-cache-granularity chunk" -p"ssd-cache-segment-size 64K" "$@" \
            read-file --trace "$SCRATCH/whole" --simulate --json > "$SCRATCH/sim.json"
        same_decisions "$SCRATCH/real.json" "$SCRATCH/sim.json" "$policy $reclaim fetch container" $DECISIONS \
            offered offers_admitted offers_refused offers_cached
        "$PYTHON" - "$SCRATCH/real.json" <<'PY'
import json, sys
real = json.load(open(sys.argv[1]))["cache"]
assert real["offers_admitted"] > 0 and real["offers_mismatched"] == 0 and real["damaged"] == 0, real
PY
    done
done

# Compression in the log: simulation = real mode with either reclaim, the
# same decisions and the same SSD bytes (segments, the cleaner's rewrites of
# stored bytes), and the same stored bytes: simulation gives the log's model
# each chunk's stored length by the log's rule.
for reclaim in clean evict; do
  for codec in lz4 zstd; do
    for policy in lru tinylfu; do
        rm -rf "$CACHE"
        set -- -p"ssd-cache-policy $policy" -p"ssd-cache-size 25%" -p"ssd-cache-segment-reclaim $reclaim" \
            -p"ssd-cache-compression $codec"
        real "$@" read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/real.json"
        dst -p"ssd-cache-granularity chunk" -p"ssd-cache-segment-size 64K" "$@" \
            read-file --trace "$SCRATCH/whole" --simulate --json > "$SCRATCH/sim.json"
        same_decisions "$SCRATCH/real.json" "$SCRATCH/sim.json" "$codec $policy $reclaim" $DECISIONS
        rm -rf "$CACHE"
        real -p"ssd-cache-policy $policy" -p"ssd-cache-size 25%" -p"ssd-cache-segment-reclaim $reclaim" \
            read-file --trace "$SCRATCH/whole" --json > "$SCRATCH/none.json"
        "$PYTHON" - "$SCRATCH/real.json" "$SCRATCH/sim.json" "$SCRATCH/none.json" "$codec $policy $reclaim" <<'PY'
import json, sys
real, sim, none = (json.load(open(f))["cache"] for f in sys.argv[1:4])
label = sys.argv[4]
for k in ("ssd_logical_bytes_written", "ssd_compressed_written", "cached_stored_bytes"):
    assert real[k] == sim[k], (label, k, real[k], sim[k])
for k in ("user_stored_bytes_written", "cleaner_bytes_written"):
    assert real["chunk_log"][k] == sim["chunk_log"][k], (label, k, real["chunk_log"], sim["chunk_log"])
assert abs(real["compression_ratio"] - sim["compression_ratio"]) < 1e-9, (real, sim)
assert real["damaged"] == 0 and real["ssd_write_errors"] == 0, real
assert real["ssd_compressed_written"] > 0 and real["compression_ratio"] > 1.0, real
assert real["cached_stored_bytes"] < real["cached_bytes"], real
assert real["cpu_compress_ms"] > 0 and sim["cpu_compress_ms"] > 0, (real, sim)
assert 0 < sim["stored_lengths"] <= sim["admissions"] and sim["stored_length_bytes"] > 0, sim  # once per chunk
assert sim["stored_lengths_unread"] == 0, sim
log, nlog = real["chunk_log"], none["chunk_log"]
assert log["user_stored_bytes_written"] < log["user_bytes_written"], log
if label.endswith("clean"):
    # with room made by the cleaner compression changes no decision of the log's (the policy counts
    # chunk bytes); it writes fewer bytes
    assert real["log_dropped"] == 0, real
    for k in ("hits", "misses", "admissions", "evictions", "cached_bytes"):
        assert real[k] == none[k], (label, k, real[k], none[k])
    assert log["device_bytes_written"] <= nlog["device_bytes_written"], (log, nlog)
PY
    done
  done
done
for codec in lz4 zstd; do
    # one file read twice: the original bytes, the second time from the SSD (decompressed)
    rm -rf "$CACHE"
    path=$(awk -F'\t' '$1 == 1 { print $2; exit }' "$SCRATCH/trace")
    for pass in 1 2; do
        real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-compression $codec" \
            read-file 1 "$path" -o "$SCRATCH/out$pass"
        cmp "$SCRATCH/out$pass" "$SCRATCH/data/v2/$path" || fail "$codec pass $pass: other bytes through the chunk log"
    done
    # damaged compressed bytes: misses refetched and counted, the files' digests check
    rm -rf "$CACHE"
    real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-compression $codec" \
        read-file --trace "$SCRATCH/whole" --verify >/dev/null
    "$PYTHON" - "$CACHE/chunks.log" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    for i in range(100, len(data), 1499):
        if i % 65536 >= 64 and i % 65536 < 32768:  # the segments' chunk bytes, not headers or tables
            data[i] ^= 0x5A
    f.seek(0)
    f.write(data)
PY
    real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-compression $codec" \
        read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/damaged.json"
    "$PYTHON" - "$SCRATCH/damaged.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["damaged"] > 0 and c["chunk_log"]["damaged_reads"] > 0, c
PY
done
# written with lz4, opened with zstd: started empty, said on stderr, right bytes
real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-compression lz4" \
    read-file --trace "$SCRATCH/whole" --verify >/dev/null
real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-compression zstd" \
    read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/other.json" 2>"$SCRATCH/other.err"
grep -q "^destor: .*ssd-cache-compression lz4 (this run: zstd); starting it empty" "$SCRATCH/other.err" ||
    fail "no note when the chunk log's compression changed: $(cat "$SCRATCH/other.err")"
"$PYTHON" - "$SCRATCH/other.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["damaged"] == 0 and c["hits"] > 0, c
PY

# One file read twice: the original bytes both times, the second from the SSD.
path=$(awk -F'\t' '$1 == 1 { print $2; exit }' "$SCRATCH/trace")
rm -rf "$CACHE"
for pass in 1 2; do
    real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" read-file 1 "$path" -o "$SCRATCH/out$pass"
    cmp "$SCRATCH/out$pass" "$SCRATCH/data/v2/$path" || fail "pass $pass: read-file through the chunk cache gave other bytes"
done
[ -s "$CACHE/chunks.log" ] || fail "no chunk log in $CACHE"

# restore reads through the chunk cache too: the same tree, cold and warm.
rm -rf "$CACHE"
for pass in 1 2; do
    real -p"ssd-cache-policy cdac-arc" -p"ssd-cache-size 50%" restore 1 "$SCRATCH/r$pass" >/dev/null
    same_tree "$SCRATCH/data/v2" "$SCRATCH/r$pass"
done
[ -s "$CACHE/chunks.log" ] || fail "restore left no chunk log in $CACHE"

# Damage every chunk byte on the SSD after the first segment header: each
# damaged chunk is a miss read from the store, counted, and the files'
# digests still check.
real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" read-file --trace "$SCRATCH/whole" --verify >/dev/null
size=$(wc -c < "$CACHE/chunks.log")
"$PYTHON" - "$CACHE/chunks.log" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    for i in range(4096, len(data), 997):
        data[i] ^= 0x5A
    f.seek(0)
    f.write(data)
PY
real -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/damaged.json"
"$PYTHON" - "$SCRATCH/damaged.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["damaged"] > 0 or c["chunk_log"]["damaged_segments"] > 0, c
PY
[ "$(wc -c < "$CACHE/chunks.log")" -ge "$size" ] || fail "the chunk log shrank"

# evict (Nitro's whole segments): the log drops live chunks by itself; the
# policy is told, the drops are counted and the bytes stay right.
rm -rf "$CACHE"
real -p"ssd-cache-policy d-lru" -p"ssd-cache-size 10%" -p"ssd-cache-segment-reclaim evict" \
    read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/evict.json"
"$PYTHON" - "$SCRATCH/evict.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["chunk_log"]["segments_evicted"] > 0 and c["log_dropped"] > 0, c
assert c["cached_bytes"] <= c["capacity_bytes"], c
PY

# A container cache's directory at chunk granularity: rebuilt, said on stderr.
rm -rf "$CACHE"
dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $CACHE" -p"ssd-cache-size 4" read-file --trace "$SCRATCH/trace" >/dev/null
[ -e "$CACHE/cache.meta" ] || [ -e "$CACHE/slots.dat" ] || fail "no container cache in $CACHE"
real -p"ssd-cache-policy lru" -p"ssd-cache-size 10%" read-file --trace "$SCRATCH/whole" --verify >/dev/null 2>"$SCRATCH/rebuild.err"
grep -q "^destor: " "$SCRATCH/rebuild.err" || fail "no note on stderr when a container cache's directory was rebuilt"

# And back: the chunk cache's directory at container granularity loses its
# chunk log, said on stderr.
dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $CACHE" -p"ssd-cache-size 4" read-file --trace "$SCRATCH/whole" --verify >/dev/null 2>"$SCRATCH/back.err"
grep -q "^destor: .*holds a chunk cache" "$SCRATCH/back.err" || fail "no note on stderr when a chunk cache's directory was reused"
[ ! -e "$CACHE/chunks.log" ] || fail "the chunk log was left beside the container cache"
