#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# chunk_cache_batch.sh: a request's cached chunks are read from the chunk
# log together (chunk_cache_read_ahead, the log's reader threads); one
# damaged chunk inside such a batch is a miss, refetched from the store
# and counted, while the others are hits, and the bytes served are the
# file's (whole-file --verify, and cmp of read-file and of a 64 KiB range
# against the original); the refetched chunk is cached again. A trace
# replay reads the next lines early to announce their chunks, and still
# reports a bad line at its own turn.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

gen_data "$SCRATCH/data" --preset tiny --versions 1 --seed 33
printf 'container-size 128K\n' >> "$CONFIG"
dst backup "$SCRATCH/data/v1" >/dev/null
# the largest file: its chunks fill several 64 KiB segments
path=$(dst list 0 | awk -F'\t' '$1 == "f"' | sort -t"$(printf '\t')" -k2,2n | tail -1 | cut -f3)
[ -n "$path" ] || fail "no file in job 0"
orig="$SCRATCH/data/v1/$path"
[ "$(wc -c < "$orig")" -gt 262144 ] || fail "the largest file ($path) is too small to span segments"
printf '0\t%s\n' "$path" > "$SCRATCH/trace"
CACHE="$SCRATCH/ssd"
real() { dst -p"ssd-cache-granularity chunk" -p"ssd-cache-directory $CACHE" -p"ssd-cache-segment-size 64K" \
    -p"ssd-cache-policy lru" -p"ssd-cache-size 100%" "$@"; }
counts() { "$PYTHON" -c '
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
print(c["accesses"], c["hits"], c["misses"], c["damaged"])' "$1"; }

# Cold: every chunk a miss, admitted; warm: every chunk a hit.
real read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/cold.json"
set -- $(counts "$SCRATCH/cold.json")
n=$1
[ "$n" -ge 8 ] && [ "$2" -eq 0 ] && [ "$3" -eq "$n" ] || fail "cold read: accesses/hits/misses $*"
real read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/warm.json"
set -- $(counts "$SCRATCH/warm.json")
[ "$1" -eq "$n" ] && [ "$2" -eq "$n" ] && [ "$4" -eq 0 ] || fail "warm read: accesses/hits/misses/damaged $*"

# Flip one byte of the first chunk of the log's second segment (its data
# start right after the 64-byte header; the CRC covers header and table
# only, so the segment stays usable and only that chunk is damaged).
flip_log_byte() {
    "$PYTHON" - "$CACHE/chunks.log" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    at = 65536 + 64 + 1
    f.seek(at)
    b = f.read(1)
    f.seek(at)
    f.write(bytes([b[0] ^ 0x5A]))
PY
}
flip_log_byte
real read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/damaged.json" 2> "$SCRATCH/damaged.err"
set -- $(counts "$SCRATCH/damaged.json")
[ "$1" -eq "$n" ] && [ "$2" -eq $((n - 1)) ] && [ "$3" -eq 1 ] && [ "$4" -eq 1 ] ||
    fail "one damaged chunk in the batch: accesses/hits/misses/damaged $* (expected $n $((n - 1)) 1 1)"
grep -q "^destor: warning: SSD chunk cache: .*damaged" "$SCRATCH/damaged.err" || fail "no warning about the damaged chunk"
# refetched and cached again: every chunk a hit, none damaged
real read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/again.json"
set -- $(counts "$SCRATCH/again.json")
[ "$2" -eq "$n" ] && [ "$4" -eq 0 ] || fail "after the refetch: accesses/hits/misses/damaged $*"

# The bytes themselves, through read-file (a whole file, and the 64 KiB
# range from byte 64 Ki, which holds the first chunk of the second
# segment), each from a fresh cache with that chunk damaged.
for what in whole range; do
    rm -rf "$CACHE"
    real read-file --trace "$SCRATCH/trace" >/dev/null
    flip_log_byte
    if [ "$what" = whole ]; then
        real read-file 0 "$path" -o "$SCRATCH/out" 2> "$SCRATCH/$what.err"
        cp "$orig" "$SCRATCH/expected"
    else
        real read-file 0 "$path" --offset 65536 --length 65536 -o "$SCRATCH/out" 2> "$SCRATCH/$what.err"
        dd if="$orig" bs=65536 skip=1 count=1 status=none > "$SCRATCH/expected"
    fi
    cmp "$SCRATCH/out" "$SCRATCH/expected" || fail "read-file ($what) through a batch with a damaged chunk differs"
    grep -q "^destor: warning: SSD chunk cache: .*damaged" "$SCRATCH/$what.err" ||
        fail "read-file ($what) did not meet the damaged chunk"
done

# A trace's lines are read before their turn to announce their chunks; an
# unknown path or a bad line is still reported at its own turn, after the
# lines before it were served.
printf '0\t%s\n0\tno/such/file\n0\t%s\n' "$path" "$path" > "$SCRATCH/bad"
expect_status 2 real read-file --trace "$SCRATCH/bad"
grep -q "^destor: .*bad:2: " "$SCRATCH/err" || fail "the unknown path was not reported at line 2: $(cat "$SCRATCH/err")"
printf '0\t%s\n0\t%s\t12\n' "$path" "$path" > "$SCRATCH/bad"
expect_status 2 real read-file --trace "$SCRATCH/bad"
grep -q "^destor: .*bad:2: " "$SCRATCH/err" || fail "the bad line was not reported at line 2: $(cat "$SCRATCH/err")"

# A trace from a pipe is served as its lines come (no look-ahead), with
# the same counts as from the file.
real read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/file.json"
cat "$SCRATCH/trace" | real read-file --trace - --json > "$SCRATCH/pipe.json"
[ "$(counts "$SCRATCH/file.json")" = "$(counts "$SCRATCH/pipe.json")" ] || fail "a piped trace counted otherwise"
