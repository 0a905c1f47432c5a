#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# make-corpus.sh: (re)generate the fuzz seed corpora in tests/fuzz/corpus/
# from a real store: it backs up a small tree twice with the built destor
# (container-size 128K), serves a trace through a real-mode SSD cache, and
# cuts the files it wrote into seeds (containers from containers.pool,
# records from job_meta_data, manifests, refcount files, cache.meta), each
# prefixed with the mode byte its target expects (see tests/fuzz/fuzz_*.c).
# Config and trace seeds come from the shipped destor.config and the trace
# used here. A few small containers (512 bytes to 4K, smaller than a store
# allows but cheap to fuzz) are laid out here per docs/FORMAT.md.
#
# usage: tests/fuzz/make-corpus.sh DESTOR_BIN   (from the source tree)
set -eu
DESTOR=${1:?usage: $0 DESTOR_BIN}
case $DESTOR in /*) ;; *) DESTOR=$(pwd)/$DESTOR ;; esac
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$SRC/tests/fuzz/corpus
W=$(mktemp -d "${TMPDIR:-/tmp}/destor-corpus.XXXXXX")
trap 'rm -rf "$W"' EXIT

# A small tree: text, numbers, random bytes, an empty file, a symlink, a
# name with a space, a nested directory.
mkdir -p "$W/src/sub/deeper"
printf 'hello world\n' > "$W/src/a.txt"
seq 1 3000 > "$W/src/sub/numbers.txt"
python3 -c "
import random, sys
r = random.Random(7)
sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(40000)))" > "$W/src/sub/deeper/blob.bin"
: > "$W/src/empty"
ln -s ../a.txt "$W/src/sub/link"
printf 'name with space\n' > "$W/src/sub/name with space.txt"
cat > "$W/cfg" <<CFG
working-directory "$W/working"
container-size 128K
chunk-algorithm fastcdc
chunk-avg-size 4K
chunk-min-size 1K
chunk-max-size 16K
CFG
"$DESTOR" -c "$W/cfg" backup "$W/src" > /dev/null
cp "$W/src/a.txt" "$W/src/a2.txt"
echo more >> "$W/src/sub/numbers.txt"
"$DESTOR" -c "$W/cfg" backup "$W/src" > /dev/null
printf '0\ta.txt\n0\tsub/numbers.txt\n1\tsub/deeper/blob.bin\n1\ta2.txt\n# a comment\n\n0\tsub/name with space.txt\n' > "$W/trace"
for policy in plc lru lfu fifo; do
    "$DESTOR" -c "$W/cfg" -p"ssd-cache-policy $policy" -p"ssd-cache-directory $W/cache-$policy" \
        -p"ssd-cache-size 2" read-file --trace "$W/trace" > /dev/null
done
# a cache written with ssd-cache-compression lz4 (cache.meta records it)
"$DESTOR" -c "$W/cfg" -p"ssd-cache-policy lru" -p"ssd-cache-directory $W/cache-lru-lz4" \
    -p"ssd-cache-size 2" -p"ssd-cache-compression lz4" read-file --trace "$W/trace" > /dev/null
# cache.meta version 4 with 16-bit counts: compact (sigpop, which ages) and sketch (plc)
for pc in sigpop:compact plc:sketch; do
    "$DESTOR" -c "$W/cfg" -p"ssd-cache-policy ${pc%:*}" -p"ssd-cache-directory $W/cache-${pc%:*}-${pc#*:}" \
        -p"ssd-cache-size 2" -p"cache-counters ${pc#*:}" read-file --trace "$W/trace" > /dev/null
done
printf '0\ta.txt\n1\tsub/deeper/blob.bin\t1000\t30000\n0\tsub/numbers.txt\t0\t-\n1\ta2.txt\t99\t1\n' > "$W/trace-ranges"
"$DESTOR" -c "$W/cfg" trace compile "$W/trace" -o "$W/trace.ctr"
"$DESTOR" -c "$W/cfg" trace compile "$W/trace-ranges" -o "$W/ranges.ctr"
"$DESTOR" -c "$W/cfg" -p"ssd-cache-granularity chunk" trace compile "$W/trace-ranges" -o "$W/ranges-chunks.ctr"
: > "$W/empty-trace"
"$DESTOR" -c "$W/cfg" trace compile "$W/empty-trace" -o "$W/empty.ctr"

rm -rf "$OUT"
mkdir -p "$OUT"
python3 - "$W" "$OUT" "$SRC" <<'PY'
import hashlib, os, struct, sys, zlib
W, OUT, SRC = sys.argv[1:4]

def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def read(*p):
    with open(os.path.join(W, *p), "rb") as f:
        return f.read()

# config: the shipped file, each of its settings alone, cache keys, Destor
# forms and a few malformed lines.
shipped = open(os.path.join(SRC, "destor.config"), "rb").read()
put("config", "destor.config", shipped)
settings = [l for l in shipped.split(b"\n") if l.strip() and not l.startswith(b"#")]
for i, l in enumerate(settings):
    put("config", "line-%02d" % i, l + b"\n")
extra = [
    b"ssd-cache-policy plc\nssd-cache-directory /var/cache/destor\nssd-cache-size 20%\n",
    b"ssd-cache-size 512M", b"ssd-cache-size 400", b"ssd_cache_simulate yes",
    b"ssd-cache-o-direct no", b"ssd-cache-quadrants yes",
    b"plc-filter-threshold 4", b"plc-delay-threshold 2", b"plc-inout-factor 1.5",
    b"plc-inout-factor auto", b"plc-initial-priority hotness", b"plc-initial-priority 3",
    b"plc-delay-after-compare reset", b"quadrant-access-threshold 5",
    b"quadrant-repeat-threshold 5", b"model-hdd-seek-ms 10", b"model-hdd-rpm 7200",
    b"model-hdd-mb-per-s 100", b"model-ssd-read-latency-us 80", b"model-ssd-read-mb-per-s 500",
    b"model-ssd-write-latency-us 85", b"model-ssd-write-mb-per-s 200",
    b"ssd-tbw 36500G", b"ssd-tbw 35.6",
    b"chunk-algorithm normalized rabin", b"chunk-algorithm fixed\nchunk-avg-size 4K\n",
    b"chunk-algorithm fastcdc\nchunk-avg-size 4K\nchunk-min-size 1K\nchunk-max-size 16K\ncontainer-size 128K\n",
    b"fingerprint-index near-exact physical", b"rewrite-algorithm NO",
    b"simulation-level all", b"log-level debug", b"fingerprint-algorithm sha256",
    b'working-directory "unterminated', b"unknown-key 1", b"container-size 100K",
    b"  chunk-avg-size 8192 # trailing comment\r\n",
]
for i, l in enumerate(extra):
    put("config", "extra-%02d" % i, l)

# Records, whole job_meta_data files, manifests, refcounts.
for job in (0, 1):
    jd = os.path.join("working", "jobs", "%08d" % job)
    meta = read(jd, "job_meta_data")
    off, recs = 32, []
    while off + 8 <= len(meta):
        magic, rl = struct.unpack_from("<II", meta, off)
        recs.append((off, meta[off:off + rl]))
        off += rl
    assert off == len(meta)
    for i, (o, r) in enumerate(recs):
        put("file_record", "job%d-rec%02d" % (job, i), b"\x00" + r)
    put("file_record", "job%d-rec00-fixlen-crc" % job, b"\x03" + recs[0][1])
    o, r = recs[len(recs) // 2]
    put("job_meta", "job%d" % job, b"\x00" + struct.pack("<II", o, len(r)) + meta)
    put("job_meta", "job%d-fixcrc" % job, b"\x02" + struct.pack("<II", o, len(r)) + meta)
    put("manifest", "job%d" % job, b"\x00" + read(jd, "manifest"))
    put("manifest", "job%d-fix" % job, b"\x03" + read(jd, "manifest"))
    put("refcount", "job%d" % job, b"\x00" + read(jd, "refcount"))
    put("refcount", "job%d-fix" % job, b"\x03" + read(jd, "refcount"))

# Containers from the pool (mode 4: expect the id in the header).
pool = read("working", "containers.pool")
size = 128 * 1024
for i in range(len(pool) // size):
    put("container", "pool-%d" % i, b"\x04" + pool[i * size:(i + 1) * size])

def container(cid, size, chunks):
    buf = bytearray(size)
    off, entries = 64, []
    for data in chunks:
        buf[off:off + len(data)] = data
        entries.append((hashlib.sha1(data).digest().ljust(32, b"\0"), off, len(data)))
        off += len(data)
    for i, (fp, o, l) in enumerate(entries):
        e = size - 40 * (i + 1)
        buf[e:e + 40] = fp + struct.pack("<II", o, l)
    buf[0:8] = b"DPLCCNT1"
    struct.pack_into("<HHIIIIB", buf, 8, 1, 64, cid, size, len(chunks), off, 1)
    struct.pack_into("<I", buf, 32, zlib.crc32(bytes(buf)))  # field is zero here
    return bytes(buf)

put("container", "small-512", b"\x04" + container(3, 512, [b"hello world\n", b"x" * 100]))
put("container", "small-1k-empty", b"\x00" + container(0, 1024, []))
put("container", "small-4k", b"\x07" + container(7, 4096, [b"%d\n" % i * 20 for i in range(1, 9)]))

# Trace files.
put("trace_line", "trace", read("trace"))
put("trace_line", "one", b"0\ta.txt\n")
put("trace_line", "crlf", b"12\tsub/deeper/blob.bin\r\n3\tname\twith tab\r\n")
put("trace_line", "bad", b"0\tb.txt\nnot a line\n-1\tx\n4294967296\ty\n7\t\n")
put("trace_line", "range", b"0\ta.txt\t0\t100\n1\tsub/deeper/blob.bin\t131000\t-\n0\tname\twith tab\t5\t7\n0\tx\t0\t-\n"
    b"0\t\t1\t2\n0\tp\t18446744073709551615\t18446744073709551615\n0\tp\t18446744073709551616\t1\n"
    b"0\tp\t-1\t2\n0\t5\t7\n")
put("trace_line", "range-null", b"0\ta.txt\t0\t10\x000\tline\nbreak\t3\t-\x000\tx\x00")

# Compiled traces; mode 1 = recompute the CRC.
for name in ("trace", "ranges", "empty", "ranges-chunks"):
    put("compiled_trace", name, b"\x00" + read(name + ".ctr"))
put("compiled_trace", "ranges-crc", b"\x01" + read("ranges.ctr"))
put("compiled_trace", "ranges-chunks-crc", b"\x01" + read("ranges-chunks.ctr"))

# cache.meta of each policy; 237 = CRC | deep open | harness container size |
# harness store identity | state section fills the tail | its state version.
for policy in ("plc", "lru", "lfu", "fifo", "sigpop-compact", "plc-sketch", "lru-lz4"):
    m = read("cache-" + policy, "cache.meta")
    put("cache_meta", policy, b"\x00" + m)
    put("cache_meta", policy + "-deep", b"\xed" + m)
    unclean = bytearray(m)
    struct.pack_into("<I", unclean, 12, 0)
    put("cache_meta", policy + "-deep-unclean", b"\xfd" + bytes(unclean))

# cache_codec (fuzz_cache_codec.c): the mode byte's bits 0-1 pick the codec
# (0 lz4, 1 zstd, 2 none, 3 lz4), bits 2-7 the expected length (63: the
# input's own); text and random bodies, damage and truncation in the tail.
import random
r = random.Random(23)
text = b"".join(b"container %d chunk %d: the quick brown fox jumps over the lazy dog\n" % (i, i * 7)
                for i in range(300))
noise = bytes(r.getrandbits(8) for _ in range(3000))
for name, data in (("lz4-text", bytes([0 | 63 << 2]) + text),
                   ("zstd-text", bytes([1 | 63 << 2]) + text),
                   ("none-text", bytes([2 | 63 << 2]) + text),
                   ("lz4-noise", bytes([0 | 5 << 2]) + noise),
                   ("zstd-noise", bytes([1 | 10 << 2]) + noise),
                   ("lz4-text-truncate", bytes([3 | 63 << 2]) + text[:-8] + bytes([1, 2, 3, 4, 5, 6, 0x90, 0xff])),
                   ("zstd-text-damage", bytes([1 | 63 << 2]) + text[:-8] + bytes([0, 7, 0, 9, 1, 1, 3, 0x81])),
                   ("lz4-zeros-64k", bytes([0 | 10 << 2]) + bytes(70000)),
                   ("zstd-frame-magic", bytes([1 | 3 << 2]) + bytes([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x40]) + text[:200]),
                   ("empty", bytes([0]))):
    put("cache_codec", name, data)
PY
for t in "$OUT"/*; do
    echo "$(basename "$t"): $(ls "$t" | wc -l) seeds, $(du -sk "$t" | cut -f1) KiB"
done
