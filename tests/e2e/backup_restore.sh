#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# backup_restore.sh: back up two versions of a generated tree (odd names,
# empty files, symlinks, duplicates), restore each and compare byte for byte
# with modes and mtimes, read a random sample with read-file, check that a
# second backup of the same data stores under 1% new bytes, and that the
# legacy Destor forms (destor PATH, -rJOB, -s) work.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 2 --odd-names --seed 7
V1="$SCRATCH/data/v1"
V2="$SCRATCH/data/v2"

dst backup "$V1" > "$SCRATCH/backup0.txt"
grep -q 'backup job 0 committed' "$SCRATCH/backup0.txt" || fail "no commit line for job 0"
dst restore 0 "$SCRATCH/r0" >/dev/null
same_tree "$V1" "$SCRATCH/r0"
note "job 0 restored identical"

# Legacy forms: destor PATH backs up, -rJOB restores, -s prints stats.
"$DESTOR_BIN" -c "$CONFIG" "$V2" >/dev/null
"$DESTOR_BIN" -c "$CONFIG" -r1 "$SCRATCH/r1" >/dev/null
same_tree "$V2" "$SCRATCH/r1"
"$DESTOR_BIN" -c "$CONFIG" -s | grep -q '^total: 2 jobs' || fail "legacy -s did not report 2 jobs"
note "legacy backup/restore/stat work"

"$PYTHON" "$TOP_SRCDIR/tests/e2e/read_sample.py" "$DESTOR_BIN" "$CONFIG" 1 "$V2" 40 11

# Same data again in a new process: almost nothing new is stored.
dst backup "$V2" >/dev/null
dst stat --json > "$SCRATCH/stat.json"
"$PYTHON" - "$SCRATCH/stat.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
job = s["jobs"][2]
share = job["stored_bytes"] / max(job["logical_bytes"], 1)
print("# third backup stored %d of %d logical bytes (%.4f%%)" % (job["stored_bytes"], job["logical_bytes"], 100 * share))
assert share < 0.01, "second backup of the same data stored %.2f%% new bytes" % (100 * share)
assert s["dedup_ratio"] > 1.5, s["dedup_ratio"]
PY

# A trace of every regular file (names a trace line cannot hold left out).
dst list 2 --null > "$SCRATCH/list"
"$PYTHON" - "$SCRATCH/list" > "$SCRATCH/trace" <<'PY'
import sys
for rec in open(sys.argv[1], "rb").read().split(b"\0")[:-1]:
    kind, _size, path = rec.split(b"\t", 2)
    if kind == b"f" and b"\n" not in path and b"\r" not in path:
        sys.stdout.buffer.write(b"2\t" + path + b"\n")
PY
n=$(wc -l < "$SCRATCH/trace")
[ "$n" -gt 10 ] || fail "trace too short ($n)"
dst read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/trace.json"
[ "$(json_field "$SCRATCH/trace.json" requests)" -eq "$n" ] || fail "trace served a different number of requests"
note "trace of $n requests served"

# The same with NUL-terminated records: every regular file, names holding a
# newline or CR included, each read and checked against its file digest.
"$PYTHON" - "$SCRATCH/list" > "$SCRATCH/trace0" <<'PY'
import sys
recs = [r.split(b"\t", 2) for r in open(sys.argv[1], "rb").read().split(b"\0")[:-1]]
odd = 0
for kind, _size, path in recs:
    if kind == b"f":
        sys.stdout.buffer.write(b"2\t" + path + b"\0")
        odd += b"\n" in path or b"\r" in path
assert odd > 0, "the dataset has no name holding a newline or CR"
PY
n0=$(tr -cd '\000' < "$SCRATCH/trace0" | wc -c)
[ "$n0" -gt "$n" ] || fail "the NUL trace should name more files than the line trace ($n0 vs $n)"
dst read-file --trace "$SCRATCH/trace0" --null --verify --json > "$SCRATCH/trace0.json"
[ "$(json_field "$SCRATCH/trace0.json" requests)" -eq "$n0" ] || fail "NUL trace served a different number of requests"
note "NUL-terminated trace of $n0 requests served, names with newlines included"
