# SPDX-License-Identifier: GPL-3.0-or-later
# bench-stores.sh: the stores and traces the cache's bench scripts share,
# sourced (not run) by bench-granularity.sh, bench-chunk-log.sh,
# bench-builds.sh, bench-container-cache.sh and bench-mount-chunk.sh; each
# store function backs up with the destor given.

# granularity_store DESTOR WORK PRESET REQUESTS: a generated two-job store
# (WORK/g.cfg) and WORK/gtrace, a Zipf trace of REQUESTS whole-file reads
# over both jobs.
granularity_store() {
    /usr/bin/python3 "$TOP/scripts/gen-dataset" --out "$2/g" --preset "$3" --versions 2 --seed 3 > /dev/null
    printf 'working-directory "%s/gstore"\ncontainer-size 2M\n' "$2" > "$2/g.cfg"
    for v in 1 2; do "$1" -c "$2/g.cfg" backup "$2/g/v$v" > /dev/null; done
    for job in 0 1; do "$1" -c "$2/g.cfg" list $job --null > "$2/glist$job"; done
    /usr/bin/python3 - "$2/glist0" "$2/glist1" "$4" > "$2/gtrace" <<'PY'
import random, sys
files = []
for job, name in enumerate(sys.argv[1:3]):
    for rec in open(name, "rb").read().split(b"\0")[:-1]:
        kind, size, path = rec.split(b"\t", 2)
        if kind == b"f" and b"\n" not in path and b"\r" not in path:
            files.append(b"%d\t%s" % (job, path))
rng = random.Random(9)
rng.shuffle(files)
weights = [1.0 / (i + 1) ** 0.9 for i in range(len(files))]
for f in rng.choices(files, weights, k=int(sys.argv[3])):
    sys.stdout.buffer.write(f + b"\n")
PY
}

# chunk_log_store DESTOR WORK MB: a generated store of MB MiB (WORK/p.cfg),
# WORK/pwarm (every file of it, whole) and WORK/pranges (MB x 16 random
# 64 KiB ranges of its files of 64 KiB or more, drawn by size).
chunk_log_store() {
    /usr/bin/python3 "$TOP/scripts/gen-dataset" --out "$2/p" --size "${3}M" --versions 1 --seed 5 > /dev/null
    printf 'working-directory "%s/pstore"\n' "$2" > "$2/p.cfg"
    "$1" -c "$2/p.cfg" backup "$2/p/v1" > /dev/null
    "$1" -c "$2/p.cfg" list 0 --null > "$2/plist"
    /usr/bin/python3 - "$2/plist" "$3" "$2/pwarm" "$2/pranges" <<'PY'
import random, sys
files = []
for rec in open(sys.argv[1], "rb").read().split(b"\0")[:-1]:
    kind, size, path = rec.split(b"\t", 2)
    if kind == b"f" and b"\n" not in path and b"\r" not in path:
        files.append((path, int(size)))
with open(sys.argv[3], "wb") as w:
    for path, size in files:
        w.write(b"0\t%s\n" % path)
big = [(p, s) for p, s in files if s >= 65536]
rng = random.Random(7)
with open(sys.argv[4], "wb") as w:
    for _ in range(int(sys.argv[2]) * 16):
        path, size = rng.choices(big, [s for _, s in big])[0]
        w.write(b"0\t%s\t%d\t65536\n" % (path, rng.randrange(size - 65536 + 1)))
PY
}

# dd_rounds FILE OUT STEP: REPEAT rounds; each times an O_DIRECT dd of FILE
# (a line "dd BYTES T0 T1" appended to OUT), then runs `STEP a $DESTOR
# $WORK/a.cfg` and, with DESTOR_B, `STEP b $DESTOR_B $WORK/b.cfg`, the two
# in turn first from round to round.
dd_rounds() {
    dd_file=$1 dd_out=$2 dd_step=$3
    dd_round=1
    while [ "$dd_round" -le "$REPEAT" ]; do
        t0=$(date +%s.%N)
        dd if="$dd_file" of=/dev/null bs=4M iflag=direct status=none
        t1=$(date +%s.%N)
        echo "dd $(stat -c %s "$dd_file") $t0 $t1" >> "$dd_out"
        if [ -n "$DESTOR_B" ] && [ $((dd_round % 2)) -eq 0 ]; then
            "$dd_step" b "$DESTOR_B" "$WORK/b.cfg"
            "$dd_step" a "$DESTOR" "$WORK/a.cfg"
        elif [ -n "$DESTOR_B" ]; then
            "$dd_step" a "$DESTOR" "$WORK/a.cfg"
            "$dd_step" b "$DESTOR_B" "$WORK/b.cfg"
        else
            "$dd_step" a "$DESTOR" "$WORK/a.cfg"
        fi
        dd_round=$((dd_round + 1))
    done
}
