#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# restore_caches.sh: every restore cache (restore-cache lru|opt|asm N, issue
# 26) restores byte for byte. A property test over random versioned trees:
# each seed makes a tree and edits it version after version (bytes changed,
# inserted and cut inside files, files added, removed and renamed), backed
# up into small containers so later versions' chunks are spread over many
# shared containers; each version is restored, and a random file read whole
# with read-file, through each kind at a random size (opt at a random
# window too), straight from the store and through an SSD cache, and must
# equal its tree; a restore whose target refuses a directory's files (their
# chunks skipped) restores the rest exactly. Bad values are configuration
# errors (exit 2).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-size 128K\nchunk-avg-size 4096\nchunk-min-size 1024\nchunk-max-size 16384\n' >> "$CONFIG"

# versions SEED DIR: DIR/v0 .. DIR/v5, each a full tree.
versions() {
    "$PYTHON" - "$1" "$2" <<'PY'
import os, random, sys
rng = random.Random(int(sys.argv[1]))
out = sys.argv[2]
files = {"d%d/f%d" % (i % 3, i): rng.randbytes(rng.choice([0, 100, 5000, 40000, 150000, 400000]))
         for i in range(rng.randint(4, 12))}
for v in range(6):
    if v > 0:
        for name in list(files):
            data = bytearray(files[name])
            r = rng.random()
            if r < 0.15:
                del files[name]
                continue
            if r < 0.25:
                files[name.replace("f", "g", 1) + "x"] = files.pop(name)
                continue
            for _ in range(rng.randint(0, 4)):
                at = rng.randint(0, len(data))
                op = rng.random()
                if op < 0.4:
                    data[at:at] = rng.randbytes(rng.randint(1, 20000))
                elif op < 0.7:
                    del data[at:at + rng.randint(1, 20000)]
                else:
                    data[at:at + 300] = rng.randbytes(300)
            files[name] = bytes(data)
        for _ in range(rng.randint(0, 2)):
            files["d%d/new%d_%d" % (rng.randint(0, 3), v, rng.randint(0, 99))] = rng.randbytes(rng.randint(1, 200000))
    root = os.path.join(out, "v%d" % v)
    for name, data in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
PY
}

checks=0
for seed in 1 2 3; do
    W="$SCRATCH/w$seed"
    CACHE_CFG="$SCRATCH/ssd$seed.config"
    { cat "$CONFIG"; printf 'ssd-cache-policy lru\nssd-cache-directory "%s/ssd%s"\nssd-cache-size 4M\n' "$SCRATCH" "$seed"; } \
        > "$CACHE_CFG"
    versions "$seed" "$SCRATCH/t$seed"
    for v in 0 1 2 3 4 5; do
        dst -p"working-directory $W" backup "$SCRATCH/t$seed/v$v" >/dev/null
    done
    for v in 0 1 2 3 4 5; do
        for kind in lru opt asm; do
            n=$(pseudo_random 1 "$seed$v$checks" | od -An -tu1 | tr -d ' ')
            n=$((2 + n % 5))
            window=$((1 + n * 37 % 200))
            for cfg in "$CONFIG" "$CACHE_CFG"; do
                out="$SCRATCH/r-$seed-$v-$kind"
                rm -rf "$out"
                "$DESTOR_BIN" -c "$cfg" -p"working-directory $W" -p"restore-cache $kind $n" \
                    -p"restore-opt-window-size $window" restore "$v" "$out" --json > "$SCRATCH/restore.json"
                same_tree "$SCRATCH/t$seed/v$v" "$out"
                [ "$(json_field "$SCRATCH/restore.json" restore_cache)" = "$kind" ] || fail "restore did not use $kind"
                # a random whole file through read-file
                file=$(cd "$SCRATCH/t$seed/v$v" && find . -type f | sort | sed -n "$((1 + n))p")
                [ -n "$file" ] || file=$(cd "$SCRATCH/t$seed/v$v" && find . -type f | sort | head -1)
                "$DESTOR_BIN" -c "$cfg" -p"working-directory $W" -p"restore-cache $kind $n" \
                    -p"restore-opt-window-size $window" read-file "$v" "$file" -o "$SCRATCH/one" --verify >/dev/null
                cmp -s "$SCRATCH/t$seed/v$v/$file" "$SCRATCH/one" || fail "read-file $file of v$v through $kind $n differs"
                checks=$((checks + 1))
            done
        done
    done
    # containers read on the newest, most fragmented version: opt, seeing
    # the whole restore (its default window), never reads more than lru
    for kind in lru opt asm; do
        dst -p"working-directory $W" -p"restore-cache $kind 4" restore 5 "$SCRATCH/c-$kind" --json > "$SCRATCH/$kind.json"
        rm -rf "$SCRATCH/c-$kind"
    done
    lru=$(json_field "$SCRATCH/lru.json" containers_read)
    opt=$(json_field "$SCRATCH/opt.json" containers_read)
    [ "$opt" -le "$lru" ] || fail "seed $seed: opt read $opt containers, lru $lru"
    note "seed $seed, v5 at 4 containers: lru read $lru containers, opt $opt, asm $(json_field "$SCRATCH/asm.json" containers_read)"
done
note "$checks restores and read-files through lru, opt and asm matched their trees"

# the target refuses a directory's files (a regular file stands at its
# name): restore skips their chunks, the caches that planned them follow
# past, and every other file is restored exactly
for kind in lru opt asm; do
    out="$SCRATCH/refused-$kind"
    mkdir -p "$out"
    echo in the way > "$out/d1"
    expect_status 1 dst -p"working-directory $SCRATCH/w1" -p"restore-cache $kind 2" restore 5 "$out"
    grep -q "not restoring 'd1/" "$SCRATCH/err" || fail "$kind: no file of d1 refused"
    diff -r -x d1 "$SCRATCH/t1/v5" "$out" >/dev/null || { diff -r -x d1 "$SCRATCH/t1/v5" "$out" | head >&2; fail "$kind: the files around the refused ones differ"; }
done
note "files the target refuses are skipped by every kind, the rest restored exactly"

# bad values: configuration errors, nothing restored
for bad in "restore-cache asm 1" "restore-cache mru 4" "restore-cache lru 0" "restore-cache opt" \
    "restore-opt-window-size 0" "restore-cache lru 4 5"; do
    expect_status 2 dst -p"working-directory $SCRATCH/w1" -p"$bad" restore 0 "$SCRATCH/bad"
    grep -q "^destor: " "$SCRATCH/err" || fail "'$bad': no destor: error"
    [ ! -e "$SCRATCH/bad" ] || fail "'$bad': restore wrote a target"
done
note "bad restore-cache values are configuration errors"
