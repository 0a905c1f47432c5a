#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_cache_o_direct.sh: SIGKILL a trace replay through a persistent SSD
# cache with ssd-cache-o-direct yes at its slot writes and reads, its
# fsyncs, its cache.meta writes and renames (strace's syscall injection, so
# the points are the same on any machine), for an admit-everything policy
# (lru) and PLC, and for lru with ssd-cache-compression lz4 (a compressed
# copy's padded write, then its header). The one cache directory lives
# through every kill (a change of compression empties it, said on stderr). After
# each kill the next replay through it succeeds with every file's SHA-256
# checked (--verify) and sane figures (hits + misses = accesses, never more
# cached than the capacity); every few kills a restore and a read-file -o
# through it give the original bytes. KILL_CACHE_POINTS=N kills at N points
# of each syscall instead of 3, KILL_CACHE_RUNS="POLICY:COMPRESSION ..."
# sweeps other policies and compressions (a longer sweep by hand). Skipped when
# strace cannot inject or no directory here supports O_DIRECT.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

strace_kill_setup
POINTS=${KILL_CACHE_POINTS:-3}

gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 41
printf 'container-size 128K\n' >> "$CONFIG"
dst backup "$SCRATCH/data/v1" >/dev/null
dst backup "$SCRATCH/data/v2" >/dev/null
# Whole files of both jobs (--verify checks whole files), the small ones
# more often so a 4-container cache gets hits and evictions.
for job in 0 1; do dst list $job --null > "$SCRATCH/list$job"; done
"$PYTHON" - "$SCRATCH/list0" "$SCRATCH/list1" > "$SCRATCH/trace" <<'PY'
import random, sys
reqs = []
for job, name in enumerate(sys.argv[1:3]):
    for rec in open(name, "rb").read().split(b"\0")[:-1]:
        kind, size, path = rec.split(b"\t", 2)
        if kind == b"f" and b"\n" not in path and b"\r" not in path:
            reqs.append((job, path, int(size)))
reqs.sort(key=lambda r: r[2])
rng = random.Random(5)
weights = [1.0 / (i + 1) ** 0.8 for i in range(len(reqs))]
for job, path, size in rng.choices(reqs, weights, k=150):
    sys.stdout.buffer.write(b"%d\t%s\n" % (job, path))
open(sys.argv[1] + ".big", "wb").write([p for j, p, s in reqs if j == 1][-1])
PY
big=$(cat "$SCRATCH/list0.big")

# The cache directory: in the scratch directory if its file system takes
# O_DIRECT, else in the build directory (a disk), else skip.
cached() { dst -p"ssd-cache-policy $policy" -p"ssd-cache-size 4" -p"ssd-cache-directory $CACHE" \
    -p"ssd-cache-o-direct yes" -p"ssd-cache-compression $comp" "$@"; }
policy=lru
comp=none
for base in "$SCRATCH" "${TOP_BUILDDIR:-$SCRATCH}"; do
    CACHE=$(mktemp -d "$base/odirect-cache.XXXXXX")
    if cached read-file --trace "$SCRATCH/trace" --json 2>/dev/null | grep -q '"cache":{'; then
        break
    fi
    rm -rf "$CACHE"
    CACHE=
done
[ -n "$CACHE" ] || { echo "# no directory here supports O_DIRECT"; exit 77; }
CACHE=$(cd "$CACHE" && pwd -P) # strace -P matches the path the kernel reports
case $CACHE in # outside the scratch directory: removed too, whatever the outcome
    "$SCRATCH"/*) ;;
    *) trap 'rc=$?; rm -rf "$CACHE"; [ $rc -eq 0 ] && rm -rf "$SCRATCH" || echo "scratch kept: $SCRATCH"; exit $rc' EXIT ;;
esac

# check WHAT: the replay after a kill, verified, with sane cache figures.
check() {
    set +e
    cached read-file --trace "$SCRATCH/trace" --verify --json > "$SCRATCH/after.json" 2>"$SCRATCH/err"
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "$policy: the replay after $1 exited $rc"; }
    "$PYTHON" - "$SCRATCH/after.json" > "$SCRATCH/compressed.now" <<'PY' || fail "$policy: insane cache figures after $1"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["cache"]
assert c is not None, "the replay ran without its cache"
assert j["requests"] == 150, j
assert c["accesses"] == j["container_accesses"], c
assert c["hits"] + c["misses"] == c["accesses"], c
assert 0 <= c["cached_containers"] <= c["capacity_containers"] == 4, c
assert c["ssd_read_errors"] == 0 and c["ssd_write_errors"] == 0, c
print(c["ssd_compressed_written"])
PY
    cat "$SCRATCH/compressed.now" >> "$SCRATCH/compressed-$comp"
}

kills=0
checked=0
RUNS=${KILL_CACHE_RUNS:-lru:none plc:none lru:lz4}
for run in $RUNS; do
    policy=${run%%:*}
    comp=${run#*:}
    for sc in pwrite64 pread64 fsync write rename; do
        # how often one replay makes SC on the cache's files, from a copy
        rm -rf "$SCRATCH/count"
        cp -a "$CACHE" "$SCRATCH/count"
        count=$(cd "$SCRATCH/count" && pwd -P)
        strace -f -qq -o "$SCRATCH/calls" -e trace="$sc" -P "$count/slots.dat" \
            -P "$count/cache.meta" -P "$count/cache.meta.tmp" \
            "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-policy $policy" -p"ssd-cache-size 4" \
            -p"ssd-cache-directory $count" -p"ssd-cache-o-direct yes" -p"ssd-cache-compression $comp" \
            read-file --trace "$SCRATCH/trace" >/dev/null
        n=$(grep -c "$sc(" "$SCRATCH/calls" || true)
        [ "$n" -gt 0 ] || continue
        p=1
        while [ "$p" -le "$POINTS" ]; do
            i=$(( (n * p + POINTS) / (POINTS + 1) ))
            [ "$i" -ge 1 ] || i=1
            p=$((p + 1))
            set +e
            strace -f -qq -o /dev/null -e trace="$sc" -P "$CACHE/slots.dat" \
                -P "$CACHE/cache.meta" -P "$CACHE/cache.meta.tmp" -e inject="$sc":signal=KILL:when="$i" \
                "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-policy $policy" -p"ssd-cache-size 4" \
                -p"ssd-cache-directory $CACHE" -p"ssd-cache-o-direct yes" -p"ssd-cache-compression $comp" \
                read-file --trace "$SCRATCH/trace" >/dev/null 2>&1
            rc=$?
            set -e
            # the cache's state moves on with every run, so a point may be
            # past this run's calls: then it finished, and is checked alike
            [ "$rc" -eq 137 ] && kills=$((kills + 1))
            [ "$rc" -eq 137 ] || [ "$rc" -eq 0 ] || fail "$policy: replay under strace ($sc #$i) exited $rc"
            check "the kill at $sc #$i"
            checked=$((checked + 1))
            if [ $((checked % 5)) -eq 0 ]; then
                rm -rf "$SCRATCH/r"
                cached restore 1 "$SCRATCH/r" >/dev/null
                same_tree "$SCRATCH/data/v2" "$SCRATCH/r"
                cached read-file 1 -o "$SCRATCH/big" -- "$big"
                cmp -s "$SCRATCH/big" "$SCRATCH/data/v2/$big" || fail "$policy: read-file -o through the cache"
            fi
        done
    done
done
case " $RUNS " in
    *:lz4*|*:zstd*) [ "$(cat "$SCRATCH"/compressed-lz4 "$SCRATCH"/compressed-zstd 2>/dev/null | sort -n | tail -1)" -gt 0 ] ||
        fail "no replay with compression stored a compressed copy: the sweep did not reach compressed writes" ;;
esac
[ "$checked" -ge $((POINTS * 4)) ] || fail "strace saw too few calls on the cache's files ($checked points)"
[ $((kills * 4)) -ge $((checked * 3)) ] || fail "only $kills of $checked points ended in a kill"
note "$kills of $checked replays killed at slot writes/reads, fsyncs, cache.meta writes and renames" \
    "(O_DIRECT; $RUNS); each next replay verified every file through the cache"
