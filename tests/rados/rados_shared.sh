#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_shared.sh: a rados store's metadata lives in its namespace, so two
# working directories with no file in common (two machines) given only the
# conf share one store: the second opens it, lists its jobs, restores and
# reads files byte for byte; its backup deduplicates against the first's
# chunks; a working directory removed mid-life loses nothing (the next
# command rebuilds it from the cluster); a delete and gc from one are seen
# by the other; stat on a new machine reads the catalog alone, and its
# restore, read-file and list of a job that job alone. Errors, each one `destor:` line: a namespace without a
# store (exit 2), a namespace holding another store (exit 2), an older
# store whose metadata is local only (exit 2, naming rados-migrate), which
# `destor rados-migrate` then moves into the cluster.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
printf 'container-size 128K\n' >> "$CONFIG"
mkdir -p "$SCRATCH/src1/d" "$SCRATCH/src2" "$SCRATCH/src3"
pseudo_random 2000000 1 > "$SCRATCH/src1/d/big.bin"
echo small > "$SCRATCH/src1/small.txt"
cp "$SCRATCH/src1/d/big.bin" "$SCRATCH/src2/copy.bin"
pseudo_random 300000 2 > "$SCRATCH/src2/new.bin"
pseudo_random 400000 3 > "$SCRATCH/src3/third.bin"

# jobs_of DIR: the live jobs' ids, as stat lists them.
jobs_of() { at "$1" stat --json | "$PYTHON" -c 'import json,sys; print(" ".join(str(j["job"]) for j in json.load(sys.stdin)["jobs"]))'; }
# restores DIR JOB SRC: job JOB restores as SRC, and one file reads as its original.
restores() {
    rm -rf "$SCRATCH/r"
    at "$1" restore "$2" "$SCRATCH/r" > /dev/null
    same_tree "$3" "$SCRATCH/r"
}

at a backup "$SCRATCH/src1" > /dev/null
[ ! -e "$SCRATCH/b" ] || fail "working directory b exists before its first command"
[ "$(jobs_of b)" = "0" ] || fail "b does not list a's job: $(jobs_of b)"
restores b 0 "$SCRATCH/src1"
at b read-file 0 d/big.bin -o "$SCRATCH/out"
cmp "$SCRATCH/out" "$SCRATCH/src1/d/big.bin" || fail "read-file from b differs"
note "a second working directory, given only the conf, lists, restores and reads a's job byte for byte"

# b's backup finds a's chunks: only new.bin is stored.
at b backup --json "$SCRATCH/src2" > "$SCRATCH/b.json"
stored=$(json_field "$SCRATCH/b.json" stored_bytes)
[ "$stored" -eq 300000 ] || fail "b's backup stored $stored bytes, expected only new.bin's 300000"
[ "$(jobs_of a)" = "0 1" ] || fail "a does not list b's job: $(jobs_of a)"
restores a 1 "$SCRATCH/src2"
at a verify --deep > /dev/null || fail "a does not verify after b's backup"
note "b's backup deduplicated against a's chunks (stored $stored bytes); a sees and restores it"

# a is removed mid-life: nothing is lost; a backs up again from the cluster alone.
rm -rf "$SCRATCH/a"
[ "$(jobs_of a)" = "0 1" ] || fail "a, re-created, lists $(jobs_of a)"
restores a 0 "$SCRATCH/src1"
restores a 1 "$SCRATCH/src2"
at a backup --json "$SCRATCH/src1" > "$SCRATCH/a.json"
[ "$(json_field "$SCRATCH/a.json" stored_bytes)" -eq 0 ] || fail "a, re-created, stored src1 again"
at a backup "$SCRATCH/src3" > /dev/null
restores b 3 "$SCRATCH/src3"
note "working directory a removed: its jobs restore from the cluster alone, its next backups dedup and commit"

# A delete and gc from b; a sees both, and what it reads stays whole.
# held: a working directory that restored job 1 alone before the gc;
# after it, its copy of job 1's records names containers gc copied and
# freed, so its next restore of job 1 fetches them again.
restores held 1 "$SCRATCH/src2"
at b delete 0 2 > /dev/null
at b gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" containers_copied)" -gt 0 ] || fail "b's gc copied no container: $(cat "$SCRATCH/gc.json")"
restores held 1 "$SCRATCH/src2"
[ "$(ls "$SCRATCH/held/jobs")" = "00000001" ] || fail "held holds $(ls "$SCRATCH/held/jobs")"
[ "$(jobs_of a)" = "1 3" ] || fail "a lists $(jobs_of a) after b deleted 0 and 2"
expect_status 2 at a restore 0 "$SCRATCH/nowhere"
restores a 1 "$SCRATCH/src2"
restores a 3 "$SCRATCH/src3"
at a verify --deep > /dev/null || fail "a does not verify after b's gc"
at a backup --json "$SCRATCH/src1" > "$SCRATCH/a2.json"
restores b 4 "$SCRATCH/src1"
at b verify --deep > /dev/null || fail "b does not verify after a's backup past gc"
note "delete and gc from b: a refuses the deleted jobs, restores the others, and backs up past the gc"

# stat on a new machine reads the cluster's catalog alone: the writer's
# answers (deleted jobs, the freed list, the counts), and no job pulled
# into its working directory; a later restore there pulls as usual.
at b stat --json | answers > "$SCRATCH/b.stat"
at fresh stat --json | answers > "$SCRATCH/fresh.stat"
cmp "$SCRATCH/b.stat" "$SCRATCH/fresh.stat" || fail "a new machine's stat differs from the writer's"
[ ! -e "$SCRATCH/fresh/jobs" ] || fail "stat on a new machine pulled jobs into its working directory"
note "stat on a new machine: the writer's answers from the catalog, nothing pulled"

# restore, read-file and list of one job on a new machine bring that job
# alone into its working directory; a deleted job is refused as before;
# a later full open (verify) brings the rest in from that partial cache.
# held DIR: the jobs DIR's working directory holds.
held() { ls "$SCRATCH/$1/jobs" 2>/dev/null | tr '\n' ' '; }
restores fresh 4 "$SCRATCH/src1"
[ "$(held fresh)" = "00000004 " ] || fail "restore of job 4 on a new machine brought in: $(held fresh)"
at fresh-r read-file 3 third.bin -o "$SCRATCH/out"
cmp "$SCRATCH/out" "$SCRATCH/src3/third.bin" || fail "read-file from a new machine differs"
at fresh-r list 1 > "$SCRATCH/list1"
grep -q "new.bin" "$SCRATCH/list1" || fail "list 1 on a new machine: $(cat "$SCRATCH/list1")"
[ "$(held fresh-r)" = "00000001 00000003 " ] || fail "read-file 3 and list 1 on a new machine brought in: $(held fresh-r)"
expect_status 2 at fresh-d restore 0 "$SCRATCH/nowhere"
grep -q "job 0 was deleted" "$SCRATCH/err" || fail "deleted job on a new machine: $(cat "$SCRATCH/err")"
expect_status 2 at fresh-d restore 9 "$SCRATCH/nowhere"
grep -q "job 9 does not exist" "$SCRATCH/err" || fail "missing job on a new machine: $(cat "$SCRATCH/err")"
at fresh verify --deep > /dev/null || fail "a full open from a partial cache does not verify"
[ "$(held fresh)" = "00000000 00000001 00000002 00000003 00000004 " ] || fail "the full open left: $(held fresh)"
restores fresh 1 "$SCRATCH/src2"
note "restore, read-file, list on a new machine: that job alone pulled; a full open then completes the cache"

# Errors, one line each.
expect_status 2 "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/c" -p"rados-namespace empty" stat
grep -q "no store in working directory $SCRATCH/c nor in RADOS pool $RADOS_POOL namespace 'empty'" "$SCRATCH/err" ||
    fail "empty namespace: $(cat "$SCRATCH/err")"
on other backup "$SCRATCH/src3" > /dev/null
expect_status 2 "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/a" -p"rados-namespace other" stat
grep -q "namespace 'other' belongs to another store" "$SCRATCH/err" || fail "another store's namespace: $(cat "$SCRATCH/err")"
note "a namespace without a store, a namespace holding another store: exit 2, one line"

# An older rados store: containers and identity in the namespace, the
# rest in its working directory only (made here by taking the rest away).
on old backup "$SCRATCH/src1" > /dev/null
on old backup "$SCRATCH/src2" > /dev/null
on old delete 0 > /dev/null
rados_cli -N old ls | grep -v -e '^container\.' -e '^destor\.store$' -e '^destor\.lock$' > "$SCRATCH/meta-objects"
[ -s "$SCRATCH/meta-objects" ] || fail "no metadata objects to take away"
while read -r obj; do rados_cli -N old rm "$obj"; done < "$SCRATCH/meta-objects"
for w in old old-b; do
    expect_status 2 "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/$w" -p"rados-namespace old" stat
    grep -q "run 'destor rados-migrate'" "$SCRATCH/err" || fail "older store from $w: $(cat "$SCRATCH/err")"
done
on old rados-migrate > "$SCRATCH/migrated"
grep -q "^2 jobs moved into RADOS pool $RADOS_POOL namespace 'old'" "$SCRATCH/migrated" || fail "migrate: $(cat "$SCRATCH/migrated")"
old_b() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/old-b" -p"rados-namespace old" "$@"; }
expect_status 2 old_b restore 0 "$SCRATCH/nowhere"
rm -rf "$SCRATCH/r"
old_b restore 1 "$SCRATCH/r" > /dev/null
same_tree "$SCRATCH/src2" "$SCRATCH/r"
old_b verify --deep > /dev/null || fail "the migrated store does not verify from another working directory"
on old rados-migrate | grep -q "^0 jobs moved" || fail "a second rados-migrate moved jobs again"
note "an older store is refused naming rados-migrate, which moves it; then any working directory opens it"
