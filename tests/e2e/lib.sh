# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh: shared helpers of the end-to-end tests (sourced, not run).
# Each test gets a scratch directory (removed on success, kept on failure),
# a config file pointing the store there, and `dst` to run destor with it.
set -eu

: "${DESTOR_BIN:?DESTOR_BIN must name the destor binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source directory}"
PYTHON=/usr/bin/python3

# kill_point I N: whether a kill sweep kills at point I of the N it found
# for one kind of step. Every point, unless DESTOR_KILL_SAMPLE=K (K > 1;
# scripts/test.sh sets it in the sanitizer build): then the first and the
# last point of each kind and every K-th one between them, at a fixed offset
# (DESTOR_KILL_SEED, default 1), so that every kind of step is still killed
# at. Skipped points are counted in KILL_POINTS_SKIPPED, which a sweep's
# check of how many points it found adds to its kills.
KILL_POINTS_SKIPPED=0
kill_point() {
    k=${DESTOR_KILL_SAMPLE:-1}
    if [ "$k" -le 1 ] || [ "$1" -le 1 ] || [ "$1" -ge "$2" ] || [ $(( ($1 + ${DESTOR_KILL_SEED:-1}) % k )) -eq 0 ]; then
        return 0
    fi
    KILL_POINTS_SKIPPED=$((KILL_POINTS_SKIPPED + 1))
    return 1
}
# kill_kind R S V: whether a sweep that runs V variants (other codecs,
# modes, flags) sweeps its S-th kind of step in its R-th variant (R from 0).
# Every one, unless DESTOR_KILL_SAMPLE=K: then, with M the smaller of K and
# V, each kind in every M-th variant, a different offset per kind, so every
# kind of step is still killed at in some variant and, with at least M
# kinds, every variant kills at some kind. Skipped pairs are counted in
# KILL_KINDS_SKIPPED.
KILL_KINDS_SKIPPED=0
kill_kind() {
    m=${DESTOR_KILL_SAMPLE:-1}
    [ "$3" -ge "$m" ] || m=$3
    if [ "$m" -le 1 ] || [ $(( ($1 + $2) % m )) -eq 0 ]; then
        return 0
    fi
    KILL_KINDS_SKIPPED=$((KILL_KINDS_SKIPPED + 1))
    return 1
}
# kill_enough KILLS N: whether a sweep reached the N kill points it expects
# (the points sampled out count; with whole kinds sampled out, N/K).
kill_enough() {
    need=$2
    [ "$KILL_KINDS_SKIPPED" -eq 0 ] || need=$((need / DESTOR_KILL_SAMPLE))
    [ $(($1 + KILL_POINTS_SKIPPED)) -ge "$need" ]
}
kill_sample_note() {
    [ "$KILL_POINTS_SKIPPED" -eq 0 ] && [ "$KILL_KINDS_SKIPPED" -eq 0 ] ||
        echo "# DESTOR_KILL_SAMPLE=$DESTOR_KILL_SAMPLE: $KILL_POINTS_SKIPPED kill points and $KILL_KINDS_SKIPPED kinds of step in a variant sampled out"
}

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/destor-e2e.XXXXXX")
trap 'rc=$?; kill_sample_note; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT
CONFIG="$SCRATCH/destor.config"
printf 'working-directory "%s/working"\n' "$SCRATCH" > "$CONFIG"
# DESTOR_TEST_CONTAINER_STORE=pool|files: the stores the test makes are of
# that kind (docs/TESTING.md); unset, the default (pool).
case "${DESTOR_TEST_CONTAINER_STORE:-}" in
'') ;;
pool | files) printf 'container-store %s\n' "$DESTOR_TEST_CONTAINER_STORE" >> "$CONFIG" ;;
*) echo "DESTOR_TEST_CONTAINER_STORE must be pool or files, not '$DESTOR_TEST_CONTAINER_STORE'" >&2; exit 2 ;;
esac

dst() { "$DESTOR_BIN" -c "$CONFIG" "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# The kind of container store the test's stores are (pool or files), and
# the places tests that damage or compare containers by hand reach them at.
store_kind() { echo "${DESTOR_TEST_CONTAINER_STORE:-pool}"; }

# container_at W ID SIZE: "FILE OFFSET" of container ID's first byte in the
# store at W (containers of SIZE bytes).
container_at() {
    if [ "$(store_kind)" = files ]; then
        printf '%s/containers/%06x/%08x 0\n' "$1" $(($2 >> 8)) "$2"
    else
        echo "$1/containers.pool $(($2 * $3))"
    fi
}

# flip_container_byte W ID SIZE AT: invert byte AT of container ID.
flip_container_byte() {
    set -- $(container_at "$1" "$2" "$3") "$4"
    "$PYTHON" -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2]))
f.write(bytes([b[0] ^ 0xFF]))' "$1" $(($2 + $3))
}

# zero_container_bytes W ID SIZE AT LEN: LEN zero bytes from byte AT of
# container ID.
zero_container_bytes() {
    set -- $(container_at "$1" "$2" "$3") "$4" "$5"
    "$PYTHON" -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(bytes(int(sys.argv[3])))' "$1" $(($2 + $3)) "$4"
}

# containers_of W: the path holding every container of the store at W.
containers_of() {
    if [ "$(store_kind)" = files ]; then echo "$1/containers"; else echo "$1/containers.pool"; fi
}

# container_count W SIZE: how many containers the store at W holds.
container_count() {
    if [ "$(store_kind)" = files ]; then
        find "$1/containers" -type f ! -name '.destor-*' | wc -l
    else
        echo $(( $(stat -c %s "$1/containers.pool") / $2 ))
    fi
}

# require_pool WHY: the rest of this test is about the pool file itself;
# on another kind of store it is skipped (exit 77), saying why.
require_pool() {
    [ "$(store_kind)" = pool ] && return 0
    echo "# SKIP on a $(store_kind) store: $*"
    exit 77
}

# expect_status N CMD...: run CMD, require exit status N and a one-line
# "destor: ..." message on stderr.
expect_status() {
    want=$1; shift
    set +e
    "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    got=$?
    set -e
    [ "$got" -eq "$want" ] || { cat "$SCRATCH/err" >&2; fail "'$*' exited $got, expected $want"; }
    if [ "$want" -ne 0 ]; then
        [ "$(grep -c '^destor: ' "$SCRATCH/err")" -ge 1 ] || fail "'$*' printed no 'destor:' error line"
    fi
}

# gen_data DIR ARGS...: the project's dataset generator.
gen_data() { out=$1; shift; "$PYTHON" "$TOP_SRCDIR/scripts/gen-dataset" --out "$out" "$@" >/dev/null; }

# two_job_trace DATA_SEED TRACE_SEED ALPHA REQUESTS: back up two versions
# of the tiny dataset (128 KiB containers) as jobs 0 and 1, and write
# $SCRATCH/trace: REQUESTS Zipf-weighted (ALPHA) reads of their files, 30%
# of them byte ranges.
two_job_trace() {
    gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed "$1"
    shift
    printf 'container-size 128K\n' >> "$CONFIG"
    dst backup "$SCRATCH/data/v1" >/dev/null
    dst backup "$SCRATCH/data/v2" >/dev/null
    for job in 0 1; do dst list $job --null > "$SCRATCH/list$job"; done
    "$PYTHON" - "$SCRATCH/list0" "$SCRATCH/list1" "$1" "$2" "$3" > "$SCRATCH/trace" <<'PY'
import random, sys
reqs = []
for job, name in enumerate(sys.argv[1:3]):
    for rec in open(name, "rb").read().split(b"\0")[:-1]:
        kind, size, path = rec.split(b"\t", 2)
        if kind == b"f" and b"\n" not in path and b"\r" not in path:
            reqs.append((job, path, int(size)))
seed, alpha, count = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
weights = [1.0 / (i + 1) ** alpha for i in range(len(reqs))]
for job, path, size in rng.choices(reqs, weights, k=count):
    line = b"%d\t%s" % (job, path)
    if rng.random() < 0.3:
        line += b"\t%d\t%d" % (rng.randrange(size + 10), rng.choice([0, 100, 70000, 300000]))
    sys.stdout.buffer.write(line + b"\n")
PY
}

# pseudo_random BYTES SEED: deterministic incompressible bytes on stdout.
pseudo_random() {
    key=$(printf '%032x' "$2")
    openssl enc -aes-128-ctr -nosalt -K "$key" -iv 0 -in /dev/zero 2>/dev/null | head -c "$1"
}

# json_field FILE KEY: a top-level number from a JSON object.
json_field() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# same_tree A B: same names, bytes, symlink targets, modes and mtimes.
same_tree() {
    diff -r --no-dereference "$1" "$2" >/dev/null || { diff -r --no-dereference "$1" "$2" | head -20 >&2; fail "trees differ: $1 $2"; }
    (cd "$1" && find . -mindepth 1 ! -type l -printf '%p %m %T@\n' | sort) > "$SCRATCH/meta.a"
    (cd "$2" && find . -mindepth 1 ! -type l -printf '%p %m %T@\n' | sort) > "$SCRATCH/meta.b"
    cmp -s "$SCRATCH/meta.a" "$SCRATCH/meta.b" || { diff "$SCRATCH/meta.a" "$SCRATCH/meta.b" | head >&2; fail "modes or mtimes differ"; }
}

# suppress_bdb_leaks: for tests that damage Berkeley DB files. After a page
# fails its checksum the library panics and DB->close frees nothing (the
# process is meant to exit); in a sanitizer build LeakSanitizer would report
# that, so leaks allocated inside it (__os_malloc) are suppressed, as in
# tests/fault/faultlib.py.
suppress_bdb_leaks() {
    echo 'leak:__os_malloc' > "$SCRATCH/lsan.supp"
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SCRATCH/lsan.supp:print_suppressions=0"
    export LSAN_OPTIONS
}

# sweep_without_leak_checks: for kill sweeps, which run the same commands
# hundreds of times. LeakSanitizer's scan at each exit was a quarter of a
# sweep's CPU in the sanitizer build (and cannot run under ptrace at all);
# every other test still checks those commands for leaks. AddressSanitizer
# and UBSan stay on.
sweep_without_leak_checks() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
}

# strace_kill_setup: for kill sweeps that SIGKILL destor at a chosen system
# call (strace -e inject=SYSCALL:signal=KILL:when=N). Skips
# the test (exit 77) when strace is missing or cannot inject here.
strace_kill_setup() {
    command -v strace >/dev/null 2>&1 || { echo "# strace not installed"; exit 77; }
    sweep_without_leak_checks
    set +e
    strace -f -o /dev/null -e trace=openat -e inject=openat:signal=KILL:when=1 "$DESTOR_BIN" --version >/dev/null 2>&1
    rc=$?
    set -e
    [ "$rc" -eq 137 ] || { echo "# strace cannot inject signals here (exit $rc)"; exit 77; }
}

# kill_sweep NAME PREPARE COUNT CHECK: SIGKILL a backup of $SCRATCH/src at
# each rename and fsync it makes (COUNT WORKDIR SYSCALL says how many kill
# points there are), each time into a store PREPARE WORKDIR made; then CHECK
# WORKDIR (":" for none) on what the kill left, a backup of $SCRATCH/src2
# must commit within KILL_LIMIT seconds, CHECK again, verify passes and the
# newest job (the highest live id) restores as src2. Needs strace_kill_setup.
kill_sweep() {
    kills=0
    for sc in rename renameat renameat2 fsync fdatasync; do
        rm -rf "$SCRATCH/count"
        $2 "$SCRATCH/count"
        n=$($3 "$SCRATCH/count" "$sc")
        i=1
        while [ "$i" -le "$n" ]; do
            kill_point "$i" "$n" || { i=$((i + 1)); continue; }
            W="$SCRATCH/w-$sc-$i"
            $2 "$W"
            set +e
            strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$i" \
                "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" backup "$SCRATCH/src" >/dev/null 2>&1
            rc=$?
            set -e
            [ "$rc" -eq 137 ] || fail "$1: backup not killed at $sc #$i (exit $rc)"
            kills=$((kills + 1))
            $4 "$W" || fail "$1: after the kill at $sc #$i"
            set +e
            timeout "${KILL_LIMIT:-60}" "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" backup "$SCRATCH/src2" \
                >/dev/null 2>"$SCRATCH/err"
            rc=$?
            set -e
            [ "$rc" -eq 0 ] || { cat "$SCRATCH/err" >&2; fail "$1: backup after the kill at $sc #$i exited $rc"; }
            $4 "$W" || fail "$1: after the backup that followed the kill at $sc #$i"
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" verify >/dev/null ||
                fail "$1: verify failed after the kill at $sc #$i"
            last=$("$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" stat --json |
                "$PYTHON" -c 'import json,sys; print(max(j["job"] for j in json.load(sys.stdin)["jobs"]))')
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" restore "$last" "$W.r" >/dev/null
            same_tree "$SCRATCH/src2" "$W.r"
            rm -rf "$W" "$W.r"
            i=$((i + 1))
        done
    done
    [ $((kills + KILL_POINTS_SKIPPED)) -ge 10 ] || fail "$1: only $kills kill points"
}

# driver_kill_points SYSCALL ARG LABEL: SIGKILL a cache layout's fault
# driver ($DRIVER, tests/fault/*_driver, with $N chunks a run) at each
# SYSCALL of its second run, ARG its variant (a codec, a reclaim mode),
# LABEL the variant in failures. After each kill the layout serves only
# chunks some run put, byte for byte (`check` fails otherwise), lists
# nothing damaged (a kill falls between system calls: no write is torn),
# takes a full third run and serves again. Adds the kills to $kills.
# Needs strace_kill_setup.
driver_kill_points() {
    C="$SCRATCH/count"
    rm -rf "$C"
    "$DRIVER" run "$C" "$2" 1 "$N"
    strace -f -qq -o "$SCRATCH/trace" -e trace="$1" "$DRIVER" run "$C" "$2" 2 "$N"
    n=$(grep -c "$1(" "$SCRATCH/trace" || true)
    i=1
    while [ "$i" -le "$n" ]; do
        kill_point "$i" "$n" || { i=$((i + 1)); continue; }
        W="$SCRATCH/w"
        rm -rf "$W"
        "$DRIVER" run "$W" "$2" 1 "$N"
        set +e
        strace -f -qq -o /dev/null -e trace="$1" -e inject="$1":signal=KILL:when="$i" \
            "$DRIVER" run "$W" "$2" 2 "$N" >/dev/null 2>&1
        rc=$?
        set -e
        [ "$rc" -eq 137 ] || fail "$3: run not killed at $1 #$i (exit $rc)"
        kills=$((kills + 1))
        "$DRIVER" check "$W" "$2" "$N" 1 2 >"$SCRATCH/held" ||
            fail "$3: wrong chunks served after the kill at $1 #$i"
        grep -q ' damaged 0$' "$SCRATCH/held" || fail "$3: $(cat "$SCRATCH/held") after the kill at $1 #$i"
        "$DRIVER" run "$W" "$2" 3 "$N" || fail "$3: no run after the kill at $1 #$i"
        "$DRIVER" check "$W" "$2" "$N" 1 2 3 >"$SCRATCH/held" ||
            fail "$3: wrong chunks served after the run that followed the kill at $1 #$i"
        grep -q '^held [1-9]' "$SCRATCH/held" || fail "$3: nothing held after a full run ($1 #$i)"
        i=$((i + 1))
    done
}

# reads_as_pool RUN KIND: a store of KIND and a pool store, each holding
# $SCRATCH/data/v1 and v2 as jobs 0 and 1 and each run as RUN KIND|pool
# ARGS..., answer alike: job 1 restores as v2 with the same answers, job 0
# lists the same, and read-file of 12 of job 0's files gives their
# originals on both. Leaves for what follows: $SCRATCH/files0 and files1
# (the jobs' file paths), some (the 12), trace (a read-file trace of them
# all: job 0's, job 1's, then the 12 again).
reads_as_pool() {
    for kind in pool "$2"; do
        $1 $kind restore --json 1 "$SCRATCH/r-$kind" | answers > "$SCRATCH/$kind.restore"
        same_tree "$SCRATCH/data/v2" "$SCRATCH/r-$kind"
        $1 $kind list 0 --null > "$SCRATCH/list-$kind"
    done
    cmp "$SCRATCH/pool.restore" "$SCRATCH/$2.restore" || fail "restore answers differ"
    cmp "$SCRATCH/list-pool" "$SCRATCH/list-$2" || fail "list differs"
    $1 "$2" list 1 --null > "$SCRATCH/list1"
    file_paths "$SCRATCH/list-pool" > "$SCRATCH/files0"
    file_paths "$SCRATCH/list1" > "$SCRATCH/files1"
    head -n 12 "$SCRATCH/files0" > "$SCRATCH/some"
    while IFS= read -r path; do
        for kind in pool "$2"; do
            $1 $kind read-file 0 "$path" -o "$SCRATCH/out-$kind"
        done
        cmp -s "$SCRATCH/out-$2" "$SCRATCH/out-pool" || fail "read-file $path differs"
        cmp -s "$SCRATCH/out-$2" "$SCRATCH/data/v1/${path#/}" || cmp -s "$SCRATCH/out-$2" "$SCRATCH/data/v1/$path" ||
            fail "read-file $path differs from the original"
    done < "$SCRATCH/some"
    sed 's/^/0\t/' "$SCRATCH/files0" > "$SCRATCH/trace"
    sed 's/^/1\t/' "$SCRATCH/files1" >> "$SCRATCH/trace"
    sed 's/^/0\t/' "$SCRATCH/some" >> "$SCRATCH/trace"
}

# lifecycle_trees: $SCRATCH/a, b and c for the delete and gc tests: a and b
# share shared.bin, each also has data of its own (so deleting a and c
# leaves containers dead and containers part live), c shares nothing.
lifecycle_trees() {
    mkdir -p "$SCRATCH/a" "$SCRATCH/b" "$SCRATCH/c"
    pseudo_random 300000 51 > "$SCRATCH/a/only_a.bin"
    pseudo_random 200000 52 > "$SCRATCH/a/shared.bin"
    cp "$SCRATCH/a/shared.bin" "$SCRATCH/b/"
    pseudo_random 200000 53 > "$SCRATCH/b/only_b.bin"
    pseudo_random 150000 54 > "$SCRATCH/c/only_c.bin"
}

# answers: stdin's JSON document, printed sorted, without what differs run
# to run (times, rates, the working directory).
answers() {
    "$PYTHON" -c '
import json, sys
def varies(k):
    return (k.endswith(("_ms", "_s", "_us", "_ns", "seconds", "per_s")) or k in ("working_directory", "created", "target")
            or any(d in k for d in ("time", "latency", "cpu", "rate")))
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if not varies(k)}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
print(json.dumps(clean(json.load(sys.stdin)), sort_keys=True))'
}

# file_paths LIST: the regular files' paths of a `list --null` output, one a
# line (paths with a newline or carriage return left out).
file_paths() {
    "$PYTHON" - "$1" <<'PY'
import sys
for rec in open(sys.argv[1], "rb").read().split(b"\0")[:-1]:
    kind, _size, path = rec.split(b"\t", 2)
    if kind == b"f" and b"\n" not in path and b"\r" not in path:
        sys.stdout.buffer.write(path + b"\n")
PY
}
