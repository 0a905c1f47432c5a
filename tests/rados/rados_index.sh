#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_index.sh: a rados store's fingerprint index in the cluster
# (store_index.h). Its shards and state are objects of the namespace; a
# working directory with nothing in it, or one that lags, takes its index
# from them and the committed jobs' entries: its backup deduplicates
# against every committed job's chunks, also when the writer before was
# killed between its commit and the shards' merge. An uncommitted job's
# entries are never taken: a writer killed just before its commit, its
# containers then lost (as an uncommitted job's may be), and the next
# backup from another working directory, storing the same files, restores
# byte for byte and verifies (taking the dead job's entries would name the
# lost containers, whose ids the next backup writes anew); gc removes its
# objects. repair sets a damaged recipe omap entry again from the records.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"
SHIM="$TOP_BUILDDIR/tests/rados/rados_shim.so"
mkdir -p "$SCRATCH/src1" "$SCRATCH/src2"
pseudo_random 600000 1 > "$SCRATCH/src1/one.bin"
pseudo_random 500000 2 > "$SCRATCH/src2/two.bin"

# shimmed DIR AT ACTION CMD...: `at` with the shim preloaded, acting at object AT.
shimmed() {
    d=$1
    obj=$2
    act=$3
    shift 3
    env LD_PRELOAD="$SHIM" RADOS_SHIM_AT_OBJECT="$obj" RADOS_SHIM_ACTION="$act" "$DESTOR_BIN" -c "$CONFIG" \
        -p"working-directory $SCRATCH/$d" -p"rados-namespace s" "$@"
}
stored_by() { at "$1" backup --json "$2" > "$SCRATCH/b.json" && json_field "$SCRATCH/b.json" stored_bytes; }
restores() {
    rm -rf "$SCRATCH/r"
    at "$1" restore "$2" "$SCRATCH/r" > /dev/null
    same_tree "$3" "$SCRATCH/r"
}
[ "$(stored_by a "$SCRATCH/src1")" -eq 600000 ] || fail "the first backup did not store src1"
rados_cli -N s ls > "$SCRATCH/objects"
grep -q '^destor\.index$' "$SCRATCH/objects" || fail "no destor.index object"
grep -q '^destor\.index\.[0-9a-f][0-9a-f]$' "$SCRATCH/objects" || fail "no index shard"
grep -q '^job\.00000000\.[0-9a-f]*\.index$' "$SCRATCH/objects" || fail "no job index object"
shard=$(grep -m1 '^destor\.index\.' "$SCRATCH/objects")
rados_cli -N s listomapkeys "$shard" | grep -qE '^[0-9a-f]{40}([0-9a-f]{24})?$' || fail "$shard holds no fingerprint key"
[ -e "$SCRATCH/a/index/CLUSTER" ] || fail "a's index does not record the cluster state it holds"
note "a backup writes its index entries, the shards and their state into the namespace"

# An empty working directory takes the index from the cluster.
[ "$(stored_by b "$SCRATCH/src1")" -eq 0 ] || fail "b, new, stored src1 again"
restores b 1 "$SCRATCH/src1"
note "a new working directory deduplicates against the first's chunks"

# Killed after the commit, before the shards' merge: the next writer, elsewhere, still finds the job's chunks.
set +e
shimmed a destor.index kill backup "$SCRATCH/src2" > /dev/null 2>&1
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "a's backup was not killed at the index state (exit $rc)"
rm -rf "$SCRATCH/c"
when_unlocked at c backup --json "$SCRATCH/src2"
[ "$(json_field "$SCRATCH/out" stored_bytes)" -eq 0 ] || fail "c stored src2, whose job committed before the kill"
restores c 2 "$SCRATCH/src2"
note "killed between commit and merge: a new working directory finds the committed job's chunks"

# Killed just before the commit, its containers then lost: never taken.
pseudo_random 700000 3 > "$SCRATCH/src3.bin"
mkdir -p "$SCRATCH/src3"
mv "$SCRATCH/src3.bin" "$SCRATCH/src3/three.bin"
rados_cli -N s ls | grep '^container\.' | sort > "$SCRATCH/before"
set +e
shimmed a destor.jobs kill backup "$SCRATCH/src3" > /dev/null 2>&1
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "a's backup was not killed at its commit (exit $rc)"
rados_cli -N s ls | grep '^container\.' | sort > "$SCRATCH/after"
comm -13 "$SCRATCH/before" "$SCRATCH/after" > "$SCRATCH/orphans"
[ -s "$SCRATCH/orphans" ] || fail "the killed backup wrote no container"
dead=$(rados_cli -N s ls | sed -n 's/^job\.00000004\.\([0-9a-f]*\)\.index$/\1/p')
[ -n "$dead" ] || fail "the killed backup wrote no index object"
while read -r obj; do rados_cli -N s rm "$obj"; done < "$SCRATCH/orphans"
rm -rf "$SCRATCH/d"
when_unlocked at d backup --json "$SCRATCH/src3"
[ "$(json_field "$SCRATCH/out" stored_bytes)" -eq 700000 ] || fail "d did not store src3 itself"
restores d 4 "$SCRATCH/src3"
at d verify --deep > /dev/null || fail "d does not verify"
restores a 4 "$SCRATCH/src3"
[ "$(stored_by a "$SCRATCH/src3")" -eq 0 ] || fail "a did not find d's chunks"
note "an uncommitted job's entries are never taken: the next backup stores its files and restores them"

# gc elsewhere: the shards rewritten; a lagging working directory reloads them.
at b delete 0 1 > /dev/null
at b gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" uncommitted_objects_removed)" -ge 4 ] || fail "gc removed $(json_field "$SCRATCH/gc.json" uncommitted_objects_removed) objects of the uncommitted job"
! rados_cli -N s ls | grep -q "^job\.00000004\.$dead\." || fail "the uncommitted job's objects outlive gc"
rados_cli -N s ls | grep -q '^job\.00000004\..*\.records$' || fail "gc removed the committed job 4's records"
at c verify --deep > /dev/null || fail "c does not verify after b's gc"
[ "$(stored_by c "$SCRATCH/src2")" -eq 0 ] || fail "c stored src2 again after b's gc"
[ "$(stored_by e "$SCRATCH/src1")" -eq 600000 ] || fail "e, new, did not store src1 (gc freed it)"
restores e 6 "$SCRATCH/src2"
restores c 7 "$SCRATCH/src1"
at c verify --deep > "$SCRATCH/v" 2>&1 || { cat "$SCRATCH/v"; fail "c does not verify at the end"; }
note "after a gc from another working directory (which removed the uncommitted job's objects), the index holds no freed chunk and every job restores"

# repair: a damaged recipe omap entry in the cluster (a new working
# directory refuses to bring the job in) is set again from the records.
obj=$(rados_cli -N s ls | grep '^job\.00000003\..*\.recipe$')
key=$(rados_cli -N s listomapkeys "$obj" | grep 'two\.bin$')
rados_cli -N s setomapval "$obj" "$key" bad
rm -rf "$SCRATCH/f"
expect_status 3 at f read-file 3 two.bin -o "$SCRATCH/two"
at c repair > /dev/null
rm -rf "$SCRATCH/f"
at f read-file 3 two.bin -o "$SCRATCH/two" > /dev/null
cmp "$SCRATCH/two" "$SCRATCH/src2/two.bin" || fail "read-file after repair differs"
note "repair sets a damaged recipe omap entry again from the job's records"
