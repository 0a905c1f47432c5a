#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-chunk-log.sh: how fast the chunk cache serves real-mode hits from its
# SSD log (64 KiB chunks, each an O_DIRECT range read and a fingerprint
# check, in a random order), as a ratio against the same device's
# sequential read bandwidth measured by dd in the same run (a figure with a
# goal, not a test). Goal (issue 22): >= 0.5. Two ways: one chunk at a time
# (chunk_log_get, one read in flight), and a request's chunks together
# (chunk_log_get_many, BATCH chunks a call, the log's reader threads
# keeping CHUNK_LOG_DEFAULT_READERS reads in flight); the goal is judged on
# the second, which is how a request's hits are served.
#
# usage: scripts/bench-chunk-log.sh
# environment: REPEAT (default 3) rounds, each dd then the chunk reads,
#   whose medians are compared; SIZE_MB (default 256) of the log; TMPDIR:
#   where the log is made (the device measured; it must take O_DIRECT);
#   BATCH (default 16: a 1 MiB request) chunks per chunk_log_get_many;
#   KEEP: when set, the scratch directory is kept.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$TOP/build/Makefile" ] || "$TOP/scripts/setup.sh"
make -s -C "$TOP/build" tests/bench/bench_chunk_log
BENCH="$TOP/build/tests/bench/bench_chunk_log"
REPEAT=${REPEAT:-3}
SIZE_MB=${SIZE_MB:-256}
BATCH=${BATCH:-16}
[ "$SIZE_MB" -ge 16 ] || { echo "bench-chunk-log: SIZE_MB must be at least 16" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-chunk-log.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
"$BENCH" fill "$WORK/log" "$SIZE_MB" >/dev/null ||
    { echo "bench-chunk-log: cannot make an O_DIRECT log in ${TMPDIR:-/tmp} (set TMPDIR to an SSD)" >&2; exit 1; }
OUT="$WORK/rounds"
round=1
while [ "$round" -le "$REPEAT" ]; do
    t0=$(date +%s.%N)
    dd if="$WORK/log/chunks.log" of=/dev/null bs=4M iflag=direct status=none
    t1=$(date +%s.%N)
    bytes=$(stat -c %s "$WORK/log/chunks.log")
    echo "dd $bytes $t0 $t1" >> "$OUT"
    "$BENCH" read "$WORK/log" "$SIZE_MB" 0 1 | awk '/^read/ { print "one", $2, 0, $5 } /^index/ { print "index", $2 }' >> "$OUT"
    "$BENCH" read "$WORK/log" "$SIZE_MB" 0 "$BATCH" | awk '/^read/ { print "many", $2, 0, $5 }' >> "$OUT"
    round=$((round + 1))
done
/usr/bin/python3 - "$OUT" "$REPEAT" "$BATCH" <<'PY'
import statistics, sys
runs, index = {"dd": [], "one": [], "many": []}, None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "dd":
        runs["dd"].append(int(f[1]) / (float(f[3]) - float(f[2])) / 2**20)
    elif f[0] == "index":
        index = float(f[1])
    else:
        runs[f[0]].append(int(f[1]) / float(f[3]) / 2**20)
d, one, many = (statistics.median(runs[k]) for k in ("dd", "one", "many"))
print("%d rounds, medians, dd and the chunk reads alternating" % int(sys.argv[2]))
print("dd sequential read (O_DIRECT, 4 MiB): %.1f MiB/s" % d)
print("chunk hits (64 KiB, random order, O_DIRECT, fingerprint checked):")
print("  one at a time (chunk_log_get):           %7.1f MiB/s, ratio %.2f" % (one, one / d))
print("  %3d a request (chunk_log_get_many):      %7.1f MiB/s, ratio %.2f (goal >= 0.5)%s" % (
    int(sys.argv[3]), many, many / d, "" if many / d >= 0.5 else "  BELOW THE GOAL"))
print("index memory: %.1f bytes per cached chunk" % index)
PY
