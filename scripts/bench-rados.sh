#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-rados.sh: how a `container-store rados` store compares with `pool`
# on this machine, as ratios measured in the same run (a figure, not a
# test): backup MB/s into each (goal, issue 41's with the whole store and
# its fingerprint index in the cluster: rados >= 0.6 of pool), and read-file
# of a trace through a warm SSD cache (goal: >= 0.9 of pool's speed).
#
# usage: scripts/bench-rados.sh [DATASET_DIR]
#   without an argument: a generated dataset of 400 MiB of mixed files.
# environment: DESTOR (default build/destor); REPEAT (default 5) runs of
#   each measurement, pool and rados alternated, of which the medians are
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
REPEAT=${REPEAT:-5}
TRACE_READS=${TRACE_READS:-2000}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-rados: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
for tool in ceph-mon ceph-osd rados; do
    command -v "$tool" > /dev/null 2>&1 || { echo "bench-rados: $tool not installed (run scripts/setup.sh)" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-rados.XXXXXX")
. "$TOP/tests/rados/cluster.sh"
trap 'cluster_stop; rm -rf "$WORK"' EXIT
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
# took, its CPU time and the OSD's meanwhile (its output dropped).
seconds() {
    kind=$1
    run=$2
    shift 2
    osd0=$(osd_cpu)
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$WORK/time" "$DESTOR" -c "$WORK/$kind.config" -p"working-directory $WORK/w-$kind-$run" \
        -p"rados-namespace b$run" "$@" > /dev/null
    end=$(date +%s.%N)
    osd1=$(osd_cpu)
    awk -v s="$start" -v e="$end" -v o0="$osd0" -v o1="$osd1" '{ print e - s, $1 + $2, o1 - o0 }' "$WORK/time"
}

: > "$WORK/results"
i=0
while [ "$i" -lt "$REPEAT" ]; do
    for kind in pool rados; do
        find "$DATA" -type f -exec cat {} + > /dev/null
        echo "backup $kind $(seconds $kind "$i" backup "$DATA")" >> "$WORK/results"
    done
    # The OSD keeps its objects in memory: the runs before the last are
    # removed, so that every backup meets an OSD of the same size.
    if [ "$i" -lt $((REPEAT - 1)) ]; then
        rados -c "$CEPH_CONF" -p "$RADOS_POOL" -N "b$i" ls | xargs rados -c "$CEPH_CONF" -p "$RADOS_POOL" -N "b$i" rm
    fi
    i=$((i + 1))
done
last=$((REPEAT - 1))

on pool "$last" list 0 --null |
    PYTHONPATH="$TOP/scripts" "$PYTHON" -B -m destor_tools.uniform_trace "$TRACE_READS" > "$WORK/trace"
for kind in pool rados; do
    on $kind "$last" -p"ssd-cache-policy lru" -p"ssd-cache-directory $WORK/cache-$kind" -p"ssd-cache-size 100%" \
        read-file --trace "$WORK/trace" --json > "$WORK/cold-$kind.json"
done
i=0
while [ "$i" -lt "$REPEAT" ]; do
    for kind in pool rados; do
        echo "read $kind $(seconds $kind "$last" -p"ssd-cache-policy lru" -p"ssd-cache-directory $WORK/cache-$kind" \
            -p"ssd-cache-size 100%" read-file --trace "$WORK/trace" --json)" >> "$WORK/results"
    done
    i=$((i + 1))
done
on rados "$last" -p"ssd-cache-policy lru" -p"ssd-cache-directory $WORK/cache-rados" -p"ssd-cache-size 100%" \
    read-file --trace "$WORK/trace" --json > "$WORK/warm-rados.json"

"$PYTHON" - "$WORK" "$bytes" "$REPEAT" "$TRACE_READS" <<'PY'
import json, statistics, sys
work, size, repeat, reads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
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
print("medians of %d runs, pool and rados alternated; %.1f MiB backed up; rados: one memstore OSD here" % (repeat, size / 2**20))
for kind in ("pool", "rados"):
    print("backup  %-5s %8.1f MB/s; CPU %.2f s (destor, and for rados the OSD's too)"
          % (kind, size / med[("backup", kind)] / 1e6, cpu[("backup", kind)]))
ratio = med[("backup", "pool")] / med[("backup", "rados")]
print("backup  rados/pool  %.2f (goal >= 0.6)%s" % (ratio, "" if ratio >= 0.6 else "  BELOW GOAL"))
print("backup  CPU time pool/rados  %.2f (the OSD's share is work a remote cluster would do)"
      % (cpu[("backup", "pool")] / cpu[("backup", "rados")]))
for kind in ("pool", "rados"):
    print("read-file, warm SSD cache, %d reads  %-5s %.3f s" % (reads, kind, med[("read", kind)]))
ratio = med[("read", "pool")] / med[("read", "rados")]
print("read-file rados/pool speed  %.2f (goal >= 0.9)%s" % (ratio, "" if ratio >= 0.9 else "  BELOW GOAL"))
print("bytes read from RADOS: cold run %s, warm run %s" % (store_read(cold), store_read(warm)))
PY
