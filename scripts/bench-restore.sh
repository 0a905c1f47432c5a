#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-restore.sh: restore speed of each restore cache (restore-cache
# lru|opt|asm N) at the same memory, on the newest version of a
# fragmented store (a figure with a goal, not a test).
#
# usage: scripts/bench-restore.sh
# environment: DESTOR (default build/destor); REPEAT (default 3) rounds, of
#   which the medians are printed; SIZE (default 256M) of the first version
#   and VERSIONS (default 8) versions (scripts/gen-dataset); CONTAINERS
#   (default 30, restore-cache's default) the memory of every kind, in
#   containers; TMPDIR: where the store is made (the device measured);
#   KEEP: when set, the scratch directory is kept.
#
# The store (2 MiB containers, container-store pool unless
# DESTOR_TEST_CONTAINER_STORE=files) holds every version of gen-dataset's
# multi-version tree, so the newest version's chunks lie in containers
# written by every backup. Each round restores that version once with each
# kind, in turn (lru, opt, asm), each time with the store's containers
# dropped from the page cache first (fsync, then POSIX_FADV_DONTNEED), and
# each restore compared with its tree. The figures are each kind's restore
# speed (restore's own MB/s: bytes restored over its time), containers
# read (exact) and CPU time (user + system of all its threads; less moved
# by other load than the speed); the ratio is asm's speed over lru's. Goal
# (issue 26): >= 1. The first version is 256M so that the newest version's
# containers outnumber the memory (at 32M all of them fit in 30
# containers: no kind evicts).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
REPEAT=${REPEAT:-3}
SIZE=${SIZE:-256M}
VERSIONS=${VERSIONS:-8}
CONTAINERS=${CONTAINERS:-30}
KIND=${DESTOR_TEST_CONTAINER_STORE:-pool}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-restore: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }
[ "$VERSIONS" -ge 2 ] || { echo "bench-restore: VERSIONS must be at least 2" >&2; exit 2; }
[ "$CONTAINERS" -ge 2 ] || { echo "bench-restore: CONTAINERS must be at least 2 (asm's least)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-restore.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
printf 'working-directory "%s/store"\ncontainer-size 2M\ncontainer-store %s\n' "$WORK" "$KIND" > "$WORK/config"
"$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/data" --size "$SIZE" --versions "$VERSIONS" >/dev/null
v=1
while [ "$v" -le "$VERSIONS" ]; do
    "$DESTOR" -c "$WORK/config" backup "$WORK/data/v$v" >/dev/null
    v=$((v + 1))
done
last=$((VERSIONS - 1))

# uncache: the store's containers on the device and out of the page cache.
uncache() {
    find "$WORK/store" \( -name containers.pool -o -path '*/containers/*' \) -type f | "$PYTHON" -c '
import os, sys
for p in sys.stdin.read().split("\n"):
    if p and os.path.isfile(p):
        fd = os.open(p, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)'
}

: > "$WORK/results"
r=1
while [ "$r" -le "$REPEAT" ]; do
    for kind in lru opt asm; do
        rm -rf "$WORK/out"
        uncache
        # restore, and its CPU time (user + system, every thread's)
        "$PYTHON" -c '
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    subprocess.run(sys.argv[3:], stdout=out, check=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[2], "w").write("%.3f\n" % (ru.ru_utime + ru.ru_stime))' "$WORK/restore.json" "$WORK/cpu" \
            "$DESTOR" -c "$WORK/config" -p"restore-cache $kind $CONTAINERS" restore "$last" "$WORK/out" --json
        diff -r "$WORK/data/v$VERSIONS" "$WORK/out" >/dev/null || { echo "bench-restore: $kind restored wrong bytes" >&2; exit 1; }
        "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], d["mb_per_s"], d["containers_read"], d["bytes"], open(sys.argv[4]).read().strip())' \
            "$WORK/restore.json" "$r" "$kind" "$WORK/cpu" >> "$WORK/results"
    done
    r=$((r + 1))
done
"$PYTHON" - "$WORK/results" "$SIZE" "$VERSIONS" "$CONTAINERS" "$KIND" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
size, versions, n, kind = sys.argv[2:6]
speed, reads, cpu = {}, {}, {}
for _round, k, mbps, containers, nbytes, cpu_s in rows:
    speed.setdefault(k, []).append(float(mbps))
    cpu.setdefault(k, []).append(float(cpu_s))
    reads[k] = int(containers)
print("store: gen-dataset --size %s --versions %s, 2 MiB containers (%s); restoring the newest version, "
      "%.1f MB, with %s containers of memory for each kind" % (size, versions, kind, int(nbytes) / 1e6, n))
for k in ("lru", "opt", "asm"):
    print("restore-cache %s %s: %.1f MB/s, %d containers read, %.2f s CPU (medians of %d rounds, kinds alternating)"
          % (k, n, statistics.median(speed[k]), reads[k], statistics.median(cpu[k]), len(speed[k])))
print("containers read, lru / asm: %.2f (exact, whatever the load)" % (reads["lru"] / max(reads["asm"], 1)))
ratio = statistics.median(speed["asm"]) / statistics.median(speed["lru"])
print("ratio asm / lru speed: %.2f (goal >= 1.00): %s" % (ratio, "met" if ratio >= 1.0 else "NOT met"))
PY
