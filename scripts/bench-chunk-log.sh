#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-chunk-log.sh: how fast the chunk cache serves real-mode hits from its
# SSD log (64 KiB chunks, each an O_DIRECT range read and a CRC-32
# check, in a random order), as a ratio against the same device's
# sequential read bandwidth measured by dd in the same run (a figure with a
# goal, not a test). Goal (issue 22): >= 0.5. Two ways: one chunk at a time
# (chunk_log_get, one read in flight), and a request's chunks together
# (chunk_log_get_many, BATCH chunks a call, the log's reader threads
# keeping CHUNK_LOG_DEFAULT_READERS reads in flight); and the product
# path the goal is judged on: `destor read-file --trace` in real mode
# replaying random 64 KiB ranges of a generated store's files (default
# chunking) over a warm chunk cache (every access a hit, O_DIRECT), its
# bytes over the replay's elapsed time against dd of the cache's own
# chunks.log in the same round, with the process's CPU time. Goal (issue
# 42): the product path >= 0.6.
#
# usage: scripts/bench-chunk-log.sh
# environment: DESTOR (default build/destor); DESTOR_B: a second binary
#   whose product path is timed too, alternating with the first in every
#   round (its own warm cache: another binary's chunk log format may
#   differ); REPEAT (default 3) rounds, each dd then the chunk reads,
#   whose medians are compared; SIZE_MB (default 256) of the log; TMPDIR:
#   where the log and the cache are made (the device measured; it must
#   take O_DIRECT); BATCH (default 16: a 1 MiB request) chunks per
#   chunk_log_get_many; PRODUCT_MB (default 128) unique bytes of the
#   store the product path reads (as many MiB of 64 KiB ranges a round);
#   KEEP: when set, the scratch directory is kept.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$TOP/build/Makefile" ] || "$TOP/scripts/setup.sh"
make -s -C "$TOP/build" tests/bench/bench_chunk_log destor
BENCH="$TOP/build/tests/bench/bench_chunk_log"
DESTOR=${DESTOR:-$TOP/build/destor}
DESTOR_B=${DESTOR_B:-}
LOAD_START=$(cat /proc/loadavg)
REPEAT=${REPEAT:-3}
SIZE_MB=${SIZE_MB:-256}
BATCH=${BATCH:-16}
PRODUCT_MB=${PRODUCT_MB:-128}
[ "$SIZE_MB" -ge 16 ] || { echo "bench-chunk-log: SIZE_MB must be at least 16" >&2; exit 2; }
[ "$PRODUCT_MB" -ge 16 ] || { echo "bench-chunk-log: PRODUCT_MB must be at least 16" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-chunk-log.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
"$BENCH" fill "$WORK/log" "$SIZE_MB" >/dev/null ||
    { echo "bench-chunk-log: cannot make an O_DIRECT log in ${TMPDIR:-/tmp} (set TMPDIR to an SSD)" >&2; exit 1; }
# The product path: a store, its files read whole once through the chunk
# cache (warm), and a trace of random 64 KiB ranges of its larger files.
. "$TOP/scripts/bench-stores.sh"
chunk_log_store "$DESTOR" "$WORK" "$PRODUCT_MB"
rm -rf "$WORK/p"
# The real-mode chunk cache of each binary: its own directory.
for x in a b; do
    { cat "$WORK/p.cfg"
      printf 'ssd-cache-granularity chunk\nssd-cache-directory "%s/ssd-%s"\nssd-cache-size 100%%\n' "$WORK" "$x"
      printf 'ssd-cache-policy lru\nssd-cache-o-direct yes\nssd-cache-segment-reclaim clean\n'; } > "$WORK/$x.cfg"
done
# product NAME BIN CFG: one timed replay of the ranges, all hits (checked)
product() {
    /usr/bin/time -f "%U %S" -o "$WORK/cpu" "$2" -c "$3" read-file --trace "$WORK/pranges" --json > "$WORK/product.json"
    /usr/bin/python3 - "$WORK/product.json" "$WORK/cpu" "$1" >> "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cache"]
assert c["hits"] == c["accesses"] and c["damaged"] == 0, ("not every access a hit", c)
user, sys_ = (float(x) for x in open(sys.argv[2]).read().split()[-2:])
print(sys.argv[3], d["bytes"], 0, d["elapsed_ms"] / 1e3, user + sys_, c["accesses"] / d["requests"])
PY
}
"$DESTOR" -c "$WORK/a.cfg" read-file --trace "$WORK/pwarm" >/dev/null
[ -z "$DESTOR_B" ] || "$DESTOR_B" -c "$WORK/b.cfg" read-file --trace "$WORK/pwarm" >/dev/null

OUT="$WORK/rounds"
round=1
while [ "$round" -le "$REPEAT" ]; do
    t0=$(date +%s.%N)
    dd if="$WORK/ssd-a/chunks.log" of=/dev/null bs=4M iflag=direct status=none
    t1=$(date +%s.%N)
    echo "pdd $(stat -c %s "$WORK/ssd-a/chunks.log") $t0 $t1" >> "$OUT"
    if [ -n "$DESTOR_B" ] && [ $((round % 2)) -eq 0 ]; then
        product productb "$DESTOR_B" "$WORK/b.cfg"
        product product "$DESTOR" "$WORK/a.cfg"
    elif [ -n "$DESTOR_B" ]; then
        product product "$DESTOR" "$WORK/a.cfg"
        product productb "$DESTOR_B" "$WORK/b.cfg"
    else
        product product "$DESTOR" "$WORK/a.cfg"
    fi
    t0=$(date +%s.%N)
    dd if="$WORK/log/chunks.log" of=/dev/null bs=4M iflag=direct status=none
    t1=$(date +%s.%N)
    bytes=$(stat -c %s "$WORK/log/chunks.log")
    echo "dd $bytes $t0 $t1" >> "$OUT"
    "$BENCH" read "$WORK/log" "$SIZE_MB" 0 1 | awk '/^read/ { print "one", $2, 0, $5 } /^index/ { print "index", $2 }' >> "$OUT"
    "$BENCH" read "$WORK/log" "$SIZE_MB" 0 "$BATCH" | awk '/^read/ { print "many", $2, 0, $5 }' >> "$OUT"
    round=$((round + 1))
done
/usr/bin/python3 - "$OUT" "$REPEAT" "$BATCH" "$LOAD_START" "$(cat /proc/loadavg)" <<'PY'
import statistics, sys
runs, index, cpu, per = {"dd": [], "one": [], "many": [], "pdd": [], "product": [], "productb": []}, None, {}, 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] in ("dd", "pdd"):
        runs[f[0]].append(int(f[1]) / (float(f[3]) - float(f[2])) / 2**20)
    elif f[0] == "index":
        index = float(f[1])
    else:
        runs[f[0]].append(int(f[1]) / float(f[3]) / 2**20)
        if f[0].startswith("product"):
            cpu.setdefault(f[0], []).append(float(f[4]) / float(f[3]))
            per = float(f[5])
d, one, many, pd, prod = (statistics.median(runs[k]) for k in ("dd", "one", "many", "pdd", "product"))
print("%d rounds, medians, dd and the chunk reads alternating" % int(sys.argv[2]))
print("dd sequential read (O_DIRECT, 4 MiB): %.1f MiB/s" % d)
print("chunk hits (64 KiB, random order, O_DIRECT, each checked by its entry's CRC-32):")
print("  one at a time (chunk_log_get):           %7.1f MiB/s, ratio %.2f" % (one, one / d))
print("  %3d a request (chunk_log_get_many):      %7.1f MiB/s, ratio %.2f (goal >= 0.5)%s" % (
    int(sys.argv[3]), many, many / d, "" if many / d >= 0.5 else "  BELOW THE GOAL"))
print("index memory: %.1f bytes per cached chunk" % index)
print("product path (destor read-file --trace, real mode, random 64 KiB ranges, %.1f chunks each, all hits):" % per)
print("  dd of the cache's chunks.log (O_DIRECT, 4 MiB): %.1f MiB/s" % pd)
print("  read-file:  %7.1f MiB/s, ratio %.2f (goal >= 0.6)%s; CPU %.2f s per elapsed s (user + sys)" % (
    prod, prod / pd, "" if prod / pd >= 0.6 else "  BELOW THE GOAL", statistics.median(cpu["product"])))
print("  per round (dd MiB/s, read-file MiB/s, ratio): %s" % ", ".join(
    "%.0f %.0f %.2f" % (a, b, b / a) for a, b in zip(runs["pdd"], runs["product"])))
if runs["productb"]:
    b = statistics.median(runs["productb"])
    print("  DESTOR_B:   %7.1f MiB/s, ratio %.2f; CPU %.2f s per elapsed s; per round: %s" % (
        b, b / pd, statistics.median(cpu["productb"]),
        ", ".join("%.2f" % (x / a) for a, x in zip(runs["pdd"], runs["productb"]))))
print("load average at the start: %s; at the end: %s" % (sys.argv[4], sys.argv[5]))
PY
