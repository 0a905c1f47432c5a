#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunk_log_reinsert.sh: ssd-cache-segment-reclaim reinsert end to end.
# The log has the cache's bytes (as evict) and rewrites the live chunks
# the policy keeps when it reclaims its oldest segment. Real mode and
# simulation make the same decisions and count the same SSD bytes
# (reinserted bytes included) for the policies that keep (lru, arc,
# tinylfu), one that keeps nothing (d-lru: a FIFO, as evict) and with
# lz4; the files read are the originals (--verify); lru keeps chunks and
# its reinserted bytes are SSD bytes written; a policy without the op
# makes evict's decisions; a second run over the same directory (a clean
# restart after reinsertion) hits on what the first read last and reads
# the original bytes, and so does one after the chunk bytes on the SSD
# were damaged.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 41 9 0.9 300
CACHE="$SCRATCH/ssd"
awk -F'\t' 'NF == 2' "$SCRATCH/trace" > "$SCRATCH/whole"   # --verify checks whole files
chunk() { dst -p"ssd-cache-granularity chunk" -p"ssd-cache-segment-size 64K" -p"ssd-cache-size 25%" "$@"; }
real() { chunk -p"ssd-cache-directory $CACHE" "$@"; }

same() { # real.json sim.json label
    "$PYTHON" - "$@" <<'PY'
import json, sys
real, sim = (json.load(open(f))["cache"] for f in sys.argv[1:3])
label = sys.argv[3]
assert real["mode"] == "real" and sim["mode"] == "simulate", (real, sim)
for k in ("hits", "misses", "admissions", "refused", "evictions", "log_dropped", "hdd_bytes_read",
          "ssd_bytes_written", "cached_chunks", "cached_bytes", "cached_stored_bytes"):
    assert real[k] == sim[k], (label, k, real[k], sim[k])
for k in ("reclaim", "capacity_bytes", "device_bytes_written", "user_stored_bytes_written", "cleaner_bytes_written",
          "reinserted_bytes_written", "chunks_reinserted", "segments_written", "segments_evicted",
          "segments_reinserted"):
    assert real["chunk_log"][k] == sim["chunk_log"][k], (label, k, real["chunk_log"][k], sim["chunk_log"][k])
log = real["chunk_log"]
assert log["reclaim"] == "reinsert" and log["segments_evicted"] == 0 and log["cleaner_bytes_written"] == 0, log
assert log["segments_reinserted"] > 0, (label, log)  # the trace does go round the log
assert log["user_stored_bytes_written"] + log["reinserted_bytes_written"] <= log["device_bytes_written"], log
assert real["ssd_bytes_written"] == log["device_bytes_written"], real
assert real["damaged"] == 0 and real["ssd_write_errors"] == 0, real
PY
}

for policy in lru arc tinylfu d-lru; do
    for codec in none lz4; do
        [ "$codec" = lz4 ] && [ "$policy" != lru ] && continue
        rm -rf "$CACHE"
        set -- -p"ssd-cache-policy $policy" -p"ssd-cache-segment-reclaim reinsert" -p"ssd-cache-compression $codec"
        real "$@" read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/real-$policy-$codec.json"
        chunk "$@" read-file --trace "$SCRATCH/whole" --simulate --json > "$SCRATCH/sim-$policy-$codec.json"
        same "$SCRATCH/real-$policy-$codec.json" "$SCRATCH/sim-$policy-$codec.json" "$policy $codec"
    done
done

# lru keeps chunks hit since written: rewrites counted as SSD bytes; d-lru
# has no keep op, so its reinsert is evict's FIFO, decision for decision.
for policy in lru d-lru; do
    chunk -p"ssd-cache-policy $policy" -p"ssd-cache-segment-reclaim evict" \
        read-file --trace "$SCRATCH/whole" --simulate --json > "$SCRATCH/evict-$policy.json"
done
"$PYTHON" - "$SCRATCH/sim-lru-none.json" "$SCRATCH/evict-lru.json" "$SCRATCH/sim-d-lru-none.json" \
    "$SCRATCH/evict-d-lru.json" <<'PY'
import json, sys
lru, lru_evict, dlru, dlru_evict = (json.load(open(f))["cache"] for f in sys.argv[1:5])
log = lru["chunk_log"]
assert log["chunks_reinserted"] > 0 and log["reinserted_bytes_written"] > 0, log
assert lru["hits"] != lru_evict["hits"], (lru, lru_evict)  # the policy acts where evict is a FIFO
assert dlru["chunk_log"]["chunks_reinserted"] == 0, dlru
for k in ("hits", "misses", "admissions", "log_dropped", "ssd_bytes_written"):
    assert dlru[k] == dlru_evict[k], (k, dlru[k], dlru_evict[k])
PY

# A clean restart after reinsertion: the trace's last request read again
# by a second run hits (the chunks it read last are held at the close) and
# is the original file.
rm -rf "$CACHE"
tail -n 1 "$SCRATCH/whole" > "$SCRATCH/last"
real -p"ssd-cache-policy lru" -p"ssd-cache-segment-reclaim reinsert" \
    read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/pass1.json"
real -p"ssd-cache-policy lru" -p"ssd-cache-segment-reclaim reinsert" \
    read-file --trace "$SCRATCH/last" --verify --json > "$SCRATCH/pass2.json"
"$PYTHON" - "$SCRATCH/pass1.json" "$SCRATCH/pass2.json" <<'PY'
import json, sys
one, two = (json.load(open(f))["cache"] for f in sys.argv[1:3])
assert one["chunk_log"]["chunks_reinserted"] > 0, one
assert two["hits"] > 0 and two["damaged"] == 0, (one, two)
PY

# Damaged chunk bytes on the SSD: misses refetched and counted (found by
# a hit or while reinserting), never served; the files' digests check.
"$PYTHON" - "$CACHE/chunks.log" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    for i in range(100, len(data), 997):
        if i % 65536 >= 64 and i % 65536 < 32768:  # the segments' chunk bytes, not headers or tables
            data[i] ^= 0x5A
    f.seek(0)
    f.write(data)
PY
real -p"ssd-cache-policy lru" -p"ssd-cache-segment-reclaim reinsert" \
    read-file --trace "$SCRATCH/whole" --verify --json > "$SCRATCH/damaged.json"
"$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["cache"]; assert c["chunk_log"]["damaged_reads"] > 0, c' \
    "$SCRATCH/damaged.json"
