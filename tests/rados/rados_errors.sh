#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_errors.sh: bad input and a second writer on a rados store. A
# missing conf, a pool the cluster lacks, missing or bad rados-* keys: exit
# 2 with one `destor:` line; a cluster nobody answers for: exit 1 within
# the bounded client timeouts (never a hang); a second writer (another
# working directory of the same store, as on another machine) while the
# first holds the RADOS lock: refused (exit 1), readers not; once the
# first stops renewing (SIGSTOP), its lock expires and the second commits;
# the first, continued, fails without committing; both working directories
# see the second's job; the store verifies. The same with the first stopped
# at its commit: the OSD refuses it, the second's job stays whole.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
printf 'container-size 128K\n' >> "$CONFIG"
mkdir -p "$SCRATCH/src" "$SCRATCH/src2"
pseudo_random 3000000 1 > "$SCRATCH/src/a.bin"
pseudo_random 2000000 2 > "$SCRATCH/src2/b.bin"
on s backup "$SCRATCH/src" > /dev/null

# Each command that opens the store, as TAIL arguments after `on s`.
for_each_command() {
    for cmd in "stat" "backup $SCRATCH/src" "restore 0 $SCRATCH/nowhere" "read-file 0 a.bin" "verify" "repair"; do
        # shellcheck disable=SC2086
        "$@" $cmd
    done
}
expect_status_2() { expect_status 2 on s "$@"; }
for_each_command expect_status_2 -p"rados-conf $SCRATCH/missing.conf"
grep -q "rados-conf $SCRATCH/missing.conf: no such file" "$SCRATCH/err" || fail "missing conf: $(cat "$SCRATCH/err")"
for_each_command expect_status_2 -p"rados-pool no-such-pool"
grep -q "rados-pool no-such-pool: no such pool" "$SCRATCH/err" || fail "wrong pool: $(cat "$SCRATCH/err")"
printf 'working-directory "%s/s"\ncontainer-store rados\nrados-pool %s\n' "$SCRATCH" "$RADOS_POOL" > "$SCRATCH/noconf.config"
expect_status 2 "$DESTOR_BIN" -c "$SCRATCH/noconf.config" stat
grep -q "container-store rados needs rados-conf and rados-pool" "$SCRATCH/err" || fail "no rados-conf: $(cat "$SCRATCH/err")"
for bad in "rados-timeout 0" "rados-timeout 3601" "rados-lock-duration 2" "rados-pool" "rados-conf ''" \
    "rados-namespace a b"; do
    expect_status 2 on s -p"$bad" stat
done
[ ! -e "$SCRATCH/nowhere" ] || fail "a refused restore wrote its target"
note "missing conf, wrong pool, missing or bad rados-* keys: exit 2"

# A cluster nobody answers for: a monitor address nothing listens on.
sed "s/^mon host = .*/mon host = [v2:127.0.0.1:$(free_port)]/" "$CEPH_CONF" > "$SCRATCH/dead.conf"
expect_unreachable() {
    expect_status 1 timeout 60 "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/s" -p"rados-namespace s" \
        -p"rados-conf $SCRATCH/dead.conf" -p"rados-timeout 2" "$@"
    grep -q "no answer from the Ceph cluster within 2 s" "$SCRATCH/err" || fail "unreachable: $(cat "$SCRATCH/err")"
}
for_each_command expect_unreachable
note "an unreachable cluster: exit 1 once the client timeouts run out"

# A second writer: the same store in another working directory, as on a
# second machine (the local flock cannot see it; the RADOS lock does).
cp -r "$SCRATCH/s" "$SCRATCH/s2"
on2() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/s2" -p"rados-namespace s" -p"rados-lock-duration 3" "$@"; }
env LD_PRELOAD="$TOP_BUILDDIR/tests/rados/rados_shim.so" RADOS_SHIM_AT=1 RADOS_SHIM_ACTION=stop \
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/s" -p"rados-namespace s" -p"rados-lock-duration 3" \
    backup "$SCRATCH/src2" > "$SCRATCH/first.out" 2> "$SCRATCH/first.err" &
first=$!
wait_stopped "$first"
expect_status 1 on2 backup "$SCRATCH/src2"
grep -q "another writer holds the store's lock" "$SCRATCH/err" || fail "second writer: $(cat "$SCRATCH/err")"
on2 restore 0 "$SCRATCH/r0" > /dev/null
same_tree "$SCRATCH/src" "$SCRATCH/r0"
# second_commits CMD...: run CMD (a backup) until the stopped first
# writer's lock has expired and CMD commits; then continue the first and
# leave its exit status in $rc.
second_commits() {
    i=0
    until "$@" > /dev/null 2> "$SCRATCH/err"; do
        grep -q "another writer holds the store's lock" "$SCRATCH/err" || fail "second writer: $(cat "$SCRATCH/err")"
        i=$((i + 1))
        [ "$i" -lt 30 ] || fail "the stopped writer's lock never expired"
        sleep 1
    done
    kill -CONT "$first"
    set +e
    wait "$first"
    rc=$?
    set -e
}
# Stopped, the first writer renews nothing: its lock expires.
second_commits on2 backup "$SCRATCH/src2"
[ "$rc" -eq 1 ] || fail "the first writer, continued after losing its lock, exited $rc"
grep -q -E "^destor: .*(was lost|already exists in RADOS)" "$SCRATCH/first.err" || fail "first writer: $(cat "$SCRATCH/first.err")"
# Both working directories now see the second writer's job 1 (the store
# is the cluster's) and nothing of the first writer's.
[ "$(on s stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])')" -eq 2 ] || fail "the first writer committed a job after losing its lock"
# (stat pulls no job: list brings job 1 into s, as any read of it does)
on s list 1 > /dev/null
cmp -s "$SCRATCH/s/jobs/00000001/manifest" "$SCRATCH/s2/jobs/00000001/manifest" || fail "job 1 is not the second writer's"
on2 verify --deep > /dev/null || fail "the second writer's store does not verify"
on2 restore 1 "$SCRATCH/r1" > /dev/null
same_tree "$SCRATCH/src2" "$SCRATCH/r1"
note "a second writer: refused while the lock is held, in once it expired; the first then fails uncommitted"

# The same, the first writer stopped at the RADOS write of the job
# catalog entry that commits its job 1: once continued it is refused by the
# OSD (the entry is the second writer's now), exits 1, and the second
# writer's job 1 stays whole (the first wrote only objects of its own name).
on c backup "$SCRATCH/src" > /dev/null
env LD_PRELOAD="$TOP_BUILDDIR/tests/rados/rados_shim.so" RADOS_SHIM_AT_OBJECT=destor.jobs RADOS_SHIM_ACTION=stop \
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/c" -p"rados-namespace c" -p"rados-lock-duration 3" \
    backup "$SCRATCH/src2" > "$SCRATCH/first.out" 2> "$SCRATCH/first.err" &
first=$!
wait_stopped "$first"
onc2() { "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/c2" -p"rados-namespace c" "$@"; }
second_commits onc2 backup "$SCRATCH/src2"
[ "$rc" -eq 1 ] || fail "the first writer, continued at its commit after losing its lock, exited $rc"
grep -q "^destor: job 1 was committed in RADOS pool $RADOS_POOL namespace 'c' by another writer" "$SCRATCH/first.err" ||
    fail "first writer at its commit: $(cat "$SCRATCH/first.err")"
[ ! -e "$SCRATCH/c/jobs/00000001/manifest" ] || fail "the refused writer published its manifest"
rm -rf "$SCRATCH/c3"
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/c3" -p"rados-namespace c" list 1 > /dev/null
cmp -s "$SCRATCH/c3/jobs/00000001/manifest" "$SCRATCH/c2/jobs/00000001/manifest" || fail "job 1 is not the second writer's"
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/c3" -p"rados-namespace c" verify --deep > /dev/null ||
    fail "the store does not verify after the refused commit"
note "a writer that lost its lock at its commit: refused by the OSD (exit 1), the other writer's job 1 whole"
