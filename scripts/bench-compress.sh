#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-compress.sh: what ssd-cache-compression buys and costs (a figure,
# not a test). On the embedded dataset (gen-dataset --preset small, as
# scripts/demo.sh makes it) and a Zipf trace (alpha 0.47, 2.6x the data):
#   1. the compression table: LRU at 20% in real mode with none, lz4 and
#      zstd: hit ratio, copies stored compressed, SSD bytes written against
#      the container bytes admitted, the ratio, thread CPU in the codec,
#      modelled latency per request;
#   2. the CPU goal (issue 23): a real-mode replay whose every request hits
#      (LRU holding every container, warmed by one replay), none and lz4
#      alternated REPEAT times; the medians of the process CPU time (user +
#      system) and their ratio, against the limit lz4 <= 1.20 x none.
# usage: scripts/bench-compress.sh [DATASET_DIR]
# Environment: REPEAT (5), DESTOR (build/destor).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-compress: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/destor-bench-compress.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DATA=${1:-}
if [ -z "$DATA" ]; then
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/data" --preset small >/dev/null
    DATA="$WORK/data"
fi
printf 'working-directory "%s/working"\n' "$WORK" > "$WORK/destor.config"
last=
for v in "$DATA"/v*; do
    "$DESTOR" -c "$WORK/destor.config" backup "$v" > /dev/null
done
last=$("$DESTOR" -c "$WORK/destor.config" stat --json |
    "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["jobs"][-1]["job"])')
"$PYTHON" "$TOP/scripts/gen-trace" --config "$WORK/destor.config" --destor "$DESTOR" --job "$last" \
    --dist zipf --alpha 0.47 --bytes 2.6x --seed 1 --out "$WORK/trace.tsv" > /dev/null

exec "$PYTHON" - "$DESTOR" "$WORK" "${REPEAT:-5}" <<'PY'
import json, os, statistics, subprocess, sys

destor, work, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
cfg, trace = os.path.join(work, "destor.config"), os.path.join(work, "trace.tsv")


def run(comp, size, cache):
    """A real-mode replay; returns (its JSON summary, CPU seconds of the child)."""
    p = subprocess.Popen([destor, "-c", cfg, "-p", "ssd-cache-policy lru", "-p", "ssd-cache-size " + size,
                          "-p", "ssd-cache-directory " + os.path.join(work, cache),
                          "-p", "ssd-cache-compression " + comp, "read-file", "--trace", trace, "--json"],
                         stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench-compress: destor failed (%s)" % comp)
    return json.loads(out), ru.ru_utime + ru.ru_stime


stat = json.loads(subprocess.run([destor, "-c", cfg, "stat", "--json"], check=True,
                                 stdout=subprocess.PIPE).stdout)
print("store: %d files, %d containers of %d bytes; trace: %d requests" %
      (stat["files"], stat["containers"], stat["container_size"] if "container_size" in stat else 0,
       sum(1 for l in open(trace, "rb") if l.strip() and not l.startswith(b"#"))))
print()
print("| compression | hit ratio | copies compressed | SSD bytes written | container bytes admitted | ratio "
      "| CPU compress s | CPU decompress s | modelled ms/request |")
print("|---|---|---|---|---|---|---|---|---|")
for comp in ("none", "lz4", "zstd"):
    j, _ = run(comp, "20%", "table-" + comp)
    c = j["cache"]
    print("| %s | %.4f | %d of %d | %d | %d | %.3f | %.3f | %.3f | %.3f |" %
          (comp, c["hit_ratio"], c["ssd_compressed_written"], c["ssd_containers_written"], c["ssd_bytes_written"],
           c["ssd_logical_bytes_written"], c["compression_ratio"], c["cpu_compress_ms"] / 1e3,
           c["cpu_decompress_ms"] / 1e3, c["request_latency_model_ms_mean"]))
print()

for comp in ("none", "lz4"):  # warm: every container cached
    run(comp, "100%", "hit-" + comp)
cpu = {"none": [], "lz4": []}
for _ in range(repeat):
    for comp in ("none", "lz4"):  # alternate A and B
        j, t = run(comp, "100%", "hit-" + comp)
        c = j["cache"]
        if c["misses"] != 0 or c["hits"] != c["accesses"]:
            sys.exit("bench-compress: %s: a replay meant to hit everywhere missed %d times" % (comp, c["misses"]))
        cpu[comp].append(t)
a, b = statistics.median(cpu["none"]), statistics.median(cpu["lz4"])
print("every request hits (%d accesses): CPU s none %s, lz4 %s" %
      (j["container_accesses"], " ".join("%.3f" % x for x in cpu["none"]), " ".join("%.3f" % x for x in cpu["lz4"])))
print("medians: none %.3f s, lz4 %.3f s; lz4 / none = %.3f (limit 1.20: %s)" %
      (a, b, b / a, "met" if b / a <= 1.20 else "MISSED"))
PY
