#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_osd_kill.sh: the OSD killed (SIGKILL by its PID) in the middle of
# a backup, on a cluster whose OSD keeps its objects in a file (bluestore),
# so that it comes back with them. The backup, held at its second container
# write while the OSD dies, fails with one `destor:` line within its client
# timeout and commits nothing, and read-file fails likewise; once the OSD is back, the committed job
# restores and verifies deeply, and the next backup commits and verifies.
# Then the OSD killed at a backup's commit (its catalog write, held there):
# the same, and nothing committed; and the monitor killed and restarted:
# a command needing it meanwhile fails within its timeout with one line;
# once it is back, every job restores from a new working directory,
# verify --deep passes and a backup commits.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup bluestore
printf 'container-size 128K\nrados-lock-duration 3\n' >> "$CONFIG"
mkdir -p "$SCRATCH/src" "$SCRATCH/src2"
pseudo_random 600000 1 > "$SCRATCH/src/a.bin"
pseudo_random 900000 2 > "$SCRATCH/src2/b.bin"
cp "$SCRATCH/src/a.bin" "$SCRATCH/src2/"
on s backup "$SCRATCH/src" > /dev/null

# osd_killed_under SHIM_SETTING SRC: a backup of SRC held by the shim where
# SHIM_SETTING says, the OSD killed, the backup continued ($writer).
osd_killed_under() {
    env LD_PRELOAD="$TOP_BUILDDIR/tests/rados/rados_shim.so" "$1" RADOS_SHIM_ACTION=stop \
        "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/s" -p"rados-namespace s" \
        backup "$2" > /dev/null 2> "$SCRATCH/backup.err" &
    writer=$!
    wait_stopped "$writer"
    osd_kill
    kill -CONT "$writer"
}
osd_killed_under RADOS_SHIM_AT=2 "$SCRATCH/src2"
set +e
timeout 120 sh -c "while kill -0 $writer 2>/dev/null; do sleep 0.2; done"
wait "$writer"
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$SCRATCH/backup.err" >&2; fail "the backup with its OSD killed exited $rc"; }
[ "$(grep -c . "$SCRATCH/backup.err")" -eq 1 ] && grep -q "^destor: .*no answer from the Ceph cluster within 5 s" \
    "$SCRATCH/backup.err" || fail "the backup with its OSD killed: $(cat "$SCRATCH/backup.err")"
[ ! -e "$SCRATCH/s/jobs/00000001/manifest" ] || fail "a job was committed without its OSD"
# Readers too give up within the timeout, with one line.
expect_status 1 timeout 60 "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/s" -p"rados-namespace s" \
    read-file 0 a.bin -o "$SCRATCH/a.out"
grep -q "no answer from the Ceph cluster within 5 s" "$SCRATCH/err" || fail "read-file without its OSD: $(cat "$SCRATCH/err")"
[ "$(grep -c . "$SCRATCH/err")" -eq 1 ] || fail "read-file without its OSD: $(cat "$SCRATCH/err")"
note "the OSD killed mid-backup: exit 1, one destor: line, nothing committed; read-file exits 1 likewise"

osd_start
on s restore 0 "$SCRATCH/r0" > /dev/null
same_tree "$SCRATCH/src" "$SCRATCH/r0"
on s verify --deep > /dev/null || fail "the store does not verify once the OSD is back"
i=0
until on s backup "$SCRATCH/src2" > /dev/null 2> "$SCRATCH/err"; do
    grep -q "another writer holds the store's lock" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "backup once the OSD is back"; }
    i=$((i + 1))
    [ "$i" -lt 30 ] || fail "the failed backup's lock never expired"
    sleep 1
done
on s verify --deep > /dev/null || fail "the store does not verify after the next backup"
on s restore 1 "$SCRATCH/r1" > /dev/null
same_tree "$SCRATCH/src2" "$SCRATCH/r1"
note "the OSD back: the committed job restores, the next backup commits, verify --deep passes"

# The OSD killed while a backup is held at its commit (the catalog's write).
mkdir -p "$SCRATCH/src3"
pseudo_random 500000 3 > "$SCRATCH/src3/c.bin"
osd_killed_under RADOS_SHIM_AT_OBJECT=destor.jobs "$SCRATCH/src3"
set +e
wait "$writer"
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$SCRATCH/backup.err" >&2; fail "the backup whose OSD died at its commit exited $rc"; }
[ "$(grep -c . "$SCRATCH/backup.err")" -eq 1 ] || fail "the backup whose OSD died at its commit: $(cat "$SCRATCH/backup.err")"
osd_start
[ "$(on s stat --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["job_count"])')" -eq 2 ] ||
    fail "the backup whose OSD died at its commit committed a job"
for job in 0:src 1:src2; do
    rm -rf "$SCRATCH/r"
    at fresh restore "${job%:*}" "$SCRATCH/r" > /dev/null
    same_tree "$SCRATCH/${job#*:}" "$SCRATCH/r"
done
at fresh verify --deep > /dev/null || fail "the store does not verify from a new machine after the OSD died at a commit"
when_unlocked on s backup "$SCRATCH/src3"
on s verify --deep > /dev/null || fail "the store does not verify after the backup that followed"
note "the OSD killed at a backup's commit: exit 1, one line, nothing committed; a new machine restores and verifies"

# The monitor killed and restarted.
mon_kill
expect_status 1 timeout 60 "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/fresh2" -p"rados-namespace s" \
    restore 2 "$SCRATCH/nowhere"
[ "$(grep -c . "$SCRATCH/err")" -eq 1 ] && grep -q "^destor: .*no answer from the Ceph cluster within 5 s" "$SCRATCH/err" ||
    fail "a command without the monitor: $(cat "$SCRATCH/err")"
mon_start
wait_for 60 ceph_cmd osd stat
for job in 0:src 1:src2 2:src3; do
    rm -rf "$SCRATCH/r"
    at fresh2 restore "${job%:*}" "$SCRATCH/r" > /dev/null
    same_tree "$SCRATCH/${job#*:}" "$SCRATCH/r"
done
at fresh2 verify --deep > /dev/null || fail "the store does not verify after the monitor's restart"
on s backup "$SCRATCH/src" > /dev/null
note "the monitor killed: a new command exits 1 with one line; restarted, every job restores and verifies, a backup commits"
