#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cache_rollback.sh: a store put back from a copy (as README says for
# damaged primary data) and backed up once more reuses container ids for new
# data, while a persistent SSD cache still holds the old containers under the
# same store identity (issue 28 item 5). Every cached read of the new job
# (read-file, a trace, restore) must serve the new job's real bytes, exit 0:
# the cache recognises the rolled-back history at open (one warning), and a
# cache.meta too old to record it (version 4) is caught on the hit instead.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-size 128K\nssd-cache-policy lru\nssd-cache-directory "%s/cache"\nssd-cache-size 100%%\n' \
    "$SCRATCH" >> "$CONFIG"
W="$SCRATCH/working"
mkdir -p "$SCRATCH/d1" "$SCRATCH/d2" "$SCRATCH/d3"
pseudo_random 1048576 11 > "$SCRATCH/d1/a"
pseudo_random 1048576 12 > "$SCRATCH/d2/f"
pseudo_random 1048576 13 > "$SCRATCH/d3/f"

dst backup "$SCRATCH/d1" >/dev/null                 # job 0
cp -a "$W" "$SCRATCH/working.copy"                  # the copy set aside
dst backup "$SCRATCH/d2" >/dev/null                 # job 1, first history
dst read-file 1 f -o "$SCRATCH/out" 2>/dev/null     # the cache takes job 1's containers
cmp "$SCRATCH/d2/f" "$SCRATCH/out" || fail "first history read wrong bytes"
rm -rf "$W"
cp -a "$SCRATCH/working.copy" "$W"                  # put back from the copy
dst backup "$SCRATCH/d3" >/dev/null                 # job 1 again: the same container ids, new data
cp -a "$SCRATCH/cache" "$SCRATCH/stale-cache"

# stale_cache: the cache directory as the first history left it.
stale_cache() { rm -rf "$SCRATCH/cache"; cp -a "$SCRATCH/stale-cache" "$SCRATCH/cache"; }
# cache_stat JSON KEY: a counter of a trace summary's cache report.
cache_stat() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"][sys.argv[2]])' "$1" "$2"; }
one_warning() {
    [ "$(grep -c '^destor: warning: .*rolled back' "$1")" -eq 1 ] || { cat "$1" >&2; fail "$2: no single warning about the rolled-back store"; }
    grep -v '^destor: ' "$1" | grep . && fail "$2: stderr holds a line that is not a destor: line"
    return 0
}

stale_cache
dst read-file 1 f -o "$SCRATCH/out" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "read-file after the rollback failed"; }
cmp "$SCRATCH/d3/f" "$SCRATCH/out" || fail "read-file after the rollback: wrong bytes"
one_warning "$SCRATCH/err" read-file
dst read-file 1 f -o "$SCRATCH/out" 2>"$SCRATCH/err" || fail "second read-file failed"
cmp "$SCRATCH/d3/f" "$SCRATCH/out" || fail "second read-file: wrong bytes"
grep . "$SCRATCH/err" && fail "the second read warned again"
note "read-file serves the new job after the rollback"

stale_cache
dst restore 1 "$SCRATCH/restored" >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "restore after the rollback failed"; }
cmp "$SCRATCH/d3/f" "$SCRATCH/restored/f" || fail "restore after the rollback: wrong bytes"
one_warning "$SCRATCH/err" restore
note "restore serves the new job after the rollback"

stale_cache
printf '1\tf\n0\ta\n1\tf\n' > "$SCRATCH/trace"
dst read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/t.json" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "trace after the rollback failed"; }
one_warning "$SCRATCH/err" trace
[ "$(cache_stat "$SCRATCH/t.json" ssd_stale_dropped)" -gt 0 ] || fail "the trace did not count the stale copies"
note "a trace with --verify serves the new job after the rollback"

# A cache.meta written before the store's history was recorded in it
# (version 4): nothing to tell at open, so the stale copies are hits until a
# recipe's chunk check fails on their bytes; then each is dropped, read from
# the store and counted.
# as_version_4: rewrite cache.meta (version 6: a 104-byte header, 28-byte
# entries) as version 4 wrote it (88 bytes, 24-byte entries; docs/FORMAT.md).
as_version_4() {
    "$PYTHON" - "$SCRATCH/cache/cache.meta" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
m = open(p, "rb").read()
assert m[:8] == b"DPLCSSD1" and struct.unpack_from("<I", m, 8)[0] == 6
n = struct.unpack_from("<I", m, 28)[0]
entries = b"".join(m[104 + 28 * i:104 + 28 * i + 24] for i in range(n))
v4 = bytearray(m[:88] + entries + m[104 + 28 * n:-4])
struct.pack_into("<I", v4, 8, 4)
v4 += struct.pack("<I", zlib.crc32(bytes(v4)))
open(p, "wb").write(bytes(v4))
PY
}
stale_cache
as_version_4
dst read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/t4.json" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "trace over a version-4 cache.meta failed"; }
grep -q 'rolled back' "$SCRATCH/err" && fail "a version-4 cache.meta cannot tell a rollback"
# job 1 has 9 containers (ids 9-17), all cached by the first history
[ "$(cache_stat "$SCRATCH/t4.json" ssd_stale_dropped)" -eq 9 ] || { cat "$SCRATCH/t4.json" >&2; fail "not every stale copy was dropped on its hit"; }
dst read-file 1 f -o "$SCRATCH/out" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "read-file after the stale hits failed"; }
cmp "$SCRATCH/d3/f" "$SCRATCH/out" || fail "read-file after the stale hits: wrong bytes"
stale_cache
as_version_4
rm -rf "$SCRATCH/restored"
dst restore 1 "$SCRATCH/restored" >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "restore over a version-4 cache.meta failed"; }
cmp "$SCRATCH/d3/f" "$SCRATCH/restored/f" || fail "restore over stale hits: wrong bytes"
note "stale copies a version-4 cache.meta still lists are dropped at their hit"

# A stale copy is only ever replaced by the store's: damage the store's own
# container and the read is an integrity error (exit 3), not old bytes.
stale_cache
flip_container_byte "$W" 9 131072 1000   # container 9: job 1's second container in both histories
expect_status 3 dst read-file 1 f -o "$SCRATCH/out"
note "damage in the store's own copy is still exit 3"
