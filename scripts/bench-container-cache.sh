#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-container-cache.sh: how fast the container cache serves real-mode
# hits (whole containers from its slots file, O_DIRECT, each copy checked),
# as a ratio against dd of that slots file measured in the same round (a
# figure with a goal, not a test). Goal (issue 42): >= 0.8.
#
# usage: scripts/bench-container-cache.sh
# environment: DESTOR (default build/destor); DESTOR_B: a second binary
#   timed too, alternating with the first in every round (its own warm
#   cache); REPEAT (default 5) rounds, whose medians are compared; SIZE_MB
#   (default 256) of generated files in the store (2 MiB containers,
#   container-store pool unless DESTOR_TEST_CONTAINER_STORE=files);
#   TMPDIR: where the store and the cache are made (the device measured:
#   it must take O_DIRECT); KEEP: when set, the scratch directory is kept.
#
# The store's files are read whole once through a container cache (lru,
# ssd-cache-size 100%, ssd-cache-o-direct yes: every container admitted);
# each round then alternates dd of the cache's slots file (O_DIRECT, 4 MiB)
# with `destor read-file --trace` of every file whole through the warm
# cache (every access a hit: checked), the container bytes it served over
# its elapsed time, with the process's CPU time (user + sys).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
DESTOR_B=${DESTOR_B:-}
REPEAT=${REPEAT:-5}
SIZE_MB=${SIZE_MB:-256}
KIND=${DESTOR_TEST_CONTAINER_STORE:-pool}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-container-cache: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
[ "$SIZE_MB" -ge 16 ] || { echo "bench-container-cache: SIZE_MB must be at least 16" >&2; exit 2; }
LOAD_START=$(cat /proc/loadavg)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-container-cache.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
"$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/data" --size "${SIZE_MB}M" --versions 1 --seed 5 >/dev/null
printf 'working-directory "%s/store"\ncontainer-size 2M\ncontainer-store %s\n' "$WORK" "$KIND" > "$WORK/c.cfg"
"$DESTOR" -c "$WORK/c.cfg" backup "$WORK/data/v1" >/dev/null
rm -rf "$WORK/data"
"$DESTOR" -c "$WORK/c.cfg" list 0 --null |
    "$PYTHON" -c '
import sys
for rec in sys.stdin.buffer.read().split(b"\0")[:-1]:
    kind, size, path = rec.split(b"\t", 2)
    if kind == b"f" and b"\n" not in path and b"\r" not in path:
        sys.stdout.buffer.write(b"0\t%s\n" % path)' > "$WORK/files"
# The real-mode container cache of each binary: its own directory.
for x in a b; do
    { cat "$WORK/c.cfg"
      printf 'ssd-cache-granularity container\nssd-cache-directory "%s/ssd-%s"\n' "$WORK" "$x"
      printf 'ssd-cache-size 100%%\nssd-cache-policy lru\nssd-cache-o-direct yes\n'; } > "$WORK/$x.cfg"
done
# timed NAME BIN CFG: every file read whole through the warm cache, all hits (checked)
timed() {
    /usr/bin/time -f "%U %S" -o "$WORK/cpu" "$2" -c "$3" read-file --trace "$WORK/files" --json > "$WORK/run.json"
    "$PYTHON" - "$WORK/run.json" "$WORK/cpu" "$1" >> "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cache"]
assert c["hits"] == c["accesses"] and c["misses"] == 0, ("not every access a hit", c)
user, sys_ = (float(x) for x in open(sys.argv[2]).read().split()[-2:])
print(sys.argv[3], c["ssd_bytes_read"], d["elapsed_ms"] / 1e3, user + sys_, c["hits"], d["bytes"])
PY
}
"$DESTOR" -c "$WORK/a.cfg" read-file --trace "$WORK/files" >/dev/null
[ -z "$DESTOR_B" ] || "$DESTOR_B" -c "$WORK/b.cfg" read-file --trace "$WORK/files" >/dev/null

OUT="$WORK/rounds"
: > "$OUT"
. "$TOP/scripts/bench-stores.sh"
dd_rounds "$WORK/ssd-a/slots.dat" "$OUT" timed
"$PYTHON" - "$OUT" "$SIZE_MB" "$KIND" "$LOAD_START" "$(cat /proc/loadavg)" <<'PY'
import statistics, sys
dd, runs, cpu, info = [], {"a": [], "b": []}, {"a": [], "b": []}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "dd":
        dd.append(int(f[1]) / (float(f[3]) - float(f[2])) / 2**20)
    else:
        runs[f[0]].append(int(f[1]) / float(f[2]) / 2**20)
        cpu[f[0]].append(float(f[3]) / float(f[2]))
        info[f[0]] = (int(f[4]), int(f[5]), int(f[1]))
d = statistics.median(dd)
hits, served, read = info["a"]
print("%d rounds, medians, dd and read-file alternating; store %s MiB (%s, 2 MiB containers)" % (
    len(dd), sys.argv[2], sys.argv[3]))
print("each read-file: %d container hits, %.0f MiB of slots read, %.0f MiB of files served" % (
    hits, read / 2**20, served / 2**20))
print("dd of the cache's slots file (O_DIRECT, 4 MiB): %.1f MiB/s" % d)
a = statistics.median(runs["a"])
print("container cache hits (read-file, slots bytes read per elapsed s): %.1f MiB/s, ratio %.2f (goal >= 0.8)%s; "
      "CPU %.2f s per elapsed s (user + sys)" % (a, a / d, "" if a / d >= 0.8 else "  BELOW THE GOAL",
                                                 statistics.median(cpu["a"])))
print("  per round (dd MiB/s, read-file MiB/s, ratio): %s" % ", ".join(
    "%.0f %.0f %.2f" % (x, y, y / x) for x, y in zip(dd, runs["a"])))
if runs["b"]:
    b = statistics.median(runs["b"])
    print("  DESTOR_B: %.1f MiB/s, ratio %.2f; CPU %.2f s per elapsed s; per round: %s" % (
        b, b / d, statistics.median(cpu["b"]), ", ".join("%.2f" % (y / x) for x, y in zip(dd, runs["b"]))))
print("load average at the start: %s; at the end: %s" % (sys.argv[4], sys.argv[5]))
PY
