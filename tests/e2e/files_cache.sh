#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# files_cache.sh: a later backup of the same path stores the unchanged
# files from the parent job's records without reading them (issue 42), and
# the job is what reading them would have written: the same job_meta_data,
# refcount and containers as a backup with --no-files-cache into a twin
# store (exact and near-exact index), the same summary figures. A file
# changed in place with its size and mtime put back is read again (its
# ctime moved); a file the parent read within 2 s of its start is read
# again (racy); a deleted or gc'd parent, or another path, is no parent.
# Where no fingerprint is stored twice (no index/COPIES), the unchanged
# files' chunks are taken where the parent names them, not looked up: the
# same job again, also after gc copied the parent's chunks and rewrote its
# records, and with an older job as the parent once the newest is deleted;
# after a rewriting job stored a second copy, they are looked up (the
# index names the newer copy, which a full read references), and in a
# store from before (no index/COUNTED) until repair rebuilt its index.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

SRC="$SCRATCH/src"
mkdir -p "$SRC/d/e"
pseudo_random 3000000 41 > "$SRC/d/big.bin"
pseudo_random 200000 42 > "$SRC/d/e/mid.bin"
cp "$SRC/d/e/mid.bin" "$SRC/d/e/mid-copy.bin"
echo small > "$SRC/a.txt"
: > "$SRC/empty"
ln -s a.txt "$SRC/link"
pseudo_random 100000 43 > "$SRC/d.x" # sorts after d/ by name, before it by path bytes
FILES=6
BYTES=$(cat "$SRC"/d/big.bin "$SRC"/d/e/*.bin "$SRC"/a.txt "$SRC"/d.x | wc -c)
sleep 3 # older than the racy margin (2 s) when the first job starts

# at W ARGS...: destor on the store in $SCRATCH/W.
at() { w=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$w" "$@"; }
# cache_field FILE KEY: a field of a backup summary's files_cache object.
cache_field() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["files_cache"][sys.argv[2]])' "$1" "$2"; }
# db_reads FILE: the index lookups a backup summary says went to the DB.
db_reads() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["index"]["db_reads"])' "$1"; }
# same_job A B ID: job ID of stores A and B holds the same records and
# counts, the stores the same containers, their summaries the same figures.
same_job() {
    for f in job_meta_data refcount; do
        cmp "$SCRATCH/$1/jobs/0000000$3/$f" "$SCRATCH/$2/jobs/0000000$3/$f" || fail "$f of job $3 differs: $1 $2"
    done
    if [ "$(store_kind)" = pool ]; then
        cmp "$SCRATCH/$1/containers.pool" "$SCRATCH/$2/containers.pool" || fail "containers differ: $1 $2"
    fi
    for k in files directories symlinks chunks new_chunks logical_bytes stored_bytes new_containers \
        restore_container_reads; do
        [ "$(json_field "$SCRATCH/$1.json" $k)" = "$(json_field "$SCRATCH/$2.json" $k)" ] ||
            fail "$k differs: $1 $2"
    done
}

# near-exact: a cache of one container and sparse random samples, so the
# second job misses duplicates: the files cache reads those chunks from
# where the parent's records name them and stores them again, as a read does.
for index in exact near-exact; do
    rm -rf "$SCRATCH/on" "$SCRATCH/off"
    if [ $index = exact ]; then
        ix() { at "$@"; }
    else
        ix() { w=$1; shift; at "$w" -p"fingerprint-index near-exact physical" -p"fingerprint-index-cache-size 1" \
            -p"fingerprint-index-sampling-method random 256" "$@"; }
    fi
    for w in on off; do ix $w backup "$SRC" > /dev/null; done
    ix on backup --json "$SRC" > "$SCRATCH/on.json"
    ix off backup --json --no-files-cache "$SRC" > "$SCRATCH/off.json"
    missed=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["index"]["missed_duplicates"])' "$SCRATCH/off.json")
    [ $index = exact ] || [ "$missed" -gt 0 ] || fail "near-exact: no duplicate missed, the test tests nothing"
    [ "$(cache_field "$SCRATCH/on.json" files)" = $FILES ] || fail "$index: files cache took $(cache_field "$SCRATCH/on.json" files) files, not $FILES"
    [ "$(cache_field "$SCRATCH/on.json" bytes)" = "$BYTES" ] || fail "$index: files cache bytes"
    [ "$(cache_field "$SCRATCH/on.json" parent_job)" = 0 ] || fail "$index: parent not job 0"
    [ "$(cache_field "$SCRATCH/off.json" state)" = off ] || fail "--no-files-cache: not off"
    [ "$(cache_field "$SCRATCH/off.json" files)" = 0 ] || fail "--no-files-cache took files"
    same_job on off 1
    if [ $index = exact ]; then
        [ "$(db_reads "$SCRATCH/on.json")" = 0 ] || fail "exact: the parent's chunks were looked up (no duplicates)"
        [ "$(db_reads "$SCRATCH/off.json")" -gt 0 ] || fail "exact: the full read looked nothing up"
    fi
    at on restore 1 "$SCRATCH/r-$index" > /dev/null
    same_tree "$SRC" "$SCRATCH/r-$index"
done
at on verify --deep > /dev/null
note "a later job from the files cache: the records, counts and containers a full read writes"

# twins CMD...: the same history into stores "gon" and "goff" (container-size
# 128K: several containers, some shared by MIX and SRC).
twins() { for w in gon goff; do at $w -p"container-size 128K" "$@" > /dev/null; done; }
# last_twins ID NAME: job ID backed up with the files cache into "gon" and
# without into "goff" is the same; NAME: whether "gon" looked its chunks up.
last_twins() {
    at gon -p"container-size 128K" backup --json "$SRC" > "$SCRATCH/gon.json"
    at goff -p"container-size 128K" backup --json --no-files-cache "$SRC" > "$SCRATCH/goff.json"
    [ "$(cache_field "$SCRATCH/gon.json" files)" = $FILES ] || fail "$2: the files cache took $(cache_field "$SCRATCH/gon.json" files) files"
    same_job gon goff "$1"
    reads=$(db_reads "$SCRATCH/gon.json")
    if [ -e "$SCRATCH/gon/index/COPIES" ] || [ ! -e "$SCRATCH/gon/index/COUNTED" ]; then
        [ "$reads" -gt 0 ] || fail "$2: a fingerprint is stored twice, yet the parent's chunks were not looked up"
    else
        [ "$reads" = 0 ] || fail "$2: $reads lookups, no fingerprint stored twice"
    fi
}
MIX="$SCRATCH/mix"
mkdir -p "$MIX"
cp -a "$SRC/." "$MIX/"
pseudo_random 600000 45 > "$MIX/zz.bin" # after SRC's files: its chunks share containers with theirs
twins backup "$MIX"    # job 0: SRC's chunks in MIX's containers
twins backup "$SRC"    # job 1: no parent, every chunk found in job 0's
twins backup "$SRC"    # job 2: parent job 1
twins delete 0
at gon -p"container-size 128K" -p"gc-live-threshold 1" gc --json > "$SCRATCH/gc.json"
at goff -p"container-size 128K" -p"gc-live-threshold 1" gc > /dev/null
[ "$(json_field "$SCRATCH/gc.json" jobs_rewritten)" -gt 0 ] || fail "gc rewrote no records, the test tests nothing"
[ ! -e "$SCRATCH/gon/index/COPIES" ] || fail "a gc that completed left index/COPIES"
last_twins 3 "after gc copied the parent's chunks"
twins delete 3
last_twins 4 "after the parent was deleted (job 2 the parent)"
[ "$(cache_field "$SCRATCH/gon.json" parent_job)" = 2 ] || fail "the parent was not the newest live job"
# A store from before issue 42 (no index/COUNTED): its older binaries did
# not mark rewriting's copies, so the chunks are looked up until a rebuild.
rm "$SCRATCH/gon/index/COUNTED"
last_twins 5 "a store from before"
at gon repair > /dev/null
at goff repair > /dev/null
[ -e "$SCRATCH/gon/index/COUNTED" ] && [ ! -e "$SCRATCH/gon/index/COPIES" ] ||
    fail "repair: no index/COUNTED, or a fingerprint stored twice"
last_twins 6 "after repair"
# A rewriting job (another path) writes SRC's chunks again: the index names
# the new copies, which the full read references, and so must the files cache.
for w in gon goff; do
    at $w -p"container-size 128K" -p"rewrite-algorithm capping 256" -p"rewrite-capping-level 1" backup --json \
        "$MIX" > "$SCRATCH/rw-$w.json"
done
[ "$(json_field "$SCRATCH/rw-gon.json" rewritten_chunks)" -gt 0 ] || fail "nothing rewritten, the test tests nothing"
[ -e "$SCRATCH/gon/index/COPIES" ] || fail "a rewriting job left no index/COPIES"
last_twins 8 "after rewriting"
at gon verify --deep > /dev/null
note "the parent's chunks taken unlooked-up without duplicates (after gc's copies, the parent deleted), looked up after rewriting"

# The same size and mtime, other bytes: the ctime tells, the file is read.
cp -p "$SRC/d/e/mid.bin" "$SCRATCH/was"
pseudo_random 1000 44 | dd of="$SRC/d/e/mid.bin" bs=1000 seek=7 conv=notrunc 2>/dev/null
touch -r "$SCRATCH/was" "$SRC/d/e/mid.bin"
cmp -s "$SCRATCH/was" "$SRC/d/e/mid.bin" && fail "the file did not change"
at on backup --json "$SRC" > "$SCRATCH/on.json"
[ "$(cache_field "$SCRATCH/on.json" files)" = $((FILES - 1)) ] || fail "a file changed in place was not read again"
at on read-file 2 d/e/mid.bin | cmp -s - "$SRC/d/e/mid.bin" || fail "job 2 holds the old bytes of mid.bin"
note "a file changed with its size and mtime kept is read again (ctime)"

# A file the parent read right after it changed is not trusted (racy).
mkdir -p "$SCRATCH/fresh"
echo new > "$SCRATCH/fresh/f"
at racy backup "$SCRATCH/fresh" > /dev/null
at racy backup --json "$SCRATCH/fresh" > "$SCRATCH/racy.json"
[ "$(cache_field "$SCRATCH/racy.json" files)" = 0 ] || fail "a racy entry was trusted"
[ "$(cache_field "$SCRATCH/racy.json" parent_job)" = 0 ] || fail "racy: parent not job 0"

# No parent: another path string, a deleted parent, a gc'd one (gc removes
# a deleted job's file_status with its records).
at on backup --json "$SCRATCH/./src" > "$SCRATCH/other.json"
[ "$(cache_field "$SCRATCH/other.json" parent_job)" = None ] || fail "a job of another path was a parent"
at del backup "$SRC" > /dev/null
at del delete 0 > /dev/null
at del backup --json "$SRC" > "$SCRATCH/del.json"
[ "$(cache_field "$SCRATCH/del.json" parent_job)" = None ] || fail "a deleted job was a parent"
at del delete 1 > /dev/null
at del gc > /dev/null
for j in 00000000 00000001; do
    [ ! -e "$SCRATCH/del/jobs/$j/file_status" ] || fail "gc left deleted job $j's file_status"
done
[ -e "$SCRATCH/del/jobs/00000001/manifest" ] || fail "jobs/NNNNNNNN is not where this test looks"
at del backup --json "$SRC" > "$SCRATCH/gc.json"
[ "$(cache_field "$SCRATCH/gc.json" parent_job)" = None ] || fail "a gc'd job was a parent"
at del restore 2 "$SCRATCH/r-gc" > /dev/null
same_tree "$SRC" "$SCRATCH/r-gc"
note "another path, a deleted and a gc'd job are no parent"

# Controls: the key turns it off; on where it cannot apply is an error.
at on -p"backup-files-cache no" backup --json "$SRC" > "$SCRATCH/no.json"
[ "$(cache_field "$SCRATCH/no.json" state)" = off ] || fail "backup-files-cache no: not off"
expect_status 2 at on -p"backup-files-cache maybe" backup "$SRC"
expect_status 2 at on -p"backup-files-cache yes" -p"rewrite-algorithm capping 256" backup "$SRC"
grep -q "backup-files-cache yes does not apply" "$SCRATCH/err" || fail "no reason given"
at on -p"rewrite-algorithm capping 256" backup --json "$SRC" > "$SCRATCH/rw.json"
[ "$(cache_field "$SCRATCH/rw.json" state)" = "not applicable" ] || fail "rewriting: files cache used"
note "backup-files-cache no and --no-files-cache turn it off; yes with rewriting is an error"

# The tree rearranged under the parent, each later job compared with a full
# read into a twin store (same records, counts, containers) and restored: a
# renamed directory (its files keep inode and status under other paths: no
# parent record), a deleted file, a file replaced by another of the same
# size and mtime (another inode), a chmod (the ctime moves; the record
# carries the new mode), then the same tree again (every file taken).
# A parent record taken for the wrong file shows in the records' bytes.
for w in ton toff; do at $w backup "$SRC" > /dev/null; done
mv "$SRC/d/e" "$SRC/d/f"
rm "$SRC/a.txt"
cp -p "$SRC/d.x" "$SCRATCH/was"
pseudo_random 1000 46 | dd of="$SCRATCH/was" bs=1000 seek=3 conv=notrunc 2>/dev/null
touch -r "$SRC/d.x" "$SCRATCH/was"
mv "$SCRATCH/was" "$SRC/d.x"
chmod 600 "$SRC/empty"
sleep 3 # the changes older than the racy margin when the next job starts
for job in 1 2; do
    at ton backup --json "$SRC" > "$SCRATCH/ton.json"
    at toff backup --json --no-files-cache "$SRC" > "$SCRATCH/toff.json"
    same_job ton toff $job
    at ton restore $job "$SCRATCH/r-moved-$job" > /dev/null
    same_tree "$SRC" "$SCRATCH/r-moved-$job"
done
[ "$(cache_field "$SCRATCH/ton.json" files)" = 5 ] || fail "the same tree again: $(cache_field "$SCRATCH/ton.json" files) files taken, not 5"
at ton list 2 --json > "$SCRATCH/l2.json"
"$PYTHON" - "$SCRATCH/l2.json" <<'PY' || fail "job 2's records: see above"
import json, sys
paths = {e["path"] for e in json.load(open(sys.argv[1]))["entries"]}
assert not paths & {"a.txt", "d/e", "d/e/mid.bin"}, sorted(paths)
assert {"d/f/mid.bin", "d/f/mid-copy.bin", "d.x", "empty"} <= paths, sorted(paths)
PY
note "a renamed directory, a deleted, a replaced and a chmod'ed file: the records a full read writes"
