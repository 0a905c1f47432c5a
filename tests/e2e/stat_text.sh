#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# stat_text.sh: text `destor stat` prints one line a job even when the
# source root holds a newline or a backslash: escaped as diagnostics are
# (\x0a, \\); --json keeps the bytes (issue 28).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

root="$SCRATCH/two
lines\\dir"
mkdir -p "$root"
echo hello > "$root/a.txt"
dst backup "$root" >/dev/null
dst stat > "$SCRATCH/stat.txt"
[ "$(wc -l < "$SCRATCH/stat.txt")" -eq 4 ] || { cat "$SCRATCH/stat.txt" >&2; fail "stat is not 4 lines (store, one job, total, containers)"; }
grep -q '^  job 0 .*/two\\x0alines\\\\dir$' "$SCRATCH/stat.txt" || { cat "$SCRATCH/stat.txt" >&2; fail "the job line does not end with the escaped root"; }
dst stat --json > "$SCRATCH/stat.json"
"$PYTHON" - "$SCRATCH/stat.json" "$root" <<'PY' || fail "stat --json lost the source root's bytes"
import json, sys
assert json.load(open(sys.argv[1]))["jobs"][0]["source_root"].endswith(sys.argv[2].split("/")[-1])
PY
note "stat: a source root with a newline stays on its job's line"
