#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cli.sh: every command has its own --help; an option a command does not
# take is a usage error; --json works wherever figures are printed; a
# mistyped command never starts a backup (the legacy `destor PATH` form);
# destor help [COMMAND] is destor [COMMAND] --help.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

COMMANDS="backup restore read-file trace stat list verify repair rados-migrate delete gc mount policies"
# Every row of the command table (src/cli/commands.c: name, options,
# handler, help) is a command this test runs, and no other.
table=$(sed -n 's/^    { "\([a-z-]*\)", .*/\1/p' "$TOP_SRCDIR/src/cli/commands.c" | tr '\n' ' ')
[ "$table" = "$COMMANDS " ] || fail "the command table holds '$table', this test '$COMMANDS'"
for c in $COMMANDS; do
    expect_status 0 dst $c --help
    grep -q "^usage: destor .* $c" "$SCRATCH/out" || { cat "$SCRATCH/out"; fail "$c --help is not $c's usage"; }
    grep -q '^exit status:' "$SCRATCH/out" || fail "$c --help must list its exit status"
    expect_status 0 dst $c -h
    # every command is in the global help and (a test of its own) the man page
    "$DESTOR_BIN" --help | grep -q "^  $c " || fail "$c missing from destor --help"
    sed 's/\\//g' "$TOP_SRCDIR/man/destor.1" | grep -qx ".SS $c" || fail "$c missing from man/destor.1"
done

# destor help [COMMAND] prints what --help prints, and backs nothing up
# (even with a directory named help here)
mkdir -p "$SCRATCH/cwd/help"
echo x > "$SCRATCH/cwd/help/f"
(cd "$SCRATCH/cwd" && "$DESTOR_BIN" -c "$CONFIG" help > "$SCRATCH/help.out" 2>"$SCRATCH/help.err") ||
    fail "destor help failed: $(cat "$SCRATCH/help.err")"
"$DESTOR_BIN" --help | cmp -s - "$SCRATCH/help.out" || fail "destor help differs from destor --help"
[ ! -e "$SCRATCH/working" ] || fail "destor help made a store"
for c in $COMMANDS; do
    dst $c --help > "$SCRATCH/help.c"
    dst help $c | cmp -s - "$SCRATCH/help.c" || fail "destor help $c differs from destor $c --help"
done
expect_status 2 dst help nosuch
grep -q "^destor: help: no command 'nosuch'" "$SCRATCH/err" || fail "no error for help of an unknown command"
expect_status 2 dst help gc stat
[ ! -e "$SCRATCH/working" ] || fail "destor help made a store"

mkdir -p "$SCRATCH/src"
echo hello > "$SCRATCH/src/f"
dst backup "$SCRATCH/src" >/dev/null
# Options the command does not take: exit 2, naming the command.
expect_status 2 dst stat --deep
grep -q 'stat does not take --deep' "$SCRATCH/err" || fail "message must name command and option"
expect_status 2 dst list 0 --verify
expect_status 2 dst backup "$SCRATCH/src" --null
expect_status 2 dst restore 0 "$SCRATCH/r" -o x
expect_status 2 dst verify --trace x
expect_status 2 dst stat --simulate
expect_status 2 dst list 0 --frobnicate
expect_status 2 dst read-file --trace x -o y
expect_status 2 dst repair --deep
expect_status 2 dst stat --one-file-system
expect_status 2 dst trace compile x -o y --format txt
expect_status 2 dst read-file 0 f --json                # --json needs -o for one file
expect_status 2 dst list 0 --null --json
expect_status 2 dst rados-migrate --json
expect_status 2 dst rados-migrate                        # a pool or files store: a setting that does not apply
grep -q "^destor: rados-migrate applies to container-store rados only" "$SCRATCH/err" || fail "rados-migrate: $(cat "$SCRATCH/err")"

# --json on every command that prints figures: one document each.
dst backup "$SCRATCH/src" --json > "$SCRATCH/b.json"
dst restore 0 "$SCRATCH/r" --json > "$SCRATCH/r.json"
dst read-file 0 f -o "$SCRATCH/f.out" --json > "$SCRATCH/f.json"
dst stat --json > "$SCRATCH/s.json"
dst verify --json > "$SCRATCH/v.json"
dst list 0 --json > "$SCRATCH/l.json"
dst repair --json > "$SCRATCH/p.json"
printf '0\tf\n' > "$SCRATCH/trace"
dst read-file --trace "$SCRATCH/trace" --json > "$SCRATCH/t.json"
dst delete 1 --json > "$SCRATCH/d.json"
dst gc --json > "$SCRATCH/g.json"
dst policies --json > "$SCRATCH/o.json"
# each opens with kind and version (docs/FORMAT.md)
for k in b:backup r:restore f:read-file s:stat v:verify l:list t:trace-summary p:repair d:delete g:gc o:policies; do
    [ "$("$PYTHON" -c 'import json,sys
d = json.loads(open(sys.argv[1]).read(), strict=True)
assert list(d)[:2] == ["kind", "version"] and isinstance(d["version"], int), list(d)[:2]
print(d["kind"])' "$SCRATCH/${k%%:*}.json")" = "destor.${k#*:}" ] ||
        fail "${k#*:} --json is not a destor.${k#*:} document"
done

# A mistyped command never backs up, even when a directory has that name.
cd "$SCRATCH"
mkdir -p stats lsit
echo x > stats/x
jobs_before=$(dst stat --json | json_field /dev/stdin job_count)
for typo in stats lsit verfy restor bakup read_file; do
    expect_status 2 dst $typo
    grep -q "unknown command '$typo'; did you mean" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "no suggestion for $typo"; }
done
grep -q "did you mean 'read-file'? To back up a directory of that name: destor backup read_file" "$SCRATCH/err" ||
    fail "the message must say how to back up such a directory"
[ "$(dst stat --json | json_field /dev/stdin job_count)" -eq "$jobs_before" ] || fail "a typo started a backup"
# ...while the legacy form still backs up a directory of another name, and
# `destor backup stats` backs up the directory named like a command.
expect_status 0 dst src
expect_status 0 dst backup stats
[ "$(dst stat --json | json_field /dev/stdin job_count)" -eq $((jobs_before + 2)) ] || fail "legacy form or backup stats"
note "per-command help, option checks, --json documents and typo refusal checked"
