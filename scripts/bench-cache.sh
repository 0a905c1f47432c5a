#!/bin/sh
# bench-cache.sh: the SSD cache's speed and memory in simulation mode, as
# figures against the targets (not a test): each policy over 2,000,000
# containers, cache 20%, 20 M Zipf (alpha 0.47) container accesses on one
# core. Targets: >= 2 M accesses/s; <= 12 bytes of per-container metadata
# (the paper's 2 M containers for 4 TB in 24 MB).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$TOP/build/Makefile" ] || "$TOP/scripts/setup.sh"
make -s -C "$TOP/build" tests/bench/bench_cache_sim
BENCH="$TOP/build/tests/bench/bench_cache_sim"
for policy in fifo lru lfu plc; do
    out=$("$BENCH" --policy "$policy" --containers 2000000 "$@")
    rate=$(printf '%s\n' "$out" | awk '/accesses\/s/ { print $(NF-2) }')
    bytes=$(printf '%s\n' "$out" | awk '/^metadata/ { print $2 }')
    rss=$(printf '%s\n' "$out" | awk '/^peak RSS/ { print $3 }')
    awk -v p="$policy" -v r="$rate" -v b="$bytes" -v m="$rss" 'BEGIN {
        printf "%-5s %6.2f M accesses/s (%.1fx the 2 M/s target), %s B/container (limit 12), peak RSS %s MiB\n",
               p, r, r / 2.0, b, m }'
done
