#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# compiled_trace_chunks.sh: a trace compiled at ssd-cache-granularity chunk
# (compiled-trace version 2: the chunk accesses, with ranges, two jobs)
# replays through the SSD chunk cache with the same requests, bytes, HDD
# reads, cache counters and modelled latencies as the text trace, for every
# chunk policy and both ssd-cache-chunk-fetch modes in simulation and for
# lru in real mode, where a damaged stored chunk is an integrity error as
# it is for the text trace; each version at the other granularity, and trace export
# of a chunk trace, are usage errors (exit 2); a damaged or cut chunk trace
# is an integrity error (exit 3); a stale one (a job gone, the store
# re-created) is refused (exit 2); a chunk table naming chunks the
# containers do not hold there is an integrity error in simulation as in
# real mode (exit 3).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 33 7 0.8 500
CHUNK=-p"ssd-cache-granularity chunk"
dst "$CHUNK" trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.cch"
tr '\n' '\0' < "$SCRATCH/trace" > "$SCRATCH/trace0"
dst "$CHUNK" trace compile "$SCRATCH/trace0" --null -o "$SCRATCH/trace0.cch"
cmp -s "$SCRATCH/trace.cch" "$SCRATCH/trace0.cch" || fail "a --null trace compiles differently from its text form"
"$PYTHON" -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d[8:12] == b"\2\0\0\0", d[8:12]' \
    "$SCRATCH/trace.cch" || fail "a trace compiled at chunk granularity is not version 2"

# same_run A.json B.json: the same work, HDD reads and cache counters.
same_run() {
    "$PYTHON" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("requests", "bytes", "container_accesses", "latency_model_ms"):
    assert a.get(k) == b.get(k), (k, a.get(k), b.get(k))
assert a["cache"]["granularity"] == "chunk" and a["cache"]["accesses"] > 0, a["cache"]
for k, v in a["cache"].items():
    if "wall" not in k:
        assert b["cache"][k] == v, (k, v, b["cache"][k])
PY
}
POLICIES=$("$DESTOR_BIN" policies --json | "$PYTHON" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["chunk_policies"]))')
n=0
for policy in $POLICIES; do
    for fetch in chunk container; do
        layout=log size=30%
        [ "$policy" = austere ] && layout=buckets size=1M # austere goes with buckets: at least one bucket
        set -- "$CHUNK" -p"ssd-cache-policy $policy" -p"ssd-cache-size $size" -p"ssd-cache-layout $layout" \
            -p"ssd-cache-chunk-fetch $fetch"
        dst "$@" --simulate read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/text.json"
        dst "$@" --simulate read-file --trace "$SCRATCH/trace.cch" --json > "$SCRATCH/compiled.json"
        same_run "$SCRATCH/text.json" "$SCRATCH/compiled.json" ||
            fail "$policy, fetch $fetch: compiled replay differs in simulation"
        n=$((n + 1))
    done
done
[ "$n" -ge 20 ] || fail "only $n chunk policy runs"
# on standard input, as from the file
set -- "$CHUNK" -p"ssd-cache-policy lru" -p"ssd-cache-size 30%" --simulate read-file --json --trace
dst "$@" "$SCRATCH/trace.cch" > "$SCRATCH/file.json"
dst "$@" - < "$SCRATCH/trace.cch" > "$SCRATCH/stdin.json"
same_run "$SCRATCH/file.json" "$SCRATCH/stdin.json" || fail "a chunk trace on standard input"
# real mode, from an empty cache each time: the same decisions
for fetch in chunk container; do
    set -- "$CHUNK" -p"ssd-cache-policy lru" -p"ssd-cache-size 30%" -p"ssd-cache-chunk-fetch $fetch" \
        -p"ssd-cache-directory $SCRATCH/cache"
    rm -rf "$SCRATCH/cache"
    dst "$@" read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/text.json"
    rm -rf "$SCRATCH/cache"
    dst "$@" read-file --trace "$SCRATCH/trace.cch" --json > "$SCRATCH/compiled.json"
    "$PYTHON" - "$SCRATCH/text.json" "$SCRATCH/compiled.json" <<'PY' || fail "lru, fetch $fetch: compiled replay differs in real mode"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("requests", "bytes", "container_accesses", "latency_model_ms"):
    assert a.get(k) == b.get(k), (k, a.get(k), b.get(k))
assert a["cache"]["mode"] == "real", a["cache"]
for k in ("accesses", "hits", "misses", "admissions", "evictions", "bytes_requested", "bytes_hit",
          "ssd_bytes_written", "hdd_reads", "hdd_bytes_read", "damaged", "ssd_bytes_read"):
    assert a["cache"][k] == b["cache"][k], (k, a["cache"][k], b["cache"][k])
PY
done
note "chunk-compiled replay = text replay: $n policy x fetch runs (simulation), lru both fetches (real)"

# Real mode checks every chunk it reads: with the pool's first container
# zeroed, the compiled replay (as the text one) is an integrity error.
# Simulation (fetch chunk) reads no chunk: the text trace passes, while the
# compiled one, whose chunk table is checked against the containers it names
# before the first request, cannot check its entries in container 0: exit 3.
C=$(containers_of "$SCRATCH/working")
cp -a "$C" "$SCRATCH/pool.saved"
zero_container_bytes "$SCRATCH/working" 0 131072 0 131072
set -- "$CHUNK" -p"ssd-cache-policy lru" -p"ssd-cache-size 30%" -p"ssd-cache-directory $SCRATCH/cache"
rm -rf "$SCRATCH/cache"
expect_status 3 dst "$@" read-file --trace "$SCRATCH/trace"
rm -rf "$SCRATCH/cache"
expect_status 3 dst "$@" read-file --trace "$SCRATCH/trace.cch"
grep -q "^destor: compiled trace request [0-9]*: " "$SCRATCH/err" || fail "no damaged-chunk error: $(cat "$SCRATCH/err")"
expect_status 0 dst "$@" --simulate read-file --trace "$SCRATCH/trace"
expect_status 3 dst "$@" --simulate read-file --trace "$SCRATCH/trace.cch"
grep -q "^destor: the compiled trace's chunk table (entry [0-9]*): container 0 " "$SCRATCH/err" ||
    fail "no unreadable-container error: $(cat "$SCRATCH/err")"
rm -rf "$C" "$SCRATCH/cache" && cp -a "$SCRATCH/pool.saved" "$C"

# Each version at its own granularity only; export writes container accesses.
dst trace compile "$SCRATCH/trace" -o "$SCRATCH/trace.ctr"
expect_status 2 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/trace.ctr"
grep -q "^destor: .*compile the trace again at chunk granularity" "$SCRATCH/err" || fail "no version-1 error: $(cat "$SCRATCH/err")"
expect_status 2 dst -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/trace.cch"
grep -q "^destor: .*holds chunk accesses: replay it with ssd-cache-granularity chunk" "$SCRATCH/err" ||
    fail "no version-2 error: $(cat "$SCRATCH/err")"
expect_status 2 dst --simulate read-file --trace "$SCRATCH/trace.cch"
expect_status 2 dst trace export "$SCRATCH/trace.cch" --format libcachesim-csv -o "$SCRATCH/out.csv"
grep -q "^destor: .*holds chunk accesses" "$SCRATCH/err" || fail "no export error: $(cat "$SCRATCH/err")"
expect_status 2 dst "$CHUNK" -p"ssd-cache-policy lru" read-file --trace "$SCRATCH/trace.cch" --verify

# Damage: a flipped byte anywhere (header, requests, chunk table, accesses,
# CRC), a cut file: exit 3.
size=$(stat -c %s "$SCRATCH/trace.cch")
for at in 9 44 70 $((size / 3)) $((size / 2)) $((size - 30)) $((size - 2)); do
    cp "$SCRATCH/trace.cch" "$SCRATCH/dmg.cch"
    "$PYTHON" -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x5A]))' \
        "$SCRATCH/dmg.cch" $at
    expect_status 3 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/dmg.cch"
    grep -q "^destor: compiled trace .* is damaged" "$SCRATCH/err" || fail "damage at $at: $(cat "$SCRATCH/err")"
done
# A chunk table whose fingerprints are not the chunks stored at their
# (container, offset), CRC made right (every third entry's 21st byte
# flipped: the first 8 bytes, the policies' chunk key, stay, so two chunks
# share a key): decoding cannot see it; simulation checks the table against
# the containers' metadata, as real mode checks each chunk it reads: exit 3
# in both modes, for every chunk policy and both fetch modes (cdac-arc and
# cdac-lru with fetch container aborted on a glib assertion, exit 134).
"$PYTHON" - "$SCRATCH/trace.cch" "$SCRATCH/forged.cch" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
n_jobs, n_chunks = struct.unpack_from("<II", d, 40)
n_req, = struct.unpack_from("<Q", d, 48)
table = 64 + n_jobs * 8 + n_req * 16
for i in range(0, n_chunks, 3):
    d[table + i * 44 + 20] ^= 0xFF
struct.pack_into("<I", d, len(d) - 4, zlib.crc32(bytes(d[:-4])))
open(sys.argv[2], "wb").write(d)
PY
for policy in $POLICIES; do
    for fetch in chunk container; do
        layout=log csize=30%
        [ "$policy" = austere ] && layout=buckets csize=1M
        expect_status 3 dst "$CHUNK" -p"ssd-cache-policy $policy" -p"ssd-cache-size $csize" -p"ssd-cache-layout $layout" \
            -p"ssd-cache-chunk-fetch $fetch" --simulate read-file --trace "$SCRATCH/forged.cch"
        grep -q "^destor: the compiled trace's chunk table (entry [0-9]*): container [0-9]* holds another chunk at offset" \
            "$SCRATCH/err" || fail "$policy, fetch $fetch: no forged-table error: $(cat "$SCRATCH/err")"
    done
done
rm -rf "$SCRATCH/cache"
expect_status 3 dst "$CHUNK" -p"ssd-cache-policy cdac-arc" -p"ssd-cache-size 30%" -p"ssd-cache-chunk-fetch container" \
    -p"ssd-cache-directory $SCRATCH/cache" read-file --trace "$SCRATCH/forged.cch"
grep -q "^destor: compiled trace request 1: container [0-9]* holds another chunk" "$SCRATCH/err" ||
    fail "real mode: no forged-table error: $(cat "$SCRATCH/err")"
head -c $((size - 21)) "$SCRATCH/trace.cch" > "$SCRATCH/cut.cch"
expect_status 3 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/cut.cch"
expect_status 3 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace - < "$SCRATCH/cut.cch"

# Stale: a later backup leaves it valid; a job gone, or the store
# re-created at the same path, makes it stale (exit 2).
dst backup "$SCRATCH/data/v1" >/dev/null
expect_status 0 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/trace.cch"
rm -rf "$SCRATCH/working/jobs/00000001"
dst backup "$SCRATCH/data/v1" >/dev/null
expect_status 2 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/trace.cch"
grep -q "is stale: job 1 is no longer in the store" "$SCRATCH/err" || fail "a job gone must make the trace stale"
rm -rf "$SCRATCH/working"
dst backup "$SCRATCH/data/v1" >/dev/null
dst backup "$SCRATCH/data/v2" >/dev/null
expect_status 2 dst "$CHUNK" -p"ssd-cache-policy lru" --simulate read-file --trace "$SCRATCH/trace.cch"
grep -q 'is stale: it was compiled against another store' "$SCRATCH/err" ||
    fail "a chunk trace of an earlier store must be called stale"
note "damaged chunk traces exit 3, stale ones exit 2, each version only at its granularity"
