#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# delete_gc.sh: `destor delete` and `destor gc` on a store of three jobs
# sharing chunks. A deleted job is refused at once by every reader (exit 2)
# and left out of stat; bad operands and a store another writer holds
# change nothing; gc frees exactly the containers no live job names (stat
# said how many bytes before), then empties the sparse ones (their live
# chunks copied into fewer new containers, the live job's records
# rewritten); ids are never reused, every live job restores byte for byte
# and verify --deep passes; a last gc finds nothing; repair after gc
# rebuilds a store that verifies.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

W="$SCRATCH/working"
lifecycle_trees
printf 'container-size 128K\n' >> "$CONFIG"
for t in a b c; do dst backup "$SCRATCH/$t" >/dev/null; done

snapshot() { (cd "$W" && find . -type f ! -name LOCK ! -name READERS -exec sha256sum {} + | sort) > "$1"; }

# bad operands: nothing changes
snapshot "$SCRATCH/before"
expect_status 2 dst delete
expect_status 2 dst delete 7
grep -q 'job 7 does not exist' "$SCRATCH/err" || fail "unknown job: $(cat "$SCRATCH/err")"
expect_status 2 dst delete 0 x
expect_status 2 dst delete 1 1
grep -q 'named twice' "$SCRATCH/err" || fail "a job named twice: $(cat "$SCRATCH/err")"
expect_status 2 dst gc extra
snapshot "$SCRATCH/after"
cmp -s "$SCRATCH/before" "$SCRATCH/after" || fail "a refused delete or gc changed the store"

# another writer holds the store: delete and gc refuse, nothing changes
exec 9>"$W/LOCK"
flock 9
expect_status 1 dst delete 0
grep -q 'another writer (backup, delete, gc or repair) is running' "$SCRATCH/err" || fail "delete beside a writer: $(cat "$SCRATCH/err")"
expect_status 1 dst gc
exec 9>&-
snapshot "$SCRATCH/after"
cmp -s "$SCRATCH/before" "$SCRATCH/after" || fail "delete or gc beside a writer changed the store"

# a store no writer of this version opened has no READERS: readers running
# then hold no lock gc could see, so the gc that creates it frees nothing
rm "$W/READERS"
dst gc --json > "$SCRATCH/gc_new.json"
[ "$(json_field "$SCRATCH/gc_new.json" deferred)" = True ] || fail "gc that made READERS did not defer"
[ -e "$W/READERS" ] || fail "gc did not create READERS"

# nothing deleted, nothing copied (gc-live-threshold 0): gc frees nothing
dst -p"gc-live-threshold 0" gc --json > "$SCRATCH/gc0.json"
[ "$(json_field "$SCRATCH/gc0.json" containers_freed)" -eq 0 ] || fail "gc freed containers of live jobs"
expect_status 2 dst -p"gc-live-threshold 1.5" gc
expect_status 2 dst -p"gc-live-threshold half" gc

# delete in any order: the newest and the oldest
dst delete 2 0 > "$SCRATCH/out"
grep -q 'job 2 deleted' "$SCRATCH/out" || fail "delete said: $(cat "$SCRATCH/out")"
for j in 0 2; do
    expect_status 2 dst list "$j"
    grep -q "job $j was deleted" "$SCRATCH/err" || fail "list of deleted job $j: $(cat "$SCRATCH/err")"
    expect_status 2 dst restore "$j" "$SCRATCH/r$j"
    expect_status 2 dst read-file "$j" only_a.bin
    expect_status 2 dst verify "$j"
done
expect_status 2 dst delete 0
grep -q 'job 0 was deleted' "$SCRATCH/err" || fail "a second delete: $(cat "$SCRATCH/err")"
dst stat --json > "$SCRATCH/stat.json"
[ "$(json_field "$SCRATCH/stat.json" job_count)" -eq 1 ] || fail "stat counts deleted jobs"
[ "$(json_field "$SCRATCH/stat.json" deleted_jobs)" -eq 2 ] || fail "stat: deleted_jobs"
reclaimable=$(json_field "$SCRATCH/stat.json" reclaimable_bytes)
[ "$reclaimable" -gt 0 ] || fail "stat shows nothing reclaimable after deleting two jobs"
dst verify --deep >/dev/null || fail "verify after delete"
count=$(container_count "$W" 131072)
cp -a "$(containers_of "$W")" "$SCRATCH/containers.before_gc"

dst -p"gc-live-threshold 0" gc --json > "$SCRATCH/gc1.json"
freed=$(json_field "$SCRATCH/gc1.json" containers_freed)
[ "$freed" -gt 0 ] || fail "gc freed nothing"
[ "$(json_field "$SCRATCH/gc1.json" reclaimed_bytes)" -eq "$reclaimable" ] ||
    fail "gc reclaimed $(json_field "$SCRATCH/gc1.json" reclaimed_bytes) bytes, stat said $reclaimable"
[ "$(json_field "$SCRATCH/gc1.json" jobs_collected)" -eq 2 ] || fail "gc collected the wrong jobs"
[ ! -e "$W/jobs/00000000/job_meta_data" ] || fail "gc left a deleted job's records"
[ -e "$W/jobs/00000002/manifest" ] || fail "gc removed a deleted job's manifest (its id would come back)"
dst stat --json > "$SCRATCH/stat.json"
[ "$(json_field "$SCRATCH/stat.json" reclaimable_bytes)" -eq 0 ] || fail "stat: reclaimable after gc"
dst restore 1 "$SCRATCH/r1" >/dev/null
same_tree "$SCRATCH/b" "$SCRATCH/r1"
dst verify --deep >/dev/null || fail "verify --deep after gc"

# compaction: the containers job 1 shares with the deleted jobs are sparse
# now; gc copies their live chunks into fewer new ones and frees them
dst gc --json > "$SCRATCH/gc2.json"
copied=$(json_field "$SCRATCH/gc2.json" containers_copied)
written=$(json_field "$SCRATCH/gc2.json" containers_written)
[ "$copied" -gt 0 ] || fail "gc copied nothing out of sparse containers"
[ "$written" -lt "$copied" ] || fail "gc wrote $written containers to empty $copied"
[ "$(json_field "$SCRATCH/gc2.json" containers_freed)" -eq "$copied" ] || fail "gc did not free what it emptied"
[ "$(json_field "$SCRATCH/gc2.json" jobs_rewritten)" -eq 1 ] || fail "gc rewrote the wrong jobs"
[ "$(json_field "$SCRATCH/gc2.json" container_bytes_read)" -eq $((copied * 131072)) ] || fail "bytes read"
rm -rf "$SCRATCH/r1"
dst restore 1 "$SCRATCH/r1" >/dev/null
same_tree "$SCRATCH/b" "$SCRATCH/r1"
dst read-file 1 only_b.bin | cmp -s - "$SCRATCH/b/only_b.bin" || fail "read-file after compaction"
dst verify --deep >/dev/null || fail "verify --deep after compaction"
dst gc --json > "$SCRATCH/gc3.json"
[ "$(json_field "$SCRATCH/gc3.json" containers_freed)" -eq 0 ] || fail "a third gc freed more"
[ "$(json_field "$SCRATCH/gc3.json" containers_copied)" -eq 0 ] || fail "a third gc copied again"
[ "$(json_field "$SCRATCH/gc3.json" containers_already_freed)" -eq $((freed + copied)) ] || fail "the freed list"

# ids are never reused: a new job (a's data again) gets new containers and
# a new job id; job 0 stays deleted
dst backup "$SCRATCH/a" --json > "$SCRATCH/b3.json"
[ "$(json_field "$SCRATCH/b3.json" job)" -eq 3 ] || fail "a job id came back"
[ "$(container_count "$W" 131072)" -gt "$count" ] || [ "$(store_kind)" = files ] ||
    fail "the new job wrote no containers past the old ones"
dst restore 3 "$SCRATCH/r3" >/dev/null
same_tree "$SCRATCH/a" "$SCRATCH/r3"
dst verify --deep >/dev/null || fail "verify --deep after a backup that followed gc"
# a freed list naming every container (a live one among them): verify says
# a live record names a container gc freed
cp "$W/freed" "$SCRATCH/freed.saved"
"$PYTHON" - "$W/freed" <<'PY'
import struct, sys, zlib
p = open(sys.argv[1], "rb").read()
count = struct.unpack_from("<I", p, 12)[0]
body = b"DPLCFRE1" + struct.pack("<III", 1, count, count) + b"".join(struct.pack("<I", i) for i in range(count))
open(sys.argv[1], "wb").write(body + struct.pack("<I", zlib.crc32(body)))
PY
expect_status 3 dst verify
grep -q 'recipe names a container gc freed' "$SCRATCH/out" || fail "verify did not name a freed container"
cp "$SCRATCH/freed.saved" "$W/freed"
dst repair >/dev/null 2>&1 || fail "repair after gc"
dst verify --deep >/dev/null || fail "verify --deep after repair"
# repair skips the containers gc freed: with their old bytes put back in
# their slots (a freed slot that still reads), no chunk of theirs comes
# back into the index, so a backup of c's data (job 2's, freed) stores it
# anew instead of naming a freed container
for id in $("$PYTHON" -c 'import struct, sys
p = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<I", p, 16)[0]
print(" ".join(str(i) for i in struct.unpack_from("<%dI" % n, p, 20)))' "$W/freed"); do
    set -- $(container_at "$W" "$id" 131072)
    if [ "$(store_kind)" = files ]; then
        cp "$SCRATCH/containers.before_gc/${1#"$W/containers/"}" "$1" 2>/dev/null || continue
    else
        dd if="$SCRATCH/containers.before_gc" of="$1" bs=131072 skip="$id" seek="$id" count=1 conv=notrunc \
            status=none
    fi
done
dst repair >/dev/null 2>"$SCRATCH/err" || fail "repair over freed slots that read: $(cat "$SCRATCH/err")"
! grep -q 'do not read back' "$SCRATCH/err" || fail "repair read freed containers: $(cat "$SCRATCH/err")"
dst backup "$SCRATCH/c" >/dev/null
dst verify >"$SCRATCH/out" || fail "a backup after repair named freed containers: $(grep PROBLEM "$SCRATCH/out" | head -3)"
note "delete refused by readers at once; gc freed $freed containers ($reclaimable bytes, as stat said)," \
    "then emptied $copied sparse ones into $written; live jobs exact"
