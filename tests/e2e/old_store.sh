#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# old_store.sh: a store written by the release before the layers change
# (e803a33: store.meta version 2, containers in one pool file, 128K
# containers, two jobs of the same small tree), kept in
# tests/fixtures/store-e803a33, opens and reads as that release read it:
# the same listing and statistics, every file's bytes (read-file and
# restore), verify --deep clean, and not one byte of the store changed by
# reading it. A backup then extends it, still a version-2 pool store.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

FX="$TOP_SRCDIR/tests/fixtures/store-e803a33"
W="$SCRATCH/old"
cp -R "$FX/store" "$W"
chmod -R u+w "$W"
# its own config: the store is a pool store whatever the suite runs on
OLD="$SCRATCH/old.config"
printf 'working-directory "%s"\ncontainer-size 128K\n' "$W" > "$OLD"
old() { "$DESTOR_BIN" -c "$OLD" "$@"; }
snapshot() { (cd "$W" && find . -type f ! -name LOCK -exec sha256sum {} + | sort) > "$1"; }
snapshot "$SCRATCH/before"

old list 1 > "$SCRATCH/list.1"
cmp "$SCRATCH/list.1" "$FX/list.1" || fail "list differs from the old release's"
old stat | sed "s#$W#STORE#" > "$SCRATCH/stat.txt"
cmp "$SCRATCH/stat.txt" "$FX/stat.txt" || { diff "$FX/stat.txt" "$SCRATCH/stat.txt" >&2; fail "stat differs"; }

# every file, read alone and restored, against the sums the old release's
# tree had
old restore 1 "$SCRATCH/restored" > /dev/null
while read -r sum path; do
    if [ "$sum" = link ]; then
        set -- $path
        [ "$(readlink "$SCRATCH/restored/$2")" = "$1" ] || fail "symlink $2 restored wrong"
        continue
    fi
    name=${path#./}
    [ "$(old read-file 1 "$name" --verify | sha256sum | cut -c1-64)" = "$sum" ] || fail "read-file $name: other bytes"
    [ "$(old read-file 0 "$name" | sha256sum | cut -c1-64)" = "$sum" ] || fail "read-file job 0 $name: other bytes"
    [ "$(sha256sum < "$SCRATCH/restored/$name" | cut -c1-64)" = "$sum" ] || fail "restore $name: other bytes"
done < "$FX/sums"
old verify --deep > "$SCRATCH/verify.out" || { cat "$SCRATCH/verify.out" >&2; fail "verify --deep of the old store"; }
snapshot "$SCRATCH/after"
cmp "$SCRATCH/before" "$SCRATCH/after" || fail "reading the old store changed it"
note "a store of the previous release reads byte-identically and is not changed by reading"

mkdir -p "$SCRATCH/more"
pseudo_random 200000 31 > "$SCRATCH/more/new.bin"
old backup "$SCRATCH/more" > /dev/null
old read-file 2 new.bin | cmp - "$SCRATCH/more/new.bin" || fail "a job added to the old store reads other bytes"
old verify --deep > /dev/null
"$PYTHON" -c 'import struct, sys; d = open(sys.argv[1], "rb").read(); sys.exit(0 if struct.unpack_from("<I", d, 8)[0] == 2 else 1)' \
    "$W/store.meta" || fail "a backup rewrote the old store's store.meta to another version"
note "a backup extends it as a version-2 pool store"

# Its version 1 manifests do not record rewriting or fragmentation: list
# and stat say null for them, and give the new job's (a version 2 manifest).
old stat --json > "$SCRATCH/stat.json"
old list 1 --json > "$SCRATCH/list.json"
"$PYTHON" - "$SCRATCH/stat.json" "$SCRATCH/list.json" "$W/jobs/00000002/manifest" <<'PY' || fail "the figures of old and new jobs"
import json, struct, sys
keys = ("rewritten_chunks", "rewritten_bytes", "restore_container_reads", "containers_per_mib",
        "fragmentation_cache_containers")
jobs = {j["job"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
listed = json.load(open(sys.argv[2]))
assert all(jobs[j][k] is None for j in (0, 1) for k in keys), jobs
assert all(listed[k] is None for k in keys), listed
new = jobs[2]
assert new["rewritten_chunks"] == 0 and new["rewritten_bytes"] == 0, new
assert new["restore_container_reads"] >= 1 and new["containers_per_mib"] > 0, new
assert new["fragmentation_cache_containers"] == 30, new  # restore-cache's default
assert struct.unpack_from("<I", open(sys.argv[3], "rb").read(), 8)[0] == 2
PY
note "old jobs' rewriting figures are null, a new job's recorded in a version 2 manifest"
