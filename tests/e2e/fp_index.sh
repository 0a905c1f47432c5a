#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fp_index.sh: the fingerprint index designs end to end. Each design
# (exact, near-exact physical with each sampling method, silo) backs up versions that
# restore byte for byte and verify --deep; a store switches design between
# jobs; a near-exact backup that misses duplicates stores them again, says
# how many, and delete, gc, verify and repair accept the two copies; a
# sample table that lies (every sample pointed at another container, forged
# samples for fingerprints one byte off, and the same for silo's segment
# table) never makes a chunk a duplicate; silo restores with each of
# Destor's segment algorithms and selections; bad values of each key exit 2.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-size 128K\n' >> "$CONFIG"
gen_data "$SCRATCH/data" --preset tiny --versions 3 --seed 26
NEAR="fingerprint-index near-exact physical"

on() { w=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$w" "$@"; }
index_field() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["index"][sys.argv[2]])' "$1" "$2"; }
restores_all() { # store, then the source of each job in order
    w=$1; shift
    job=0
    for src in "$@"; do
        rm -rf "$SCRATCH/r"
        on "$w" restore "$job" "$SCRATCH/r" >/dev/null
        same_tree "$src" "$SCRATCH/r"
        job=$((job + 1))
    done
    on "$w" verify --deep >/dev/null || fail "$w: verify --deep"
}

# Bad values of each key: exit 2, nothing stored.
for line in 'fingerprint-index exact' 'fingerprint-index near-exact virtual' 'fingerprint-index exact physical silo' \
    'fingerprint-index near-exact logical ddfs' 'fingerprint-index-sampling-method often' \
    'fingerprint-index-sampling-method uniform 0' 'fingerprint-index-sampling-method min 8 8' \
    'fingerprint-index-cache-size 0' 'fingerprint-index-cache-size -3' 'fingerprint-index-cache-size' \
    'fingerprint-index-segment-algorithm fixed 0' 'fingerprint-index-segment-algorithm rolling' \
    'fingerprint-index-segment-algorithm file-defined 8' 'fingerprint-index-segment-algorithm content-defined 8K' \
    'fingerprint-index-segment-algorithm fixed 100001' 'fingerprint-index-segment-boundary 10 5' \
    'fingerprint-index-segment-boundary 0 0' 'fingerprint-index-segment-boundary 128' \
    'fingerprint-index-segment-selection latest' 'fingerprint-index-segment-selection top 0' \
    'fingerprint-index-segment-selection base 2' 'fingerprint-index-segment-prefetching -1' \
    'fingerprint-index-segment-prefetching 4097' 'fingerprint-index-segment-prefetching'; do
    expect_status 2 on bad -p"$line" backup "$SCRATCH/data/v1"
    [ ! -e "$SCRATCH/bad/store.meta" ] || fail "'$line' made a store"
done

# Each design: three versions restore and verify; the report names it.
V="$SCRATCH/data/v1 $SCRATCH/data/v2 $SCRATCH/data/v3"
on exact backup --json "$SCRATCH/data/v1" > "$SCRATCH/j"
[ "$(index_field "$SCRATCH/j" kind)" = "exact physical" ] || fail "exact: report names another index"
for v in v2 v3; do on exact backup --json "$SCRATCH/data/$v" > "$SCRATCH/j"; done
[ "$(index_field "$SCRATCH/j" missed_duplicates)" -eq 0 ] || fail "exact index missed a duplicate"
[ "$(index_field "$SCRATCH/j" db_reads)" -gt 0 ] || fail "exact: no DB reads on a later version"
exact_stored=$(json_field "$SCRATCH/j" stored_bytes)
restores_all exact $V
SILO="fingerprint-index near-exact logical silo"
for m in uniform random min optmin silo; do
    design=$NEAR
    kind="near-exact physical"
    [ "$m" = silo ] && { design=$SILO; kind="near-exact logical silo"; m=min; }
    for v in v1 v2 v3; do
        on "near-$m-${kind##* }" -p"$design" -p"fingerprint-index-sampling-method $m 4" -p"fingerprint-index-cache-size 4" \
            backup --json "$SCRATCH/data/$v" > "$SCRATCH/j"
    done
    [ "$(index_field "$SCRATCH/j" kind)" = "$kind" ] || fail "$m: report names another index"
    [ "$(index_field "$SCRATCH/j" sampling)" = "$m" ] || fail "$m: report names another sampling method"
    [ "$(index_field "$SCRATCH/j" prefetches)" -gt 0 ] || fail "$m: no container prefetched on a later version"
    [ "$(index_field "$SCRATCH/j" db_reads)" -eq 0 ] || fail "$m: a near-exact lookup read the DB"
    [ "$(index_field "$SCRATCH/j" ram_bytes)" -gt 0 ] || fail "$m: no RAM reported"
    restores_all "near-$m-${kind##* }" $V
    note "$kind $m 4: v3 stored $(json_field "$SCRATCH/j" stored_bytes) bytes (exact: $exact_stored), $(index_field "$SCRATCH/j" missed_duplicates) duplicates missed"
done

# Silo with each segment algorithm and each selection (Destor's segment
# keys, segments small enough to cut the tiny versions many times): every
# version restores byte for byte and verifies deep, and the report names
# the segmenting.
for alg in 'fixed 16' 'content-defined 8' file-defined; do
    for sel in base 'top 2' mix; do
        w="seg-${alg%% *}-${sel%% *}"
        for v in v1 v2 v3; do
            on "$w" -p"$SILO" -p"fingerprint-index-segment-algorithm $alg" -p"fingerprint-index-segment-boundary 4 64" \
                -p"fingerprint-index-segment-selection $sel" -p"fingerprint-index-segment-prefetching 2" \
                -p"fingerprint-index-cache-size 4" backup --json "$SCRATCH/data/$v" > "$SCRATCH/j"
        done
        [ "$(index_field "$SCRATCH/j" segment_algorithm)" = "${alg%% *}" ] || fail "$w: report names another segmenting"
        [ "$(index_field "$SCRATCH/j" segment_selection)" = "${sel%% *}" ] || fail "$w: report names another selection"
        [ "$(index_field "$SCRATCH/j" prefetches)" -gt 0 ] || fail "$w: no container prefetched on a later version"
        restores_all "$w" $V
        note "silo $alg, $sel: v3 stored $(json_field "$SCRATCH/j" stored_bytes) bytes (exact: $exact_stored), $(index_field "$SCRATCH/j" missed_duplicates) duplicates missed"
    done
done

# Switching design between jobs of one store (the index is derived data;
# the samples are rebuilt from the containers when another design wrote last).
on switch backup "$SCRATCH/data/v1" >/dev/null
on switch -p"$NEAR" backup "$SCRATCH/data/v2" >/dev/null
[ -f "$SCRATCH/switch/index/samples" ] || fail "near-exact saved no samples"
on switch -p"$SILO" backup "$SCRATCH/data/v2" >/dev/null
[ -f "$SCRATCH/switch/index/segments" ] || fail "silo saved no segments"
on switch backup "$SCRATCH/data/v3" >/dev/null
[ ! -e "$SCRATCH/switch/index/samples" ] || fail "an exact job left the near-exact samples stale"
[ ! -e "$SCRATCH/switch/index/segments" ] || fail "an exact job left the silo segments stale"
on switch -p"$NEAR" -p"fingerprint-index-sampling-method min 2" backup --json "$SCRATCH/data/v3" > "$SCRATCH/j"
# v3 is stored whole: whatever it stores again is a missed duplicate, and counted
[ "$(json_field "$SCRATCH/j" new_chunks)" -eq "$(index_field "$SCRATCH/j" missed_duplicates)" ] ||
    fail "switch: new chunks of a stored version not all counted as missed duplicates"
[ "$(index_field "$SCRATCH/j" prefetches)" -gt 0 ] || fail "switch: the samples were not rebuilt"
on switch -p"$SILO" backup --json "$SCRATCH/data/v3" > "$SCRATCH/j"
[ "$(json_field "$SCRATCH/j" new_chunks)" -eq "$(index_field "$SCRATCH/j" missed_duplicates)" ] ||
    fail "switch: silo's new chunks of a stored version not all counted as missed duplicates"
restores_all switch "$SCRATCH/data/v1" "$SCRATCH/data/v2" "$SCRATCH/data/v2" "$SCRATCH/data/v3" "$SCRATCH/data/v3" \
    "$SCRATCH/data/v3"

# Missed duplicates: one sample per container and a one-container cache
# miss most of a repeated file. Two copies of a fingerprint then exist;
# deleting the job that holds the newer ones and gc must leave an index
# naming the older copies (verify checks it), and repair accepts both.
mkdir -p "$SCRATCH/a" "$SCRATCH/b"
pseudo_random 1500000 7 > "$SCRATCH/a/x.bin"
pseudo_random 1500000 7 > "$SCRATCH/b/x.bin"
pseudo_random 300000 8 > "$SCRATCH/b/y.bin"
on dup backup "$SCRATCH/a" >/dev/null
on dup -p"$NEAR" -p"fingerprint-index-sampling-method random 65536" -p"fingerprint-index-cache-size 1" \
    backup --json "$SCRATCH/b" > "$SCRATCH/j"
missed=$(index_field "$SCRATCH/j" missed_duplicates)
[ "$missed" -gt 0 ] || fail "dup: nothing missed with one sample per container and a one-container cache"
on dup verify --deep >/dev/null || fail "dup: verify --deep with two copies"
restores_all dup "$SCRATCH/a" "$SCRATCH/b"
on dup repair >/dev/null
on dup verify --deep >/dev/null || fail "dup: verify --deep after repair"
on dup delete 1 >/dev/null
on dup gc >/dev/null 2>&1
on dup verify --deep >/dev/null || fail "dup: verify --deep after gc freed the newer copies"
restores_all dup "$SCRATCH/a"
on dup backup --json "$SCRATCH/b" > "$SCRATCH/j"  # exact: finds the older copies again
[ "$(json_field "$SCRATCH/j" new_chunks)" -lt "$missed" ] || fail "dup: the index lost the older copies"
note "dup: $missed duplicates missed and stored again; verify, repair, delete and gc accepted both copies"

# A lying sample table: every sample pointed at the next container, and a
# forged sample one byte off each real one pointing at its real container.
on liar -p"$NEAR" -p"fingerprint-index-sampling-method uniform 2" backup "$SCRATCH/data/v1" >/dev/null
"$PYTHON" - "$SCRATCH/liar/index/samples" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = open(path, "rb").read()
head, body = data[:32], data[32:-4]
assert head[:8] == b"DPLCSMP1" and zlib.crc32(data[:-4]) == struct.unpack("<I", data[-4:])[0]
fp_len, containers = struct.unpack("<II", head[16:24])
entries = [body[i:i + fp_len + 4] for i in range(0, len(body), fp_len + 4)]
out = []
for e in entries:
    fp, c = e[:fp_len], struct.unpack("<I", e[fp_len:])[0]
    out.append(fp + struct.pack("<I", (c + 1) % containers))
    off = bytes([fp[0] ^ 1]) + fp[1:]
    out.append(off + struct.pack("<I", c))
    off = fp[:-1] + bytes([fp[-1] ^ 1])
    out.append(off + struct.pack("<I", c))
new = head[:24] + struct.pack("<Q", len(out)) + b"".join(out)
open(path, "wb").write(new + struct.pack("<I", zlib.crc32(new)))
PY
on liar -p"$NEAR" -p"fingerprint-index-sampling-method uniform 2" backup --json "$SCRATCH/data/v2" > "$SCRATCH/j"
[ "$(index_field "$SCRATCH/j" prefetches)" -gt 0 ] || fail "liar: the forged samples were not followed"
restores_all liar "$SCRATCH/data/v1" "$SCRATCH/data/v2"
note "liar: a forged sample table was followed ($(index_field "$SCRATCH/j" prefetches) prefetches) and made no false duplicate"

# The same for the silo design's segments: every segment pointed at other
# containers, every feature one byte off its real one.
on liar2 -p"$SILO" -p"fingerprint-index-sampling-method min 2" backup "$SCRATCH/data/v1" >/dev/null
"$PYTHON" - "$SCRATCH/liar2/index/segments" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = open(path, "rb").read()
assert data[:8] == b"DPLCSEG1" and zlib.crc32(data[:-4]) == struct.unpack("<I", data[-4:])[0]
fp_len, containers = struct.unpack("<II", data[16:24])
p = 24
nseg = struct.unpack("<Q", data[p:p + 8])[0]
p += 8
segs = []
for _ in range(nseg):
    n = struct.unpack("<I", data[p:p + 4])[0]
    ids = list(struct.unpack("<%dI" % n, data[p + 4:p + 4 + 4 * n]))
    p += 4 + 4 * n
    segs.append([(c + 1) % containers for c in ids])
nfeat = struct.unpack("<Q", data[p:p + 8])[0]
p += 8
feats = []
for _ in range(nfeat):
    fp, s = data[p:p + fp_len], struct.unpack("<I", data[p + fp_len:p + fp_len + 4])[0]
    p += fp_len + 4
    feats += [(fp, s), (bytes([fp[0] ^ 1]) + fp[1:], s), (fp[:-1] + bytes([fp[-1] ^ 1]), s)]
out = data[:24] + struct.pack("<Q", len(segs))
for ids in segs:
    out += struct.pack("<I", len(ids)) + b"".join(struct.pack("<I", c) for c in ids)
out += struct.pack("<Q", len(feats)) + b"".join(fp + struct.pack("<I", s) for fp, s in feats)
open(path, "wb").write(out + struct.pack("<I", zlib.crc32(out)))
PY
on liar2 -p"$SILO" -p"fingerprint-index-sampling-method min 2" backup --json "$SCRATCH/data/v2" > "$SCRATCH/j"
[ "$(index_field "$SCRATCH/j" prefetches)" -gt 0 ] || fail "liar2: the forged segments were not followed"
restores_all liar2 "$SCRATCH/data/v1" "$SCRATCH/data/v2"
note "liar2: a forged segment table was followed ($(index_field "$SCRATCH/j" prefetches) prefetches) and made no false duplicate"
