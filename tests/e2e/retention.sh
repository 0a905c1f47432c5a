#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# retention.sh: backup-retention-time N (Destor's key, issue 26): after each
# backup the live jobs older than the newest N are deleted and gc runs.
# With N=2 over four versions: stderr and --json name the deleted jobs and
# what gc freed; the kept jobs restore byte for byte, the deleted ones are
# refused (exit 2) by restore and read-file; verify --deep passes. A
# reader holding the store defers gc and the backup still succeeds; a
# negative value keeps every backup; a smaller N later deletes down to it.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

printf 'container-size 128K\nbackup-retention-time 2\n' >> "$CONFIG"
W="$SCRATCH/working"
for v in 0 1 2 3 4 5; do
    mkdir -p "$SCRATCH/v$v/d"
    pseudo_random 250000 "$((60 + v))" > "$SCRATCH/v$v/d/own.bin"
    pseudo_random 180000 59 > "$SCRATCH/v$v/shared.bin"
    echo "version $v" > "$SCRATCH/v$v/note.txt"
done

dst backup "$SCRATCH/v0" >/dev/null 2>"$SCRATCH/err0"
grep -qx 'destor: backup-retention-time 2: no job deleted' "$SCRATCH/err0" || { cat "$SCRATCH/err0" >&2; fail "v0: no retention line"; }
dst backup "$SCRATCH/v1" >/dev/null 2>/dev/null
dst backup "$SCRATCH/v2" >/dev/null 2>"$SCRATCH/err2"
grep -q '^destor: backup-retention-time 2: deleted job 0; gc freed [1-9][0-9]* containers' "$SCRATCH/err2" ||
    { cat "$SCRATCH/err2" >&2; fail "v2: job 0 not deleted and collected"; }
dst backup "$SCRATCH/v3" --json > "$SCRATCH/b3.json"
"$PYTHON" - "$SCRATCH/b3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["retention"]
assert d["job"] == 3 and r["keep"] == 2 and r["deleted_jobs"] == [1], d
assert r["gc_ran"] and not r["gc_deferred"] and r["containers_freed"] > 0, r
assert r["reclaimed_bytes"] == r["containers_freed"] * 128 * 1024, r
PY

check_jobs() { # check_jobs KEPT... : those restore as their trees; the rest up to 3 are refused
    for j in 0 1 2 3; do
        if echo " $* " | grep -q " $j "; then
            rm -rf "$SCRATCH/r$j"
            dst restore "$j" "$SCRATCH/r$j" >/dev/null
            same_tree "$SCRATCH/v$j" "$SCRATCH/r$j"
        else
            expect_status 2 dst restore "$j" "$SCRATCH/gone$j"
            grep -q "job $j was deleted" "$SCRATCH/err" || fail "restore of deleted job $j: $(cat "$SCRATCH/err")"
            expect_status 2 dst read-file "$j" note.txt -o "$SCRATCH/gone"
        fi
    done
    dst verify --deep >/dev/null
}
check_jobs 2 3
note "retention 2: jobs 0 and 1 deleted and collected, 2 and 3 restore"

# a reader has the store open: gc defers, the backup succeeds
"$PYTHON" - "$W/READERS" "$SCRATCH/held" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_SH)
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PY
holder=$!
while [ ! -e "$SCRATCH/held" ]; do sleep 0.05; done
dst backup "$SCRATCH/v4" --json > "$SCRATCH/b4.json" 2>"$SCRATCH/err4" || { cat "$SCRATCH/err4" >&2; fail "backup beside a reader failed"; }
rm "$SCRATCH/held"
wait "$holder"
"$PYTHON" - "$SCRATCH/b4.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["retention"]
assert r["deleted_jobs"] == [2] and r["gc_ran"] and r["gc_deferred"] and r["containers_freed"] == 0, r
PY
expect_status 2 dst restore 2 "$SCRATCH/gone2"
dst gc --json > "$SCRATCH/gc.json"
[ "$(json_field "$SCRATCH/gc.json" containers_freed)" -gt 0 ] || fail "the deferred gc's space was not freed later"
rm -rf "$SCRATCH/r4" && dst restore 4 "$SCRATCH/r4" >/dev/null && same_tree "$SCRATCH/v4" "$SCRATCH/r4"
note "a reader defers retention's gc; the backup succeeds and the next gc frees the space"

# negative: every backup kept; then retention 1 deletes down to one
dst -p"backup-retention-time -1" backup "$SCRATCH/v5" --json > "$SCRATCH/b5.json" 2>"$SCRATCH/err5"
[ ! -s "$SCRATCH/err5" ] || { cat "$SCRATCH/err5" >&2; fail "retention -1 said something"; }
"$PYTHON" -c 'import json,sys; assert "retention" not in json.load(open(sys.argv[1]))' "$SCRATCH/b5.json"
[ "$(dst stat --json | "$PYTHON" -c 'import json,sys; print(len([j for j in json.load(sys.stdin)["jobs"]]))')" -ge 3 ] ||
    fail "retention -1 deleted jobs"
dst -p"backup-retention-time 1" backup "$SCRATCH/v5" >/dev/null 2>"$SCRATCH/err6"
grep -q '^destor: backup-retention-time 1: deleted jobs 3, 4, 5;' "$SCRATCH/err6" || { cat "$SCRATCH/err6" >&2; fail "retention 1 did not delete jobs 3 to 5"; }
rm -rf "$SCRATCH/r6" && dst restore 6 "$SCRATCH/r6" >/dev/null && same_tree "$SCRATCH/v5" "$SCRATCH/r6"
dst verify --deep >/dev/null
note "retention -1 keeps every backup; retention 1 then keeps only the newest"

expect_status 2 dst -p"backup-retention-time 0" backup "$SCRATCH/v0"
grep -q "'0' for backup-retention-time" "$SCRATCH/err" || fail "retention 0: $(cat "$SCRATCH/err")"
