#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-index.sh: the near-exact sampled index against the exact index on
# the same multi-version data (a figure with a goal, not a test): dedup
# ratio and the RAM each index reports, per version and overall, and the
# lookups that went to disk and the duplicates missed.
#
# usage: scripts/bench-index.sh
# environment: DESTOR (default build/destor); PRESET (default paper) or SIZE
#   (the first version's unique size, e.g. 512M; overrides the preset's) and
#   VERSIONS (default 3) for scripts/gen-dataset (seed SEED, default 1);
#   SAMPLING (default: the config's default, uniform 32) and CACHE (default
#   32) for the near-exact index; INDEX (default near-exact physical; or
#   near-exact logical silo) its design; SEGMENTS: silo's segment keys to
#   compare, variants separated by ';', each ALGORITHM[:SELECTION[:PREFETCHING]]
#   (e.g. "fixed 1024:top 1;content-defined 1024:mix"; a part left out keeps
#   the config's default), one silo store each beside the one exact store;
#   TMPDIR: where the data and stores go; KEEP: when set, the scratch
#   directory is kept.
#
# Two stores of 2 MiB containers, one per index, back up v1, v2, ... in
# turn (exact then near-exact for each version); each version is its own
# path, so backup's files cache has no parent and every file is read and
# looked up. Each backup's --json
# report gives its index's RAM (measured: tables, cache and the Berkeley DB
# cache pages in use), DB reads, container prefetches and missed
# duplicates (new chunks the DB already held). The dedup ratio is all
# versions' logical bytes over the bytes stored; the RAM of an index is its
# largest over the versions. Goal (issue 26): near-exact >= 95% of the
# exact dedup ratio with <= 1/16 of its RAM.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
PRESET=${PRESET:-paper}
VERSIONS=${VERSIONS:-3}
SEED=${SEED:-1}
CACHE=${CACHE:-32}
PYTHON=/usr/bin/python3
[ -x "$DESTOR" ] || { echo "bench-index: $DESTOR not built (run scripts/setup.sh)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench-index.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
"$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/data" --preset "$PRESET" ${SIZE:+--size "$SIZE"} \
    --versions "$VERSIONS" --seed "$SEED" >/dev/null
printf 'container-size 2M\n' > "$WORK/config"
near="-pfingerprint-index ${INDEX:-near-exact physical}"
[ -z "${SEGMENTS:-}" ] || near="-pfingerprint-index near-exact logical silo"
sampling=${SAMPLING:+-pfingerprint-index-sampling-method $SAMPLING}
# One near-exact store per variant: "near" alone without SEGMENTS.
printf '%s\n' "${SEGMENTS:-}" | tr ';' '\n' > "$WORK/variants"
v=1
while [ "$v" -le "$VERSIONS" ]; do
    "$DESTOR" -c "$WORK/config" -p"working-directory $WORK/exact" backup --json "$WORK/data/v$v" > "$WORK/exact.$v.json"
    i=0
    while IFS= read -r variant; do
        alg=${variant%%:*}
        rest=${variant#"$alg"}; rest=${rest#:}
        sel=${rest%%:*}
        pre=${rest#"$sel"}; pre=${pre#:}
        name=near; [ -z "$variant" ] || name=near$i
        printf '%s\n' "$variant" > "$WORK/$name.variant"
        "$DESTOR" -c "$WORK/config" -p"working-directory $WORK/$name" "$near" ${sampling:+"$sampling"} \
            -p"fingerprint-index-cache-size $CACHE" ${alg:+-p"fingerprint-index-segment-algorithm $alg"} \
            ${sel:+-p"fingerprint-index-segment-selection $sel"} ${pre:+-p"fingerprint-index-segment-prefetching $pre"} \
            backup --json "$WORK/data/v$v" > "$WORK/$name.$v.json"
        i=$((i + 1))
    done < "$WORK/variants"
    v=$((v + 1))
done

"$PYTHON" - "$WORK" "$VERSIONS" <<'PY'
import json, os, sys
work, versions = sys.argv[1], int(sys.argv[2])
names = ["exact"] + sorted((f[:-8] for f in os.listdir(work) if f.endswith(".variant")), key=lambda n: (len(n), n))
runs = {k: [json.load(open("%s/%s.%d.json" % (work, k, v))) for v in range(1, versions + 1)] for k in names}
if "near" not in runs:
    # variants of silo's segment keys: one line each against the exact index
    def ratio_of(k):
        return sum(r["logical_bytes"] for r in runs[k]) / max(1, sum(r["stored_bytes"] for r in runs[k]))
    e_ratio, e_ram = ratio_of("exact"), max(r["index"]["ram_bytes"] for r in runs["exact"])
    ix = runs[names[1]][0]["index"]
    print("silo variants: sampling %s %d, cache %d containers; exact: dedup ratio %.3f, RAM %.0f KiB; "
          "machine: %d CPUs, load %s" % (ix["sampling"], ix["sampling_ratio"], ix["cache_containers"], e_ratio,
                                         e_ram / 1024, os.cpu_count(), open("/proc/loadavg").read().split()[0]))
    print("%-28s %-12s %5s %9s %7s %9s %8s %9s %8s" % ("segments", "selection", "pref", "ratio", "of ex.",
                                                      "RAM KiB", "of ex.", "prefetch", "missed"))
    for k in names[1:]:
        ix = runs[k][-1]["index"]
        alg = ix["segment_algorithm"] + ("" if ix["segment_algorithm"] == "file-defined" else " %d" % ix["segment_size"])
        sel = ix["segment_selection"] + ("" if ix["segment_selection"] == "base" else " %d" % ix["segment_top_k"])
        ram = max(r["index"]["ram_bytes"] for r in runs[k])
        print("%-28s %-12s %5d %9.3f %6.1f%% %9.0f %8s %9d %8d" % (
            "%s [%d %d]" % (alg, ix["segment_min"], ix["segment_max"]), sel, ix["segment_prefetching"],
            ratio_of(k), 100 * ratio_of(k) / e_ratio, ram / 1024, "1/%.1f" % (e_ram / ram),
            sum(r["index"]["prefetches"] for r in runs[k]), sum(r["index"]["missed_duplicates"] for r in runs[k])))
    sys.exit(0)
near_ix = runs["near"][0]["index"]
print("%s: sampling %s %d, cache %d containers; machine: %d CPUs, load %s"
      % (near_ix["kind"], near_ix["sampling"], near_ix["sampling_ratio"], near_ix["cache_containers"],
         __import__("os").cpu_count(), open("/proc/loadavg").read().split()[0]))
print("%-3s %10s | %10s %9s %8s %8s | %10s %9s %8s %8s %8s" % (
    "v", "logical", "exact st.", "RAM KiB", "DB rd", "s", "near st.", "RAM KiB", "prefetch", "missed", "s"))
for i in range(versions):
    e, n = runs["exact"][i], runs["near"][i]
    print("%-3d %10d | %10d %9.0f %8d %8.2f | %10d %9.0f %8d %8d %8.2f" % (
        i + 1, e["logical_bytes"], e["stored_bytes"], e["index"]["ram_bytes"] / 1024, e["index"]["db_reads"],
        e["elapsed_ms"] / 1e3, n["stored_bytes"], n["index"]["ram_bytes"] / 1024, n["index"]["prefetches"],
        n["index"]["missed_duplicates"], n["elapsed_ms"] / 1e3))
def ratio(k):
    return sum(r["logical_bytes"] for r in runs[k]) / max(1, sum(r["stored_bytes"] for r in runs[k]))
def ram(k):
    return max(r["index"]["ram_bytes"] for r in runs[k])
de, dn = ratio("exact"), ratio("near")
re_, rn = ram("exact"), ram("near")
print("dedup ratio: exact %.3f, near-exact %.3f: %.1f%% of exact (goal >= 95%%): %s"
      % (de, dn, 100 * dn / de, "met" if dn >= 0.95 * de else "NOT met"))
print("index RAM (largest over versions): exact %.0f KiB, near-exact %.0f KiB: 1/%.1f of exact (goal <= 1/16): %s"
      % (re_ / 1024, rn / 1024, re_ / rn, "met" if rn * 16 <= re_ else "NOT met"))
PY
