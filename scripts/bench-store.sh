#!/bin/sh
# bench-store.sh: how fast the store is, as ratios against this machine's own
# single-core SHA-1 speed measured in the same run (a figure, not a test).
#
# usage: scripts/bench-store.sh [DATASET_DIR]   (default: generate 1 GiB)
# Prints backup MB/s (fastcdc, input already in the page cache), restore
# MB/s, read-file p50 latency, peak RSS, and backup/restore throughput as a
# share of `openssl speed sha1`. Targets: backup >= 35%, restore >= 40%.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-store: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DATA=${1:-}
if [ -z "$DATA" ]; then
    DATA="$WORK/data"
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$DATA" --size 1G --versions 1 --seed 42 >/dev/null
fi
printf 'working-directory "%s/working"\nchunk-algorithm fastcdc\n' "$WORK" > "$WORK/destor.config"
run() { "$DESTOR" -c "$WORK/destor.config" "$@"; }
now() { date +%s.%N; }

# SHA-1 on one core, 8 KiB blocks (the average chunk), in bytes per second.
sha1=$(openssl speed -seconds 3 -evp sha1 2>/dev/null | awk '$1 == "sha1" { v = $(NF-1) } END { sub(/k$/, "", v); print v * 1000 }')

find "$DATA" -type f -exec cat {} + > /dev/null   # into the page cache
bytes=$(find "$DATA" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')

t0=$(now)
/usr/bin/time -f '%M' -o "$WORK/rss.backup" "$DESTOR" -c "$WORK/destor.config" backup "$DATA" > "$WORK/backup.txt"
t1=$(now)
sync
t2=$(now)
/usr/bin/time -f '%M' -o "$WORK/rss.restore" "$DESTOR" -c "$WORK/destor.config" restore 0 "$WORK/restored" > /dev/null
t3=$(now)

run list 0 --null | "$PYTHON" -c '
import random, sys
files = [r.split(b"\t", 2) for r in sys.stdin.buffer.read().split(b"\0")[:-1]]
paths = [p for k, _s, p in files if k == b"f" and b"\n" not in p]
rng = random.Random(1)
for p in rng.choices(paths, k=500):
    sys.stdout.buffer.write(b"0\t" + p + b"\n")' > "$WORK/trace"
run read-file --trace "$WORK/trace" --json > "$WORK/trace.json"

"$PYTHON" - "$bytes" "$sha1" "$t0" "$t1" "$t2" "$t3" "$WORK" <<'PY'
import json, sys
size, sha1, t0, t1, t2, t3 = (float(x) for x in sys.argv[1:7])
work = sys.argv[7]
rss = max(int(open(work + "/rss." + n).read().split()[-1]) for n in ("backup", "restore"))
trace = json.load(open(work + "/trace.json"))
backup = size / (t1 - t0)
restore = size / (t3 - t2)
print("dataset                 %.1f MB (1 MB = 10^6 bytes)" % (size / 1e6))
print("SHA-1, one core          %.1f MB/s (openssl speed, 8 KiB blocks)" % (sha1 / 1e6))
print("backup (fastcdc)         %.1f MB/s  = %.0f%% of SHA-1 (target >= 35%%)" % (backup / 1e6, 100 * backup / sha1))
print("restore                  %.1f MB/s  = %.0f%% of SHA-1 (target >= 40%%)" % (restore / 1e6, 100 * restore / sha1))
print("read-file p50 latency    %.0f us over %d requests (p99 %.0f us)" % (
    1e3 * trace["latency_ms"]["p50"], trace["requests"], 1e3 * trace["latency_ms"]["p99"]))
print("peak RSS                 %.1f MiB" % (rss / 1024))
PY
