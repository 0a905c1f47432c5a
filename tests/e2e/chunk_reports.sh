#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunk_reports.sh: the chunk cache's text and JSON reports pinned byte for
# byte (tests/fixtures/chunk_reports.txt) on one two-job trace: both
# layouts, real mode and simulation, reclaim evict, clean and reinsert,
# container fetch. Lines, their order, JSON keys and values must stay
# what they are when the code that writes them moves (the layouts hand up
# their own rows: chunk_layout.h). Wall and CPU times and the memory
# figures (sizes of structs) are masked (the admission's per stored
# container is checked against the container cache's count below); with compression (whose sizes
# depend on the codec library's version) only the digits are. A report
# changed on purpose: rerun with DESTOR_UPDATE_REPORTS=1 and review the
# fixture's diff.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

two_job_trace 33 8 0.9 300
EXPECTED="$TOP_SRCDIR/tests/fixtures/chunk_reports.txt"
: > "$SCRATCH/got"

report() { # NAME MASK OPTIONS...: both reports of one run, masked, appended to $SCRATCH/got
    name=$1 mask=$2
    shift 2
    for form in text json; do
        rm -rf "$SCRATCH/ssd"
        flag=
        [ $form = json ] && flag=--json
        dst -p"ssd-cache-granularity chunk" "$@" read-file --trace "$SCRATCH/trace" $flag > "$SCRATCH/out" ||
            fail "$name: read-file failed"
        "$PYTHON" - "$SCRATCH/out" "$name.$form" "$mask" >> "$SCRATCH/got" <<'PY'
import re, sys
text, name, mask = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
if name.endswith(".json"):  # the cache's object, from its key to the end
    out = text[text.index('"cache":'):]
    out = re.sub(r'"(cpu_\w+_ms|request_latency_wall_ms_mean|\w*memory\w*|bytes_per_\w+|layout_index_bytes|'
                 r'stored_length_bytes)":[^,}]*', r'"\1":M', out)
else:  # from the cache's first line to the end
    out = text[text.index("SSD cache:"):]
    out = re.sub(r"(compression CPU|memory per chunk|memory|stored lengths kept) +.*", r"\1 M", out)
if mask == "digits":
    out = re.sub(r"[0-9]+(\.[0-9]+)?", "#", out)
sys.stdout.write("== %s\n%s%s" % (name, out, "" if out.endswith("\n") else "\n"))
PY
    done
}

LOG='-pssd-cache-segment-size 64K'
report sim-log-lru-evict values "$LOG" -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" --simulate
report real-log-lru-evict values "$LOG" -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" -p"ssd-cache-directory $SCRATCH/ssd"
report sim-log-arc-reinsert values "$LOG" -p"ssd-cache-policy arc" -p"ssd-cache-size 25%" \
    -p"ssd-cache-segment-reclaim reinsert" --simulate
report real-log-arc-reinsert values "$LOG" -p"ssd-cache-policy arc" -p"ssd-cache-size 25%" \
    -p"ssd-cache-segment-reclaim reinsert" -p"ssd-cache-directory $SCRATCH/ssd"
report real-log-dlru-clean-container values "$LOG" -p"ssd-cache-policy d-lru" -p"ssd-cache-size 10%" \
    -p"ssd-cache-segment-reclaim clean" -p"ssd-cache-chunk-fetch container" -p"ssd-cache-directory $SCRATCH/ssd"
BK='-pssd-cache-layout buckets'
report sim-buckets values "$BK" -p"ssd-cache-policy austere" -p"ssd-cache-size 1M" --simulate
report real-buckets values "$BK" -p"ssd-cache-policy austere" -p"ssd-cache-size 1M" -p"ssd-cache-directory $SCRATCH/ssd"
report sim-log-lz4 digits "$LOG" -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" -p"ssd-cache-compression lz4" --simulate
report real-log-lz4 digits "$LOG" -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" -p"ssd-cache-compression lz4" \
    -p"ssd-cache-directory $SCRATCH/ssd"
report sim-buckets-zstd digits "$BK" -p"ssd-cache-policy austere" -p"ssd-cache-size 1M" -p"ssd-cache-compression zstd" \
    --simulate
report real-buckets-zstd digits "$BK" -p"ssd-cache-policy austere" -p"ssd-cache-size 1M" \
    -p"ssd-cache-compression zstd" -p"ssd-cache-directory $SCRATCH/ssd"

# The admission rule's memory per stored container (masked above, as every
# memory figure): the rule's bytes over the store's containers, as the
# container cache's report counts them (its two keys' ratio).
LEARN='-pssd-cache-admission learned'
dst -p"ssd-cache-granularity chunk" "$LOG" -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" "$LEARN" \
    -p"ssd-cache-write-budget 20000" read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/chunk.json" ||
    fail "chunk cache under learned: read-file failed"
dst -p"ssd-cache-policy lru" -p"ssd-cache-size 25%" "$LEARN" -p"ssd-cache-write-budget 20000" \
    read-file --trace "$SCRATCH/trace" --simulate --json > "$SCRATCH/container.json" ||
    fail "container cache under learned: read-file failed"
"$PYTHON" - "$SCRATCH/chunk.json" "$SCRATCH/container.json" <<'PY' || fail "admission memory per stored container"
import json, sys
chunk, cont = (json.load(open(p))["cache"] for p in sys.argv[1:3])
n = cont["memory_bytes_admission"] / cont["memory_bytes_admission_per_container"]
assert chunk["admission_memory_bytes"] > 0, chunk["admission_memory_bytes"]
got = chunk["admission_memory_bytes_per_container"]
assert abs(got * n - chunk["admission_memory_bytes"]) < 1e-6 * chunk["admission_memory_bytes"], (got, n)
PY

if [ "${DESTOR_UPDATE_REPORTS:-}" = 1 ]; then
    cp "$SCRATCH/got" "$EXPECTED"
    note "reports written to $EXPECTED"
fi
cmp -s "$EXPECTED" "$SCRATCH/got" || { diff "$EXPECTED" "$SCRATCH/got" | head -40 >&2; fail "the chunk cache's reports differ from $EXPECTED"; }
note "chunk reports: $(grep -c '^== ' "$EXPECTED") reports as pinned"
