#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# workers.sh: what backup stores does not depend on how many chunk workers
# run. Two versions of a tree (small files, files spanning several read
# blocks, an empty file, odd names) are backed up with 1 worker and with 3;
# the containers, every job_meta_data (the recipes) and refcount are
# byte-identical, the manifests too except their creation time and CRC, and
# verify (which checks every record against the recipe index) passes.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 2 --odd-names --seed 23
for v in v1 v2; do
    pseudo_random 3500000 11 > "$SCRATCH/data/$v/spans-blocks.bin"
    : > "$SCRATCH/data/$v/empty"
done
pseudo_random 2500000 12 >> "$SCRATCH/data/v2/spans-blocks.bin"

for w in 1 3; do
    for v in v1 v2; do
        dst -p"working-directory $SCRATCH/w$w" -p"backup-workers $w" -p"container-size 128K" \
            backup "$SCRATCH/data/$v" > "$SCRATCH/out.$w.$v"
    done
    dst -p"working-directory $SCRATCH/w$w" verify > /dev/null || fail "verify of the $w-worker store"
done
diff -r "$(containers_of "$SCRATCH/w1")" "$(containers_of "$SCRATCH/w3")" > /dev/null || fail "containers differ"
for j in 00000000 00000001; do
    for f in job_meta_data refcount; do
        cmp "$SCRATCH/w1/jobs/$j/$f" "$SCRATCH/w3/jobs/$j/$f" || fail "job $j $f differs"
    done
    # The manifest without its creation time (bytes 16-23) and final CRC.
    for w in 1 3; do
        m="$SCRATCH/w$w/jobs/$j/manifest"
        { head -c 16 "$m"; tail -c +25 "$m" | head -c $(($(wc -c < "$m") - 28)); } > "$SCRATCH/m$w"
    done
    cmp "$SCRATCH/m1" "$SCRATCH/m3" || fail "job $j manifest differs"
done
grep -q 'chunk .*chunk .*chunk ' "$SCRATCH/out.3.v2" || fail "3 workers did not run"
note "1 and 3 workers stored identical bytes"
