#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunkers.sh: every chunker and both fingerprint algorithms round-trip a
# tree, and a second version dedups against the first.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 5
for alg in rabin fastcdc fixed; do
    for fp in sha1 sha256; do
        cfg="-pworking-directory $SCRATCH/w-$alg-$fp"
        "$DESTOR_BIN" -c "$CONFIG" "$cfg" -p"chunk-algorithm $alg" -p"fingerprint-algorithm $fp" backup "$SCRATCH/data/v1" >/dev/null
        "$DESTOR_BIN" -c "$CONFIG" "$cfg" -p"chunk-algorithm $alg" -p"fingerprint-algorithm $fp" backup "$SCRATCH/data/v2" >/dev/null
        "$DESTOR_BIN" -c "$CONFIG" "$cfg" restore 1 "$SCRATCH/r-$alg-$fp" >/dev/null
        same_tree "$SCRATCH/data/v2" "$SCRATCH/r-$alg-$fp"
        "$DESTOR_BIN" -c "$CONFIG" "$cfg" stat --json > "$SCRATCH/s.json"
        "$PYTHON" - "$SCRATCH/s.json" "$alg" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
j = s["jobs"][1]
share = j["stored_bytes"] / j["logical_bytes"]
print("# %s: version 2 stored %.1f%% of its bytes" % (sys.argv[2], 100 * share))
assert share < 0.6, share
PY
    done
done
