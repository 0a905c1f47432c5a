#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-rados.sh: how a `container-store rados` store compares with `pool`
# on this machine, as ratios measured in the same run (a figure, not a
# test): backup MB/s into each (goal, issue 41's with the whole store and
# its fingerprint index in the cluster: rados >= 0.6 of pool; issue 42's:
# >= 0.8), and read-file of a trace through a warm SSD cache (goal: >= 0.9
# of pool's speed).
#
# usage: scripts/bench-rados.sh [DATASET_DIR]
#   without an argument: a generated dataset of 400 MiB of mixed files.
# environment: DESTOR (default build/destor); DESTOR_B, a second binary whose
#   backups alternate with DESTOR's (pool and rados of A, then of B, each
#   round; the reads are DESTOR's alone); REPEAT (default 5) runs of each
#   measurement, pool and rados alternated, of which the medians are
#   printed; TRACE_READS (default 2000) reads in the trace.
#
# The cluster is the tests' (tests/rados/cluster.sh): one monitor and one
# memstore OSD on this machine, started and stopped by their PIDs. Each
# backup goes into a new store (a new namespace for rados), with the input
# read into the page cache just before. The trace reads files drawn at
# random (seed 1) from the last stores' job; the SSD cache (lru, in
# WORK, large enough for every container) is warmed by one run, and then
# each timed run reads every container from it: what is left to compare is
# opening the store and the cache's checks against it.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
DESTOR_B=${DESTOR_B:-}
REPEAT=${REPEAT:-5}
TRACE_READS=${TRACE_READS:-2000}
PYTHON=/usr/bin/python3
for bin in "$DESTOR" $DESTOR_B; do
    [ -x "$bin" ] || { echo "bench-rados: $bin not built (run scripts/setup.sh)" >&2; exit 2; }
done
for tool in ceph-mon ceph-osd rados; do
    command -v "$tool" > /dev/null 2>&1 || { echo "bench-rados: $tool not installed (run scripts/setup.sh)" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-rados.XXXXXX")
. "$TOP/tests/rados/cluster.sh"
trap 'cluster_stop; rm -rf "$WORK"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load average at the start: $(load)"
if [ $# -gt 0 ]; then
    [ -d "$1" ] || { echo "bench-rados: $1 is not a directory" >&2; exit 2; }
    DATA=$1
else
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/data" --size 400M --versions 1 --seed 42 > /dev/null
    DATA=$WORK/data/v1
fi
cluster_start "$WORK/cluster"
printf 'container-store rados\nrados-conf %s\nrados-pool %s\n' "$CEPH_CONF" "$RADOS_POOL" > "$WORK/rados.config"
: > "$WORK/pool.config"
bytes=$(find "$DATA" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')

# on KIND RUN ARGS...: destor on store RUN of KIND (rados: namespace RUN).
on() {
    kind=$1
    run=$2
    shift 2
    "$DESTOR" -c "$WORK/$kind.config" -p"working-directory $WORK/w-$kind-$run" -p"rados-namespace b$run" "$@"
}
# CPU seconds (user + system) the OSD has used so far.
osd_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$OSD_PID/stat"; }
# seconds KIND RUN ARGS...: "wall cpu osd_cpu": seconds `on KIND RUN ARGS...`
# took (with binary $BIN), its CPU time and the OSD's meanwhile (its output
# dropped).
BIN=$DESTOR
seconds() {
    kind=$1
    run=$2
    shift 2
    osd0=$(osd_cpu)
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$WORK/time" "$BIN" -c "$WORK/$kind.config" -p"working-directory $WORK/w-$kind-$run" \
        -p"rados-namespace b$run" "$@" > /dev/null
    end=$(date +%s.%N)
    osd1=$(osd_cpu)
    awk -v s="$start" -v e="$end" -v o0="$osd0" -v o1="$osd1" '{ print e - s, $1 + $2, o1 - o0 }' "$WORK/time"
}

: > "$WORK/results"
i=0
while [ "$i" -lt "$REPEAT" ]; do
    for BIN in "$DESTOR" $DESTOR_B; do
        tag=A; [ "$BIN" = "$DESTOR" ] || tag=B
        run=$i$tag
        for kind in pool rados; do
            find "$DATA" -type f -exec cat {} + > /dev/null
            echo "backup $kind.$tag $(seconds $kind "$run" backup "$DATA")" >> "$WORK/results"
        done
        # The OSD keeps its objects in memory: the runs before the last are
        # removed, so that every backup meets an OSD of the same size.
        if [ "$i" -lt $((REPEAT - 1)) ] || [ "$tag" = B ]; then
            rados -c "$CEPH_CONF" -p "$RADOS_POOL" -N "b$run" ls | xargs rados -c "$CEPH_CONF" -p "$RADOS_POOL" -N "b$run" rm
            rm -rf "$WORK/w-pool-$run" "$WORK/w-rados-$run"
        fi
    done
    i=$((i + 1))
done
BIN=$DESTOR
last=$((REPEAT - 1))A

on pool "$last" list 0 --null |
    PYTHONPATH="$TOP/scripts" "$PYTHON" -B -m destor_tools.uniform_trace "$TRACE_READS" > "$WORK/trace"
for kind in pool rados; do
    on $kind "$last" -p"ssd-cache-policy lru" -p"ssd-cache-directory $WORK/cache-$kind" -p"ssd-cache-size 100%" \
        read-file --trace "$WORK/trace" --json > "$WORK/cold-$kind.json"
done
i=0
while [ "$i" -lt "$REPEAT" ]; do
    for kind in pool rados; do
        echo "read $kind.A $(seconds $kind "$last" -p"ssd-cache-policy lru" -p"ssd-cache-directory $WORK/cache-$kind" \
            -p"ssd-cache-size 100%" read-file --trace "$WORK/trace" --json)" >> "$WORK/results"
    done
    i=$((i + 1))
done
on rados "$last" -p"ssd-cache-policy lru" -p"ssd-cache-directory $WORK/cache-rados" -p"ssd-cache-size 100%" \
    read-file --trace "$WORK/trace" --json > "$WORK/warm-rados.json"

"$PYTHON" - "$WORK" "$bytes" "$REPEAT" "$TRACE_READS" "$(load)" <<'PY'
import json, statistics, sys
work, size, repeat, reads, load = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
runs = {}
for line in open(work + "/results"):
    what, kind, wall, cpu, osd = line.split()
    runs.setdefault((what, kind), []).append((float(wall), float(cpu), float(osd)))
med = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
cpu = {k: statistics.median(r[1] + r[2] for r in v) for k, v in runs.items()}
def find(v, key):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == key:
                yield x
            yield from find(x, key)
    elif isinstance(v, list):
        for x in v:
            yield from find(x, key)
cold = json.load(open(work + "/cold-rados.json"))
warm = json.load(open(work + "/warm-rados.json"))
store_read = lambda d: next(find(d, "store_bytes_read"), None)
print("medians of %d runs, pool and rados alternated%s; %.1f MiB backed up; rados: one memstore OSD on this "
      "machine's cores" % (repeat, ", binaries A and B too" if ("backup", "pool.B") in runs else "", size / 2**20))
for tag in ("A", "B"):
    if ("backup", "pool." + tag) not in runs:
        continue
    for kind in ("pool", "rados"):
        k = ("backup", kind + "." + tag)
        print("backup  %s %-5s %8.1f MB/s (wall %.2f s); CPU %.2f s (destor %.2f, the OSD %.2f)"
              % (tag, kind, size / med[k] / 1e6, med[k], cpu[k], statistics.median(r[1] for r in runs[k]),
                 statistics.median(r[2] for r in runs[k])))
    ratio = med[("backup", "pool." + tag)] / med[("backup", "rados." + tag)]
    print("backup  %s rados/pool  %.2f (runs %s; goal >= 0.8)%s" % (
        tag, ratio, " ".join("%.2f" % (p[0] / r[0]) for p, r in zip(runs[("backup", "pool." + tag)],
                                                                    runs[("backup", "rados." + tag)])),
        "" if ratio >= 0.8 else "  BELOW GOAL"))
    print("backup  %s CPU time pool/rados  %.2f (the OSD's share is work a remote cluster would do)"
          % (tag, cpu[("backup", "pool." + tag)] / cpu[("backup", "rados." + tag)]))
for kind in ("pool", "rados"):
    print("read-file, warm SSD cache, %d reads  %-5s %.3f s" % (reads, kind, med[("read", kind + ".A")]))
ratio = med[("read", "pool.A")] / med[("read", "rados.A")]
print("read-file rados/pool speed  %.2f (goal >= 0.9)%s" % (ratio, "" if ratio >= 0.9 else "  BELOW GOAL"))
print("bytes read from RADOS: cold run %s, warm run %s" % (store_read(cold), store_read(warm)))
print("load average at the end: %s" % load)
PY
