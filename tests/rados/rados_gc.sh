#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_gc.sh: delete and gc on a rados store, against a real cluster: gc
# frees what stat called reclaimable by removing objects (the newest one
# emptied instead, so ids stay), the sparse containers' live chunks are
# copied into new objects, the live job restores byte for byte and reads
# back through the SSD cache filled before gc, verify --deep passes, and a
# backup after gc writes past every id given out.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup

lifecycle_trees
printf 'container-size 128K\n' >> "$CONFIG"
for t in a b c; do on g backup "$SCRATCH/$t" > /dev/null; done
objects() { rados_cli -N g ls | grep '^container\.' | sort; }
objects > "$SCRATCH/objects.before"

# A cache filled with every job's files before the delete.
CACHE="$SCRATCH/cache"
cached() { on g -p"ssd-cache-directory $CACHE" -p"ssd-cache-policy lru" -p"ssd-cache-size 64" "$@"; }
for j in 0 1 2; do
    on g list "$j" | awk -F'\t' '$1 == "file" { print $3 }' > "$SCRATCH/files$j"
    while read -r f; do cached read-file "$j" "$f" -o "$SCRATCH/warm" > /dev/null; done < "$SCRATCH/files$j"
done

on g delete 0 2 > /dev/null
on g stat --json > "$SCRATCH/stat.json"
reclaimable=$(json_field "$SCRATCH/stat.json" reclaimable_bytes)
[ "$reclaimable" -gt 0 ] || fail "stat says nothing is reclaimable after deleting two jobs"
on g gc --json > "$SCRATCH/gc.json"
freed=$(json_field "$SCRATCH/gc.json" containers_freed)
[ "$freed" -gt 0 ] || fail "gc on rados freed nothing: $(cat "$SCRATCH/gc.json")"
objects > "$SCRATCH/objects.after"
gone=$(comm -23 "$SCRATCH/objects.before" "$SCRATCH/objects.after" | wc -l)
# Every freed container's object is removed, but the newest id, which is
# emptied instead (its object stays, 0 bytes).
[ "$gone" -ge $((freed - 1)) ] || fail "gc freed $freed containers but removed $gone objects"
note "gc freed $freed containers ($gone objects removed) of $reclaimable reclaimable bytes"

on g restore 1 "$SCRATCH/r1" > /dev/null
same_tree "$SCRATCH/b" "$SCRATCH/r1"
while read -r f; do
    cached read-file 1 "$f" -o "$SCRATCH/out" > /dev/null || fail "read-file $f through the cache after gc"
    cmp -s "$SCRATCH/out" "$SCRATCH/b/$f" || fail "$f read through the cache after gc differs"
done < "$SCRATCH/files1"
expect_status 2 on g read-file 0 "$(head -n 1 "$SCRATCH/files0")"
on g verify --deep > /dev/null || fail "verify --deep after gc on rados"

# A backup after gc: new ids past every one given out, and it restores.
on g backup "$SCRATCH/c" --json > "$SCRATCH/b3.json"
on g restore 3 "$SCRATCH/r3" > /dev/null
same_tree "$SCRATCH/c" "$SCRATCH/r3"
objects > "$SCRATCH/objects.last"
comm -13 "$SCRATCH/objects.before" "$SCRATCH/objects.last" | grep -q . || fail "no new container object"
on g verify --deep > /dev/null || fail "verify --deep after a backup past gc"
