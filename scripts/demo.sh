#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# demo.sh: the README's first command. Sets everything up, then runs the main
# job end to end on the small embedded dataset: generate it (deterministic),
# back up each version, print the store's statistics, read a few files back
# at random and check them against the originals, then replay a Zipf trace
# under HDD only, FIFO, LRU, LFU and PLC-Cache and print the comparison.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
"$TOP/scripts/setup.sh"
DESTOR="$TOP/build/destor"
PYTHON=/usr/bin/python3
DEMO=${DEMO_DIR:-$TOP/demo}

rm -rf "$DEMO"
mkdir -p "$DEMO"
printf 'working-directory "%s/working"\n' "$DEMO" > "$DEMO/destor.config"
run() { "$DESTOR" -c "$DEMO/destor.config" "$@"; }

echo "== generating the embedded dataset (preset small) in $DEMO/data"
"$PYTHON" "$TOP/scripts/gen-dataset" --out "$DEMO/data" --preset small --odd-names
for v in "$DEMO"/data/v*; do
    echo "== destor backup $v"
    run backup "$v"
done
echo "== destor stat"
run stat

echo "== destor read-file: 5 random files of the last job, compared with the originals"
last=$(run stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["jobs"][-1]["job"])')
src=$(ls -d "$DEMO"/data/v* | tail -n 1)
run list "$last" | awk -F '\t' '$1 == "f" { print $3 }' | grep -v '[[:cntrl:]]' | "$PYTHON" -c '
import random, sys
paths = sys.stdin.read().splitlines()
print("\n".join(random.Random(2024).sample(paths, 5)))' > "$DEMO/sample"
while IFS= read -r path; do
    run read-file "$last" "$path" --verify -o "$DEMO/read.out"
    cmp -s "$DEMO/read.out" "$src/$path" && echo "  ok  $path ($(wc -c < "$DEMO/read.out") bytes)" || { echo "  MISMATCH $path"; exit 1; }
done < "$DEMO/sample"
echo "== replaying a Zipf trace (alpha 0.47, 2.6x the data) under HDD only, FIFO, LRU, LFU and PLC"
"$PYTHON" "$TOP/scripts/gen-trace" --config "$DEMO/destor.config" --destor "$DESTOR" --job "$last" \
    --dist zipf --alpha 0.47 --bytes 2.6x --seed 1 --out "$DEMO/zipf.trace"
"$PYTHON" "$TOP/scripts/replay" "$DEMO/zipf.trace" --config "$DEMO/destor.config" --destor "$DESTOR" \
    --policies none,fifo,lru,lfu,plc --cache-size 20% --out-prefix "$DEMO/replay"
echo "== done: store in $DEMO/working; replay results in $DEMO/replay.{md,csv,json}"
