#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# cache_directory.sh: an SSD cache directory that is the working directory,
# or inside it, is refused before anything is read or created (exit 2)
# (issue 28 item 10): in the working directory the cache took the store's
# writer lock (both are named LOCK), so a backup failed while a cached read
# ran. However the path is spelt (relative, through a symlink, with . and
# ..), the check sees where it leads; a sibling directory whose name only
# starts like the working directory's is fine.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

W="$SCRATCH/working"
mkdir -p "$SCRATCH/data"
printf 'some bytes\n' > "$SCRATCH/data/f"
dst backup "$SCRATCH/data" >/dev/null
ln -s "$W" "$SCRATCH/link"

cached() { dir=$1; shift; dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $dir" "$@"; }

for dir in "$W" "$W/." "$SCRATCH/link" "$W/cache" "$SCRATCH/link/deeper/cache" "$W/../working/jobs"; do
    expect_status 2 cached "$dir" read-file 0 f -o "$SCRATCH/out"
    grep -q "^destor: ssd-cache-directory $dir is .*working-directory" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$dir: no message naming both settings"; }
    expect_status 2 cached "$dir" restore 0 "$SCRATCH/restored"
    [ -z "$(ls -A "$SCRATCH/restored" 2>/dev/null)" ] || fail "$dir: restore wrote entries before refusing"
    [ ! -e "$W/cache" ] && [ ! -e "$W/deeper" ] && [ ! -e "$W/slots.dat" ] && [ ! -e "$W/jobs/slots.dat" ] ||
        fail "$dir: the refused cache left files in the store"
done
(cd "$SCRATCH" && expect_status 2 "$DESTOR_BIN" -c "$CONFIG" -p"ssd-cache-policy lru" -p"ssd-cache-directory working" \
    read-file 0 f -o "$SCRATCH/out")
note "a cache directory in or at the working directory is refused"

cached "$SCRATCH/working-cache" read-file 0 f -o "$SCRATCH/out"
cmp "$SCRATCH/data/f" "$SCRATCH/out" || fail "read through the sibling cache directory"
[ -e "$SCRATCH/working-cache/cache.meta" ] || fail "the sibling cache directory was not used"
dst backup "$SCRATCH/data" >/dev/null
note "a sibling directory is not inside it"
