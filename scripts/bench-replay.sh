#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-replay.sh: how much faster a compiled trace replays than the same
# trace resolved path by path (a figure, not a test). In one run, on one
# store and one trace, it alternates the two replays REPEAT times per
# policy in simulation mode and prints the medians side by side: process
# wall and CPU time, the replay loop's own time (destor's "elapsed_ms"), and
# container accesses per second. Goals (issue 12): compiled at least 20x
# faster, and at least 5 M container accesses/s under LRU. Both replays
# must give identical counters; the script checks that too.
#
# usage: scripts/bench-replay.sh [DATASET_DIR]
#   default dataset: gen-dataset --size 400M --files 30000 (many files, so
#   recipe lookups cost what they do on a real tree); 2 MiB containers.
# Environment: REPEAT (5), REQUESTS (213000, the issue's trace), POLICIES
# ("lru none plc"), DESTOR (build/destor).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-replay: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-replay.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DATA=${1:-}
if [ -z "$DATA" ]; then
    DATA="$WORK/data"
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$DATA" --size 400M --files 30000 --versions 1 --seed 5 >/dev/null
    DATA="$DATA/v1"
fi
printf 'working-directory "%s/working"\n' "$WORK" > "$WORK/destor.config"
"$DESTOR" -c "$WORK/destor.config" backup "$DATA" > /dev/null
"$PYTHON" "$TOP/scripts/gen-trace" --config "$WORK/destor.config" --destor "$DESTOR" --job 0 \
    --requests "${REQUESTS:-213000}" --seed 1 --out "$WORK/trace.tsv" > /dev/null

exec "$PYTHON" - "$DESTOR" "$WORK" "${REPEAT:-5}" "${POLICIES:-lru none plc}" <<'PY'
import json, os, statistics, subprocess, sys, time

destor, work, repeat, policies = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
cfg = os.path.join(work, "destor.config")
text, compiled = os.path.join(work, "trace.tsv"), os.path.join(work, "trace.ctr")


def run(args):
    """Run destor; returns (stdout, wall seconds, CPU seconds of the child)."""
    t0 = time.monotonic()
    p = subprocess.Popen([destor, "-c", cfg] + args, stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench-replay: destor %s failed" % " ".join(args))
    return out, wall, ru.ru_utime + ru.ru_stime


_, compile_wall, compile_cpu = run(["trace", "compile", text, "-o", compiled])
stat = json.loads(run(["stat", "--json"])[0])
print("store: %d files, %d containers; trace: %d requests; compile: %.2f s wall, %.2f s CPU, %d bytes"
      % (stat["files"], stat["containers"],
         sum(1 for l in open(text, "rb") if l.strip() and not l.startswith(b"#")),
         compile_wall, compile_cpu, os.path.getsize(compiled)))
print("%-6s %-9s %9s %9s %9s %16s %16s" % ("policy", "replay", "wall s", "CPU s", "loop s",
                                           "accesses/s loop", "accesses/s CPU"))
for policy in policies:
    res = {"path": [], "compiled": []}
    counters = {}
    for _ in range(repeat):
        for kind, trace in (("path", text), ("compiled", compiled)):   # alternate A and B
            out, wall, cpu = run(["-p", "ssd-cache-policy " + policy, "--simulate",
                                  "read-file", "--trace", trace, "--json"])
            s = json.loads(out)
            res[kind].append((wall, cpu, s["elapsed_ms"] / 1e3, s["container_accesses"]))
            c = s["cache"] or {}
            counters[kind] = (s["requests"], s["bytes"], s["container_accesses"], s.get("latency_model_ms"),
                              {k: v for k, v in c.items() if "wall" not in k})
    if counters["path"] != counters["compiled"]:
        sys.exit("bench-replay: %s: the two replays disagree" % policy)
    med = {}
    for kind in ("path", "compiled"):
        rows = res[kind]
        m = [statistics.median(r[i] for r in rows) for i in range(3)]
        acc = rows[0][3]
        med[kind] = m
        print("%-6s %-9s %9.3f %9.3f %9.4f %14.2f M %14.2f M"
              % (policy, kind, m[0], m[1], m[2], acc / m[2] / 1e6, acc / max(m[1], 1e-3) / 1e6))
    p, c = med["path"], med["compiled"]
    print("%-6s %-9s %8.1fx %8.1fx %8.1fx   (identical counters; %d accesses)"
          % (policy, "speed-up", p[0] / c[0], p[1] / max(c[1], 1e-3), p[2] / c[2], res["compiled"][0][3]))
print("loop s: destor's own \"elapsed_ms\" in seconds (wall time of the request loop); accesses/s CPU: accesses over the")
print("whole process's CPU time (start, decode and summary included: a lower bound, steady under load)")
print("goals: >= 20x faster, >= 5 M container accesses/s (LRU, compiled)")
PY
