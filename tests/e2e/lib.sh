# lib.sh: shared helpers of the end-to-end tests (sourced, not run).
# Each test gets a scratch directory (removed on success, kept on failure),
# a config file pointing the store there, and `dst` to run destor with it.
set -eu

: "${DESTOR_BIN:?DESTOR_BIN must name the destor binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source directory}"
PYTHON=/usr/bin/python3

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/destor-e2e.XXXXXX")
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT
CONFIG="$SCRATCH/destor.config"
printf 'working-directory "%s/working"\n' "$SCRATCH" > "$CONFIG"

dst() { "$DESTOR_BIN" -c "$CONFIG" "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

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
