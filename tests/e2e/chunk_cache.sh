#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunk_cache.sh: the SSD cache at chunk granularity (ssd-cache-granularity
# chunk) on a two-job store and a skewed trace with byte ranges: every
# chunk policy `destor policies --json` lists under chunk_policies replays
# the trace in simulation with its counts adding up; a cache as large as
# the store writes each unique chunk at most once (dedup in the cache) and
# the same trace replayed twice hits on the second pass; container fetch
# reads fewer, larger pieces from the HDD than chunk fetch and offers the
# containers' other chunks to the policy; a policy of the
# other granularity, a compiled trace and real mode are clear errors.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 21 4 0.9 600

dst policies --json | "$PYTHON" -c '
import json, sys
doc = json.load(sys.stdin)
assert all(p["granularity"] == "container" for p in doc["policies"]), doc["policies"]
names = [p["name"] for p in doc["chunk_policies"]]
for want in ("lru", "arc", "d-lru", "d-arc", "cdac-lru", "cdac-arc", "tinylfu", "plc", "sigpop"):
    assert want in names, names
for p in doc["chunk_policies"]:
    assert p["granularity"] == "chunk" and p["description"] and p["citation"], p
    for k in p["keys"]:
        assert k["name"].startswith(p["name"] + "-") and k["default"] and k["doc"], k
'
dst policies | grep -q '^cdac-arc (online, chunk)$' || fail "destor policies (text) does not list cdac-arc as a chunk policy"

POLICIES=$("$DESTOR_BIN" policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["chunk_policies"]))')
for policy in $POLICIES; do
    layout=log size=30%
    [ "$policy" = austere ] && layout=buckets size=1M   # austere goes with buckets: at least one bucket
    dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy $policy" -p"ssd-cache-size $size" \
        -p"ssd-cache-layout $layout" read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/$policy.json"
    "$PYTHON" - "$SCRATCH/$policy.json" "$policy" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
c = doc["cache"]
assert c["granularity"] == "chunk" and c["policy"] == sys.argv[2] and c["mode"] == "simulate", c
assert c["requests"] == doc["requests"] == 600, (c["requests"], doc["requests"])
assert c["hits"] + c["misses"] == c["accesses"] > 0, c
assert c["admissions"] + c["refused"] + c["misses_cached"] == c["misses"], c
assert c["cached_bytes"] <= c["capacity_bytes"], c
if c["layout"] == "log":  # what the log would have written: whole segments and its metadata
    log = c["chunk_log"]
    assert c["ssd_bytes_written"] == log["device_bytes_written"] and log["user_bytes_written"] <= c["admitted_bytes"], c
    assert c["log_dropped"] <= c["admissions"] and log["cleaner_bytes_written"] == 0, c  # evict: no cleaner
else:
    assert c["ssd_bytes_written"] == c["admitted_bytes"] and c["write_amplification"] == 1.0, c
assert c["hdd_reads"] == c["misses"], c
assert 0 < c["hit_ratio"] < 1 and 0 < c["byte_hit_ratio"] <= 1 and 0 <= c["request_hit_ratio"] <= 1, c
assert c["bytes_hit"] <= c["bytes_requested"], c
assert c["bytes_per_cached_chunk"] > 32 and c["memory_bytes"] > 0, c
PY
done

# A cache as large as the store: lru writes each unique chunk once, so the
# bytes written are the unique bytes touched, and a second pass over the
# same trace hits on every chunk it read whole the first time (reclaim
# clean: the log is given room enough never to drop a live chunk; evict's
# whole-segment drops are chunk_cache_real.sh's).
cat "$SCRATCH/trace" "$SCRATCH/trace" > "$SCRATCH/twice"
dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-segment-reclaim clean" \
    read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/once.json"
dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" -p"ssd-cache-segment-reclaim clean" \
    read-file --trace "$SCRATCH/twice" --simulate --json > "$SCRATCH/twice.json"
"$PYTHON" - "$SCRATCH/once.json" "$SCRATCH/twice.json" <<'PY'
import json, sys
once, twice = (json.load(open(f))["cache"] for f in sys.argv[1:])
assert once["evictions"] == 0 and once["admissions"] == once["misses"] and once["log_dropped"] == 0, once
assert twice["ssd_bytes_written"] == once["ssd_bytes_written"], (once, twice)
assert twice["misses"] == once["misses"] and twice["hits"] == once["hits"] + once["accesses"], (once, twice)
PY

# The miss path: whole containers are fewer, larger HDD reads.
for fetch in chunk container; do
    dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy d-lru" -p"ssd-cache-size 10%" \
        -p"ssd-cache-chunk-fetch $fetch" read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/f-$fetch.json"
done
"$PYTHON" - "$SCRATCH/f-chunk.json" "$SCRATCH/f-container.json" <<'PY'
import json, sys
ch, co = (json.load(open(f))["cache"] for f in sys.argv[1:])
assert ch["chunk_fetch"] == "chunk" and co["chunk_fetch"] == "container"
assert ch["accesses"] == co["accesses"] and ch["offered"] == 0, (ch, co)
assert co["hdd_reads"] < ch["hdd_reads"] and co["hdd_bytes_read"] > ch["hdd_bytes_read"], (ch, co)
assert co["hdd_bytes_read"] % (128 * 1024) == 0, co
# container fetch offers each container's other chunks: every offer is
# answered once, and admitted offers are admissions that cost SSD writes
assert co["offered"] > 0 and co["offers_admitted"] > 0, co
assert co["offered"] == co["offers_cached"] + co["offers_admitted"] + co["offers_refused"], co
assert co["offers_mismatched"] == 0, co
assert co["admissions"] == co["misses"] - co["misses_cached"] - co["refused"] + co["offers_admitted"], co
assert co["chunk_log"]["user_bytes_written"] <= co["admitted_bytes"] and co["bytes_per_stored_chunk"] > 32, co
PY
# tinylfu refuses offers it has never seen accessed once the cache is full
dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy tinylfu" -p"ssd-cache-size 10%" \
    -p"ssd-cache-chunk-fetch container" read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/f-tinylfu.json"
"$PYTHON" - "$SCRATCH/f-tinylfu.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["cache"]
assert t["offers_refused"] > 0 and t["offered"] == t["offers_cached"] + t["offers_admitted"] + t["offers_refused"], t
PY

# Wrong granularity, compiled traces and real mode: clear errors.
expect_status 2 dst -p"ssd-cache-policy cdac-lru" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*cdac-lru serves chunk granularity only" "$SCRATCH/err" || fail "no granularity error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy s3fifo" read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*s3fifo serves container granularity only" "$SCRATCH/err" || fail "no granularity error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-granularity block" policies
expect_status 2 dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-admission bucket" \
    read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: .*ssd-cache-admission bucket needs ssd-cache-write-budget" "$SCRATCH/err" ||
    fail "no admission error: $(cat "$SCRATCH/err")"
# the chunk cache's own keys set away from their defaults at container
# granularity: errors too, not ignored (with or without a cache policy)
for kv in "ssd-cache-chunk-fetch container" "ssd-cache-segment-size 1M" "ssd-cache-segment-reclaim clean"; do
    for policy in lru none; do
        expect_status 2 dst -p"ssd-cache-policy $policy" -p"$kv" read-file --trace "$SCRATCH/trace" --simulate
        grep -q "^destor: ${kv%% *} applies to ssd-cache-granularity chunk only" "$SCRATCH/err" ||
            fail "no granularity error for $kv: $(cat "$SCRATCH/err")"
    done
done
# a policy's own key away from its default for another policy, or with no
# cache: an error too (its default passes: destor.config spells it out)
for policy in lru none; do
    expect_status 2 dst -p"ssd-cache-policy $policy" -p"plc-filter-threshold 8" read-file --trace "$SCRATCH/trace" --simulate
    [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] && grep -q "^destor: plc-filter-threshold does not apply to ssd-cache-policy $policy" "$SCRATCH/err" ||
        fail "no policy key error with $policy: $(cat "$SCRATCH/err")"
done
expect_status 2 dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy plc" -p"plc-filter-threshold 8" \
    read-file --trace "$SCRATCH/trace" --simulate
grep -q "^destor: plc-filter-threshold does not apply to ssd-cache-policy plc" "$SCRATCH/err" ||
    fail "no policy key error at chunk granularity: $(cat "$SCRATCH/err")"
# compression at chunk granularity is valid in simulation (each admitted
# chunk read and compressed once; chunk_cache_real.sh compares it with real mode)
dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-compression lz4" \
    read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/lz4.json"
"$PYTHON" - "$SCRATCH/lz4.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["compression"] == "lz4" and c["stored_lengths"] > 0 and c["stored_lengths_unread"] == 0, c
assert c["ssd_bytes_written"] <= c["admitted_bytes"], c
PY
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.bin"
expect_status 2 dst -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" read-file --trace "$SCRATCH/trace.bin" --simulate
grep -q "^destor: .*compiled trace holds container accesses" "$SCRATCH/err" || fail "no compiled-trace error: $(cat "$SCRATCH/err")"
