#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# planted_links.sh: no file destor writes is written through a link planted
# at its name (issue 35). The names come from the code as it runs, not from
# a list: each command below (backup, also with the silo index, HAR and
# retention; delete, gc, repair, read-file -o, restore, trace compile -o,
# trace export -o; replays through the SSD cache at container granularity
# and at chunk granularity with the log and the buckets layout; backup and
# gc on a files store too) runs once under strace, and every path in its
# run directory (the store, the cache directory, the outputs) that it opens
# for writing (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC) or renames a file onto is
# a fixed name, the unique .destor-*.tmp names aside. Then for each name, on
# a fresh copy of the state, a symlink to a sentinel file outside is planted
# there, and separately a hard link to it, and the command runs again. The
# sentinel keeps its bytes and mtime, and either the command refused with a
# `destor:` line saying it never writes through the link (exit 1), or the
# name is no longer the link (replaced or removed), or the run never opened
# it for writing (a command that read the link as the store's file and
# stopped on it ends with a destor: line). Last, a symlink to a directory
# outside planted as the next job's directory is removed, not emptied. On
# 29a4157 gc wrote job records through a hard link at
# jobs/N/job_meta_data.new, replays truncated and overwrote the target of a
# link at slots.dat, chunks.log or chunks.buckets, gc wrote through one at
# containers.pool, and backup emptied the directory outside.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

command -v strace >/dev/null 2>&1 || { echo "# strace not installed"; exit 77; }
strace -f -qq -o /dev/null true 2>/dev/null || { echo "# strace cannot trace here"; exit 77; }
TRACED_ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

RUN="$SCRATCH/run"
W="$RUN/w"
C="$RUN/c"
SENT="$SCRATCH/sentinel"
FILES=""   # -p"container-store files" for the files store's scenarios

# on ARGS...: destor on the run directory's store; under strace (to
# $STRACE_OUT) when that is set.
on() {
    if [ -n "$STRACE_OUT" ]; then
        set -- strace -f -qq -y -s 4096 -e trace=open,openat,creat,rename,renameat,renameat2 -o "$STRACE_OUT" \
            "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" ${FILES:+"$FILES"} "$@"
        ASAN_OPTIONS=$TRACED_ASAN_OPTIONS "$@"
    else
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $W" ${FILES:+"$FILES"} "$@"
    fi
}
STRACE_OUT=""

# writes TRACE names TOP: the fixed names (relative to TOP) opened for
# writing or renamed onto. writes TRACE opened PATH: whether a call opened
# PATH for writing and succeeded.
writes() {
    "$PYTHON" - "$@" <<'PY'
import os, re, sys
trace, mode, arg = sys.argv[1:4]
STR = r'"((?:[^"\\]|\\.)*)"'
FD = r'(?:(AT_FDCWD|\d+)(?:<([^>]*)>)?, )?'
OPEN = re.compile(r'\b(openat|open|creat)\(' + FD + STR + r'(?:, ([A-Z0-9_|]+))?')
RENAME = re.compile(r'\b(renameat2|renameat|rename)\(' + FD + STR + ', ' + FD + STR)
RESULT = re.compile(r'= (-?\d+)')

def full(fd, fd_path, p):
    if p.startswith('/'):
        return p
    if fd in (None, 'AT_FDCWD'):
        return os.path.join(fd_path or os.getcwd(), p)
    if not fd_path:
        sys.exit('cannot place %r: strace gave no path for fd %s' % (p, fd))
    return os.path.join(fd_path, p)

found = set()
for line in open(trace):
    m = OPEN.search(line)
    if m:
        call, fd, fd_path, p, flags = m.groups()
        if call == 'creat' or (flags and re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC', flags)):
            r = RESULT.search(line[m.end():])
            found.add((full(fd, fd_path, p), r is not None and int(r.group(1)) >= 0))
        continue
    m = RENAME.search(line)
    if m:
        _, _, _, _, fd, fd_path, p = m.groups()
        found.add((full(fd, fd_path, p), False))
if mode == 'names':
    top = arg.rstrip('/') + '/'
    for name in sorted({os.path.relpath(p, top) for p, _ in found if p.startswith(top)}):
        if not os.path.basename(name).startswith('.destor-'):
            print(name)
else:
    print('yes' if any(p == arg and ok for p, ok in found) else 'no')
PY
}

# The states the commands start from, each kept as a copy of $RUN.
mkdir -p "$SCRATCH/data/v1" "$SCRATCH/data/v2" "$SCRATCH/data/v3"
for i in 1 2 3; do pseudo_random 300000 "$i" > "$SCRATCH/data/v1/f$i"; done
cp "$SCRATCH/data/v1/f2" "$SCRATCH/data/v1/f3" "$SCRATCH/data/v2/"
pseudo_random 300000 4 > "$SCRATCH/data/v2/f1"
cp "$SCRATCH/data/v2/"* "$SCRATCH/data/v3/"
pseudo_random 100000 5 > "$SCRATCH/data/v3/f4"
printf '1\tf2\n1\tf3\n0\tf1\n1\tf2\t1000\t70000\n' > "$SCRATCH/trace"
printf 'container-size 128K\n' >> "$CONFIG"

save() { rm -rf "$SCRATCH/tpl-$1"; cp -a "$RUN" "$SCRATCH/tpl-$1"; }
load() { rm -rf "$RUN"; cp -a "$SCRATCH/tpl-$1" "$RUN"; }

# cache LAYOUT ARGS...: destor with the SSD cache in $C, of one layout.
cache() {
    layout=$1
    shift
    case $layout in
    container) on -p"ssd-cache-policy lru" -p"ssd-cache-directory $C" "$@" ;;
    chunklog) on -p"ssd-cache-granularity chunk" -p"ssd-cache-policy lru" -p"ssd-cache-directory $C" "$@" ;;
    buckets) on -p"ssd-cache-granularity chunk" -p"ssd-cache-policy austere" -p"ssd-cache-layout buckets" \
        -p"ssd-cache-size 8M" -p"ssd-cache-directory $C" "$@" ;;
    esac
}

# make_states PREFIX: two jobs; job 0 deleted; a warm cache of each layout.
make_states() {
    rm -rf "$RUN"
    mkdir -p "$RUN"
    on backup "$SCRATCH/data/v1" >/dev/null
    on backup "$SCRATCH/data/v2" >/dev/null
    save "$1two"
    on delete 0 >/dev/null
    save "$1deleted"
    for layout in container chunklog buckets; do
        load "$1two"
        cache $layout read-file --trace "$SCRATCH/trace" >/dev/null
        save "$1$layout"
    done
}

# run SCENARIO: its command.
run() {
    case $1 in
    backup | files-backup) on backup "$SCRATCH/data/v3" ;;
    backup-more) on -p"fingerprint-index near-exact logical silo" -p"rewrite-enable-har yes" \
        -p"backup-retention-time 1" backup "$SCRATCH/data/v3" ;;
    delete) on delete 0 ;;
    gc | files-gc) on gc ;;
    repair) on repair ;;
    read-file) on read-file 1 f2 -o "$RUN/out" ;;
    restore) on restore 1 "$RUN/rt" ;;
    compile) on trace compile "$SCRATCH/trace" -o "$RUN/t.ctr" ;;
    export) on trace export "$SCRATCH/t.ctr" --format txt -o "$RUN/t.txt" ;;
    container | chunklog | buckets) cache "$1" read-file --trace "$SCRATCH/trace" ;;
    esac
}

SCENARIOS="backup backup-more delete gc repair read-file restore compile export container chunklog buckets"
make_states ""
load two
on trace compile "$SCRATCH/trace" -o "$SCRATCH/t.ctr" >/dev/null
if [ "$(store_kind)" = pool ]; then
    FILES="-pcontainer-store files"
    make_states files-
    FILES=""
    SCENARIOS="$SCENARIOS files-backup files-gc"
fi
pseudo_random 4096 99 > "$SENT.orig"
: > "$SCRATCH/failures"
planted=0
for sc in $SCENARIOS; do
    case $sc in
    files-*) FILES="-pcontainer-store files" prefix=files- ;;
    *) FILES="" prefix="" ;;
    esac
    case $sc in
    gc | files-gc | repair) from="${prefix}deleted" ;;
    container | chunklog | buckets) from=$sc ;;
    *) from="${prefix}two" ;;
    esac
    load "$from"
    STRACE_OUT="$SCRATCH/names.trace"
    run "$sc" >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$sc: the traced run failed"; }
    writes "$SCRATCH/names.trace" names "$RUN" > "$SCRATCH/names"
    [ -s "$SCRATCH/names" ] || fail "$sc: no file written by a fixed name was seen"
    note "$sc: $(tr '\n' ' ' < "$SCRATCH/names")"
    while read -r name; do
        for kind in symlink hardlink; do
            load "$from"
            cp "$SENT.orig" "$SENT"
            before=$(stat -c '%y' "$SENT")
            target="$RUN/$name"
            mkdir -p "$(dirname "$target")"
            rm -f "$target"
            if [ $kind = symlink ]; then ln -s "$SENT" "$target"; else ln "$SENT" "$target"; fi
            STRACE_OUT="$SCRATCH/planted.trace"
            rc=0
            run "$sc" </dev/null >/dev/null 2>"$SCRATCH/err" || rc=$?
            planted=$((planted + 1))
            what="$sc: $kind at $name"
            if ! cmp -s "$SENT" "$SENT.orig" || [ "$(stat -c '%y' "$SENT")" != "$before" ]; then
                echo "$what: written through (the sentinel outside changed; exit $rc)" >> "$SCRATCH/failures"
                continue
            fi
            if [ $kind = symlink ]; then
                [ -L "$target" ] && [ "$(readlink "$target")" = "$SENT" ] && still=yes || still=no
            else
                [ "$(stat -c '%d:%i' "$target" 2>/dev/null)" = "$(stat -c '%d:%i' "$SENT")" ] && still=yes || still=no
            fi
            opened=$(writes "$SCRATCH/planted.trace" opened "$target")
            if [ $rc -eq 1 ] && tail -n 1 "$SCRATCH/err" | grep -q '^destor: .*never writes through'; then
                : # refused: the link is named
            elif [ $rc -ne 0 ] && ! tail -n 1 "$SCRATCH/err" | grep -q '^destor: '; then
                echo "$what: exit $rc without a destor: line" >> "$SCRATCH/failures"
            elif [ $still = yes ] && [ "$opened" = yes ]; then
                last=$(tail -n 1 "$SCRATCH/err" | head -c 300)
                echo "$what: opened for writing through the link (exit $rc): $last" >> "$SCRATCH/failures"
            fi
        done
    done < "$SCRATCH/names"
done
STRACE_OUT=""
FILES=""

# A symlink to a directory outside, planted as the next job's directory
# (where a killed backup leaves an unfinished one to be cleared): backup
# removes the link, not what is in the directory it names (29a4157 emptied
# that directory).
load two
mkdir -p "$SCRATCH/outside/sub"
printf 'keep\n' > "$SCRATCH/outside/sub/keep"
ln -s "$SCRATCH/outside" "$W/jobs/00000002"
on backup "$SCRATCH/data/v3" >/dev/null 2>"$SCRATCH/err" ||
    echo "backup over a symlinked job directory: $(tail -n 1 "$SCRATCH/err" | head -c 300)" >> "$SCRATCH/failures"
[ "$(cat "$SCRATCH/outside/sub/keep" 2>/dev/null)" = keep ] ||
    echo "backup removed files through a symlink at the next job's directory" >> "$SCRATCH/failures"
[ ! -L "$W/jobs/00000002" ] || echo "the symlinked job directory was not replaced" >> "$SCRATCH/failures"

if [ -s "$SCRATCH/failures" ]; then
    cat "$SCRATCH/failures" >&2
    fail "$(wc -l < "$SCRATCH/failures") of $planted planted links were followed or not refused"
fi
note "$planted planted links: each refused with a destor: line, replaced, or never opened; no sentinel changed"
