#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-store.sh: how fast the store is, as ratios against this machine's own
# single-core SHA-1 speed measured in the same run (a figure, not a test).
#
# usage: scripts/bench-store.sh [[NAME=]DATASET_DIR]...
#   without arguments: two generated datasets, "large" (1 GiB of mixed
#   files, up to tens of MiB) and "small" (a source-like tree of 20,000 files,
#   median about 8 KiB); with them: those trees (e.g. a real source tree),
#   named NAME ("large" and "small" are held to their goals) or "given".
#   Either way also "entries", 20,000 files of 100 bytes, whose per-file
#   overhead is that of an entry alone.
# environment: DESTOR (default build/destor); DESTOR_B, a second binary to
#   compare with (runs alternate A, B, A, B...); REPEAT (default 3) runs of
#   each measurement, of which the medians are printed; ONLY_READ=1: only
#   the 1 GiB file's reads (no datasets, no SHA-1); BACKUP_ONLY=1: only
#   the backups (fastcdc, first and later job; no "entries", rabin,
#   restore or reads; CHUNKERS="fastcdc rabin" adds rabin, destor's
#   default), by default of the generated "large" tree and of a
#   copy of /usr/include as "source" (SOURCE_TREE: another real tree);
#   OUT_DIR (default
#   /dev/shm when it is a directory, else the work directory): where the
#   1 GiB file is written (a tmpfs leaves the copies, not the disk, to
#   measure; read-file -o syncs what it writes, cat and cp do not).
#
# Per dataset and chunker (fastcdc and rabin), in one store per run, with the
# input read into the page cache just before (and what the machine read from
# disk during the run printed, to show it stayed there): backup MB/s and its share of SHA-1, the
# backup's CPU time (user + system) and what it would allow with every
# core free (bytes / (CPU time / cores): on a shared machine the wall-clock
# figure measures the neighbours too), per-file overhead = (CPU time - CPU
# of cutting and fingerprinting chunks, as backup prints it - for a store
# whose file digest is SHA-256, bytes / single-core SHA-256 speed) /
# entries, what is left once chunking, chunk fingerprints and a SHA-256
# file digest are taken out (an XXH3-128 digest, at memory speed, is left
# in: about 0.6 us a file on the small tree; on large files the figure is
# mostly per-chunk and per-byte work: copies, index, containers), and
# peak RSS; with fastcdc also the same figures for a second backup of the
# same tree into that store ("fastcdc/again": a later job; with a binary
# that has backup's files cache, the unchanged files are taken from the
# first job's records unread, their chunks looked up as read ones; "unread"
# says how many files; "fastcdc/again-read", such a binary only: the same
# later job with --no-files-cache, every file read and every chunk looked
# up, in the Berkeley DB too, and found, the later job measured before
# issue 42's files cache). On the first dataset also
# restore MB/s beside `cp -r` of the same tree (alternated, medians) and
# read-file p50 latency (fastcdc); and, for one 1 GiB file in a store of
# its own, all from the page cache: read-file beside `cat` of it to
# /dev/null, read-file -o beside `cat >` and `cp` into OUT_DIR, and restore
# of that store into OUT_DIR beside the same (alternated, medians, wall and
# CPU time).
# Goals (issues 15 and 27): small files >= 35% (fastcdc) and >= 20%
# (rabin) of SHA-1, large files >= 60% (fastcdc; 80% since issue 42), later jobs >= 35% small
# and >= 50% large, per-file overhead <= 15 us; restore at least as fast as
# `cp -r`; (issue 42) read-file, read-file -o and restore of the 1 GiB
# file >= 0.8 of `cat` and of `cp` of it; backup of large files >= 0.8 of
# SHA-1 on both cores, of a real source tree ("source") >= 0.5 and a later
# job of it >= 1.0. Each backup's commit (wall time after the pipeline
# ends: syncs, index and recipes written, manifest) is printed beside it.
# The disk's O_DIRECT write speed (dd, DISK_MB MiB, default 1024, once a
# round) is measured too: a job storing B bytes takes at least B over it,
# so each backup is also given as a share of the lower of SHA-1 and that.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTOR=${DESTOR:-$TOP/build/destor}
DESTOR_B=${DESTOR_B:-}
REPEAT=${REPEAT:-3}
PYTHON=/usr/bin/python3
for bin in "$DESTOR" $DESTOR_B; do
    [ -x "$bin" ] || { echo "bench-store: $bin not built (run scripts/setup.sh)" >&2; exit 2; }
done

ONLY_READ=${ONLY_READ:-0}
BACKUP_ONLY=${BACKUP_ONLY:-0}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/destor-bench.XXXXXX")
OUT_DIR=${OUT_DIR:-}
[ -n "$OUT_DIR" ] || { [ -d /dev/shm ] && OUT_DIR=/dev/shm || OUT_DIR=$WORK; }
OUT=$(mktemp -d "$OUT_DIR/destor-bench-out.XXXXXX")
trap 'rm -rf "$WORK" "$OUT"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load average at the start: $(load)"

# Read the tree into the page cache. Done before every timed backup, not
# once: a machine may reclaim page cache in the background (one here drops
# it by about 8 MB/s while idle), and a backup that reads from the disk pays
# kernel CPU for the I/O, which lands in the per-file figure.
warm() {
    find "$1" -type f -exec cat {} + > /dev/null 2>&1 || true   # an unreadable file is backup's to report
}

# timed RESULT CMD...: CMD's output discarded; appends "wall cpu" (seconds;
# cpu = user + system of CMD and its children) to RESULT.
timed() {
    out=$1
    shift
    s=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$WORK/time" "$@" > /dev/null
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" '{ print e - s, $1 + $2 }' "$WORK/time" >> "$out"
}

# One 1 GiB file (incompressible, its own store, fastcdc), everything read
# from the page cache (the store and the file warmed before each round),
# REPEAT rounds, each alternating: read-file to /dev/null and cat of the
# file to /dev/null; read-file -o, cat > and cp into OUT; restore of the
# store into OUT (each binary in turn). $WORK/big.NAME: "wall cpu" a round.
read_big() {
    mkdir "$WORK/big"
    openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv 0 -in /dev/zero 2>/dev/null |
        head -c 1073741824 > "$WORK/big/one.bin"
    printf 'working-directory "%s/wbig"\n' "$WORK" > "$WORK/big.config"
    "$DESTOR" -c "$WORK/big.config" -p"chunk-algorithm fastcdc" backup "$WORK/big" > /dev/null
    i=0
    while [ $i -lt "$REPEAT" ]; do
        for bin in "$DESTOR" $DESTOR_B; do
            tag=A; [ "$bin" = "$DESTOR" ] || tag=B
            warm "$WORK/wbig"
            timed "$WORK/big.read.$tag" "$bin" -c "$WORK/big.config" read-file 0 one.bin
            rm -f "$OUT/r"
            warm "$WORK/wbig"
            timed "$WORK/big.read-o.$tag" "$bin" -c "$WORK/big.config" read-file 0 one.bin -o "$OUT/r"
            rm -rf "$OUT/r" "$OUT/restored"
            warm "$WORK/wbig"
            timed "$WORK/big.restore.$tag" "$bin" -c "$WORK/big.config" restore 0 "$OUT/restored"
            rm -rf "$OUT/restored"
        done
        warm "$WORK/big"
        timed "$WORK/big.cat" cat "$WORK/big/one.bin"
        warm "$WORK/big"
        timed "$WORK/big.cat-o" sh -c 'cat "$1" > "$2"' sh "$WORK/big/one.bin" "$OUT/c"
        rm -f "$OUT/c"
        warm "$WORK/big"
        timed "$WORK/big.cp" cp "$WORK/big/one.bin" "$OUT/c"
        rm -f "$OUT/c"
        i=$((i + 1))
    done
    rm -rf "$WORK/big" "$WORK/wbig"
}

# The 1 GiB file's figures: medians of wall and CPU time, MB/s, and the
# ratios to cat and cp (goal: 0.8), with the load average at the end.
report_big() {
    "$PYTHON" - "$WORK" "$REPEAT" "$OUT_DIR" "$(load)" <<'PY'
import os, statistics, sys
work, repeat, out_dir, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def runs(name):
    return [[float(x) for x in line.split()] for line in open(os.path.join(work, "big." + name))]
def med(name, k):
    return statistics.median(r[k] for r in runs(name))
def fig(name):
    return "%.1f MB/s (wall %.3f s, CPU %.3f s)" % (2 ** 30 / med(name, 0) / 1e6, med(name, 0), med(name, 1))
print("1 GiB file, page cache warm, medians of %d alternated rounds; outputs into %s:" % (repeat, out_dir))
for name, what in (("cat", "cat to /dev/null"), ("cat-o", "cat > file"), ("cp", "cp")):
    print("  %-22s %s" % (what, fig(name)))
for tag in ("A", "B"):
    if not os.path.exists(os.path.join(work, "big.read." + tag)):
        continue
    for name, what, limits in (("read", "read-file > /dev/null", ("cat",)), ("read-o", "read-file -o file", ("cat-o", "cp")),
                               ("restore", "restore", ("cat-o", "cp"))):
        ratios = "; ".join("%.2f of %s's speed (CPU %.2f times its)" % (
            med(l, 0) / med(name + "." + tag, 0), l, med(name + "." + tag, 1) / med(l, 1)) for l in limits)
        print("  %s %-19s %s; %s (goal >= 0.80)" % (tag, what, fig(name + "." + tag), ratios))
print("load average at the end: %s" % load)
PY
}

if [ "$ONLY_READ" = 1 ]; then
    read_big
    report_big
    exit 0
fi
if [ $# -gt 0 ]; then
    DATASETS=""
    for a in "$@"; do
        case $a in *=*) ;; *) a="given=$a" ;; esac
        [ "${a%%=*}" != entries ] || { echo "bench-store: the name entries is the generated tree's" >&2; exit 2; }
        [ -d "${a#*=}" ] || { echo "bench-store: ${a#*=} is not a directory" >&2; exit 2; }
        DATASETS="$DATASETS $a"
    done
    DATASETS=${DATASETS# }
elif [ "$BACKUP_ONLY" = 1 ]; then
    SOURCE_TREE=${SOURCE_TREE:-/usr/include}
    [ -d "$SOURCE_TREE" ] || { echo "bench-store: $SOURCE_TREE is not a directory (set SOURCE_TREE)" >&2; exit 2; }
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/large" --size 1G --versions 1 --seed 42 >/dev/null
    cp -r "$SOURCE_TREE" "$WORK/source"   # ours to read: no entry skipped for its permissions
    DATASETS="large=$WORK/large/v1 source=$WORK/source"
else
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/large" --size 1G --versions 1 --seed 42 >/dev/null
    "$PYTHON" "$TOP/scripts/gen-dataset" --out "$WORK/small" --shape source --files 20000 --size 260M \
        --versions 1 --seed 42 >/dev/null
    DATASETS="large=$WORK/large/v1 small=$WORK/small/v1"
fi
DEFAULT_CHUNKERS="fastcdc rabin"
[ "$BACKUP_ONLY" != 1 ] || DEFAULT_CHUNKERS=fastcdc
CHUNKERS=${CHUNKERS:-$DEFAULT_CHUNKERS}
for chunker in $CHUNKERS; do
    case $chunker in fastcdc | rabin | fixed) ;; *) echo "bench-store: unknown chunker $chunker" >&2; exit 2 ;; esac
done

# Always also "entries": 20,000 files of 100 bytes in 200 directories. Its
# per-file overhead is the cost of an entry alone (walk, open, read, close,
# recipe, index), since per-byte work (copies into containers, container
# checksums and writes, the fingerprint index's puts) is nil there; on the
# other trees the figure holds both.
[ "$BACKUP_ONLY" = 1 ] || "$PYTHON" - "$WORK/entries" <<'PY'
import os, random, sys
rng = random.Random(42)
for d in range(200):
    os.makedirs(os.path.join(sys.argv[1], "d%03d" % d))
    for f in range(100):
        with open(os.path.join(sys.argv[1], "d%03d" % d, "f%03d.c" % f), "wb") as out:
            out.write(rng.randbytes(100))
PY
[ "$BACKUP_ONLY" = 1 ] || DATASETS="$DATASETS entries=$WORK/entries"

printf 'working-directory "%s/working"\n' "$WORK" > "$WORK/destor.config"   # not ./destor.config

# Single-core hash speeds, 8 KiB blocks (the average chunk), bytes/second.
speed() { openssl speed -seconds 3 -evp "$1" 2>/dev/null | awk -v a="$1" '$1 == a { v = $(NF-1) } END { sub(/k$/, "", v); print v * 1000 }'; }
sha1=$(speed sha1)
sha256=$(speed sha256)
# On a shared machine the limit moves with the load: SHA-1 is measured
# again in every round, between the backups, and its median is the limit.
echo "$sha1" > "$WORK/sha1s"

# The disk's write speed, the other limit of a first job (issue 42): every
# stored byte goes to the pool with O_DIRECT and is fsynced before the job
# is committed, so no backup storing B bytes takes less than B over this
# speed. DISK_MB (default 1024) MiB of incompressible bytes, held in the
# page cache, written with dd oflag=direct conv=fsync into the file system
# of the stores, once a round like SHA-1; its median is the limit.
DISK_MB=${DISK_MB:-1024}
disk_speed() {
    s=$(date +%s.%N)
    dd if="$WORK/disk.src" of="$WORK/disk.dst" bs=4M oflag=direct conv=fsync 2>/dev/null
    e=$(date +%s.%N)
    rm -f "$WORK/disk.dst"
    awk -v s="$s" -v e="$e" -v b=$((DISK_MB * 1048576)) 'BEGIN { print b / (e - s) }'
}
openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv 0 -in /dev/zero 2>/dev/null |
    head -c $((DISK_MB * 1048576)) > "$WORK/disk.src"
disk_speed > "$WORK/disks"


# KiB read from block devices so far, the whole machine's (/proc/vmstat;
# 0 where there is none).
disk_read_kib() {
    awk '$1 == "pgpgin" { v = $2 } END { print v + 0 }' /proc/vmstat 2>/dev/null || echo 0
}

# backup_timed BIN CHUNKER DATA RESULT [OPTION]: one backup into the store as it is;
# RESULT gets "wall cpu rss_kib disk_read_kib digest" (the store's file
# digest: sha256 for a binary before file-digest) and RESULT.out the
# backup's summary.
backup_timed() {
    disk0=$(disk_read_kib)
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S %M' -o "$4.time" "$1" -c "$WORK/destor.config" \
        -p"chunk-algorithm $2" backup ${5:-} "$3" > "$4.out" || [ $? -eq 1 ]   # 1: entries skipped
    end=$(date +%s.%N)
    disk1=$(disk_read_kib)
    digest=$("$1" -c "$WORK/destor.config" stat --json |
        "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin).get("file_digest", "sha256"))')
    awk -v s="$start" -v e="$end" -v d=$((disk1 - disk0)) -v g="$digest" '{ print e - s, $1 + $2, $3, d, g }' \
        "$4.time" > "$4"
}

# record NAME CHUNKER TAG BYTES RESULT: a line of $WORK/results.
record() {
    entries=$(awk '/^  entries/ { print $2 + $4 + $6 }' "$5.out")
    # CPU of cutting and fingerprinting chunks: the workers' own figure, or
    # (a binary without workers) its chunk and hash stages.
    cut=$(awk '/^  chunk and hash/ { print $4 }' "$5.out")
    [ -n "$cut" ] || cut=$(sed -n 's/.*stage CPU time *//p' "$5.out" | tr -d ',;' |
        awk '{ for (i = 1; i < NF; i += 3) if ($i == "chunk" || $i == "hash") s += $(i + 1) } END { print s + 0 }')
    commit=$(sed -n 's/.*; commit \([0-9.]*\) s$/\1/p' "$5.out")
    unread=$(awk '/^  files cache/ && $4 == "files," { print $3 }' "$5.out")
    stored=$(awk '/^  stored bytes/ { print $3 }' "$5.out")
    echo "$1 $2 $3 $4 $entries $(cat "$5") $cut ${commit:-0} ${unread:-0} ${stored:-0}" >> "$WORK/results"
}

: > "$WORK/results"
for ds in $DATASETS; do
    name=${ds%%=*}
    data=${ds#*=}
    bytes=$(find "$data" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    for chunker in $CHUNKERS; do
        i=0
        while [ $i -lt "$REPEAT" ]; do
            [ $i -eq 0 ] || { speed sha1 >> "$WORK/sha1s"; disk_speed >> "$WORK/disks"; }
            for bin in "$DESTOR" $DESTOR_B; do
                tag=A; [ "$bin" = "$DESTOR" ] || tag=B
                r="$WORK/r.$name.$chunker.$tag.$i"
                # A new store; the last one's removal is flushed first: else
                # the backup's first fsync waits for the file system to
                # commit freeing a GiB (50 to 80 ms here).
                rm -rf "$WORK/working"
                sync
                warm "$data"
                backup_timed "$bin" "$chunker" "$data" "$r"
                record "$name" "$chunker" "$tag" "$bytes" "$r"
                # fastcdc: the same tree again, a store's later job, where
                # every chunk is looked up (in the Berkeley DB too) and found.
                if [ "$chunker" = fastcdc ]; then
                    warm "$data"
                    backup_timed "$bin" "$chunker" "$data" "$r.again"
                    record "$name" "fastcdc/again" "$tag" "$bytes" "$r.again"
                    if "$bin" backup --help | grep -q -e --no-files-cache; then
                        warm "$data"
                        backup_timed "$bin" "$chunker" "$data" "$r.read" --no-files-cache
                        record "$name" "fastcdc/again-read" "$tag" "$bytes" "$r.read"
                    fi
                fi
            done
            i=$((i + 1))
        done
    done
done

if [ "$BACKUP_ONLY" != 1 ]; then
# elapsed CMD...: the seconds CMD takes, its output discarded.
elapsed() {
    s=$(date +%s.%N)
    "$@" > /dev/null
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
}

# Restore beside `cp -r` of the same tree, on the first dataset's store
# (fastcdc, binary A), alternated REPEAT times, each with the store and the
# tree read into the page cache just before and the last target's removal
# flushed (neither fsyncs its files). $WORK/restores: "restore cp" seconds.
first=${DATASETS%% *}
rm -rf "$WORK/working"
"$DESTOR" -c "$WORK/destor.config" -p"chunk-algorithm fastcdc" backup "${first#*=}" > /dev/null
: > "$WORK/restores"
i=0
while [ $i -lt "$REPEAT" ]; do
    rm -rf "$WORK/restored" "$WORK/copied"
    sync
    warm "$WORK/working"
    warm "${first#*=}"
    r=$(elapsed /usr/bin/time -f '%M' -o "$WORK/rss.restore.$i" "$DESTOR" -c "$WORK/destor.config" restore 0 \
        "$WORK/restored")
    rm -rf "$WORK/restored"
    sync
    warm "${first#*=}"
    c=$(elapsed cp -r "${first#*=}" "$WORK/copied")
    echo "$r $c" >> "$WORK/restores"
    i=$((i + 1))
done
rm -rf "$WORK/copied"
cat "$WORK"/rss.restore.* | sort -n | tail -1 > "$WORK/rss.restore"

read_big

"$DESTOR" -c "$WORK/destor.config" list 0 --null |
    PYTHONPATH="$TOP/scripts" "$PYTHON" -B -m destor_tools.uniform_trace 500 > "$WORK/trace"
"$DESTOR" -c "$WORK/destor.config" read-file --trace "$WORK/trace" --json > "$WORK/trace.json"
fi

"$PYTHON" - "$sha1" "$sha256" "$WORK" "$REPEAT" "$(nproc)" "$(load)" <<'PY'
import json, os, statistics, sys
sha1, sha256 = (float(x) for x in sys.argv[1:3])
work, repeat, cores = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
sha1s = [float(x) for x in open(work + "/sha1s").read().split()]
sha1 = statistics.median(sha1s)
goals = {("small", "fastcdc"): 0.35, ("small", "rabin"): 0.20, ("large", "fastcdc"): 0.80,
         ("small", "fastcdc/again"): 0.35, ("large", "fastcdc/again"): 0.50,
         ("source", "fastcdc"): 0.50, ("source", "fastcdc/again"): 1.0}
rows = {}
for line in open(work + "/results"):
    f = line.split()
    name, chunker, tag, size, entries, wall, cpu, rss, disk, digest, chunk_hash, commit, unread, stored = f
    chunk_hash = float(chunk_hash)
    digest_cpu = float(size) / sha256 if digest == "sha256" else 0.0
    overhead = (float(cpu) - chunk_hash - digest_cpu) / max(1, int(entries))
    rows.setdefault((name, chunker, tag), []).append(
        (float(size) / float(wall), float(cpu), overhead, int(rss), float(size), int(entries), int(disk), digest,
         float(commit), int(unread), int(stored)))
print("SHA-1, one core          %.1f MB/s (openssl speed, 8 KiB blocks; median of %d, one a round: %s); SHA-256 "
      "%.1f MB/s" % (sha1 / 1e6, len(sha1s), " ".join("%.0f" % (x / 1e6) for x in sha1s), sha256 / 1e6))
dd_speeds = [float(x) for x in open(work + "/disks").read().split()]
dd_speed = statistics.median(dd_speeds)
print("disk writes, O_DIRECT    %.1f MB/s (dd oflag=direct conv=fsync of %d MiB into the stores' file system; median "
      "of %d, one a round: %s)" % (dd_speed / 1e6, os.path.getsize(work + "/disk.src") >> 20, len(dd_speeds),
                                   " ".join("%.0f" % (x / 1e6) for x in dd_speeds)))
print("medians of %d runs%s" % (repeat, "; A and B alternated" if any(k[2] == "B" for k in rows) else ""))
for (name, chunker, tag), runs in rows.items():
    med = lambda i: statistics.median(r[i] for r in runs)
    goal = goals.get((name, chunker))
    cpu_bound = runs[0][4] / (med(1) / cores)
    print("%-7s %-13s %s: %d entries, %.1f MB, file digest %s; backup %.1f MB/s = %.2f of SHA-1%s (runs %s); "
          "CPU %.2f s (%.2f cores busy), so %.2f of SHA-1 with all %d cores ours; commit %.3f s of %.3f s wall; per-file overhead "
          "%.1f us%s; peak RSS %.1f MiB; read from disk meanwhile %.1f MiB (median; the machine's)%s" % (
              name, chunker, tag, runs[0][5], runs[0][4] / 1e6, runs[0][7], med(0) / 1e6, med(0) / sha1,
              " (goal >= %.2f)" % goal if goal else "",
              " ".join("%.2f" % (r[0] / sha1) for r in runs), med(1), med(1) * med(0) / runs[0][4], cpu_bound / sha1, cores,
              med(8),
              runs[0][4] / med(0), med(2) * 1e6, " (goal <= 15)", max(r[3] for r in runs) / 1024, med(6) / 1024,
              "; files cache: %d files unread" % runs[0][9] if runs[0][9] else ""))
    stored = statistics.median(r[10] for r in runs)
    if stored:
        # The disk's floor: the stored bytes at dd's speed; what is left is
        # the part of the wall time the disk does not explain.
        floor = stored / dd_speed
        limit = min(sha1, runs[0][4] / floor)
        print("        %.1f MB stored: at least %.3f s at the disk's speed, so the limit is %.1f MB/s (%s); backup "
              "%.2f of it" % (stored / 1e6, floor, limit / 1e6, "the disk" if limit < sha1 else "SHA-1",
                              med(0) / limit))
if not os.path.exists(work + "/restores"):  # BACKUP_ONLY
    print("load average at the end: %s" % sys.argv[6])
    sys.exit(0)
size = next(iter(rows.values()))[0][4]
trace = json.load(open(work + "/trace.json"))
rss = int(open(work + "/rss.restore").read().split()[-1])
pairs = [[float(x) for x in line.split()] for line in open(work + "/restores")]
restore, copy = (size / statistics.median(p[k] for p in pairs) for k in (0, 1))
print("restore (first dataset)  %.1f MB/s = %.2f of SHA-1; cp -r of the same tree %.1f MB/s; restore/cp -r %.2f "
      "(goal >= 1; runs %s); peak RSS %.1f MiB" % (
          restore / 1e6, restore / sha1, copy / 1e6, restore / copy,
          " ".join("%.2f" % (p[1] / p[0]) for p in pairs), rss / 1024))
print("read-file p50 latency    %.0f us over %d requests (p99 %.0f us)" % (
    1e3 * trace["latency_ms"]["p50"], trace["requests"], 1e3 * trace["latency_ms"]["p99"]))
PY
[ "$BACKUP_ONLY" = 1 ] || report_big
