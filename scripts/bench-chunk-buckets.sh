#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-chunk-buckets.sh: lookups in the chunk cache's two layouts'
# in-memory indexes "in simulation" (no SSD: the index alone, which is all
# a miss costs in either layout; a hit then reads the SSD in both), as the
# ratio of the bucket layout's lookup rate to the chunk log's, measured in
# the same run, the two alternating, medians compared (a figure with a
# goal, not a test). Goal (issue 23): >= 1.0. Also prints each index's
# memory per cached chunk.
#
# usage: scripts/bench-chunk-buckets.sh
# environment: REPEAT (default 5) rounds, each log then buckets; CHUNKS
#   (default 1000000) chunks in each index; LOOKUPS (default 2000000), half
#   of chunks held, half of others, in a seeded random order.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$TOP/build/Makefile" ] || "$TOP/scripts/setup.sh"
make -s -C "$TOP/build" tests/bench/bench_chunk_buckets
BENCH="$TOP/build/tests/bench/bench_chunk_buckets"
REPEAT=${REPEAT:-5}
CHUNKS=${CHUNKS:-1000000}
LOOKUPS=${LOOKUPS:-2000000}
OUT=$(mktemp "${TMPDIR:-/tmp}/destor-bench-chunk-buckets.XXXXXX")
trap 'rm -f "$OUT"' EXIT
round=1
while [ "$round" -le "$REPEAT" ]; do
    for layout in log buckets; do
        "$BENCH" "$layout" "$CHUNKS" "$LOOKUPS" |
            awk -v l="$layout" '/^lookups/ { print l, "time", $4, $7 } /^index/ { print l, "index", $2, $6 }' >> "$OUT"
    done
    round=$((round + 1))
done
/usr/bin/python3 - "$OUT" "$REPEAT" "$LOOKUPS" <<'PY'
import statistics, sys
times, index, found = {"log": [], "buckets": []}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[1] == "time":
        times[f[0]].append(float(f[2]))
        found[f[0]] = int(f[3])
    else:
        index[f[0]] = (float(f[2]), f[3].strip("()"))
n = int(sys.argv[3])
rate = {k: n / statistics.median(v) / 1e6 for k, v in times.items()}
ratio = rate["buckets"] / rate["log"]
print("%d rounds, medians, log and buckets alternating" % int(sys.argv[2]))
print("index lookups (half held, half not; the in-memory index alone):")
print("  chunk log (hash table of full fingerprints): %7.2f M lookups/s, found %d" % (rate["log"], found["log"]))
print("  buckets (128 prefixes of 16 bits a bucket):  %7.2f M lookups/s, found %d (a prefix match; the SSD then says)"
      % (rate["buckets"], found["buckets"]))
print("  ratio buckets / log: %.2f (goal >= 1.0)%s" % (ratio, "" if ratio >= 1.0 else "  BELOW THE GOAL"))
print("index memory per cached chunk: log %.2f bytes (%s held), buckets %.2f bytes (%s held)"
      % (index["log"][0], index["log"][1], index["buckets"][0], index["buckets"][1]))
PY
