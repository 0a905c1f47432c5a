#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# pool_loss.sh: a pool that lost containers never yields wrong bytes.
# (a) With the pool's tail cut off, a backup refuses to start (exit 3)
#     instead of writing new containers under the lost ids, and every read
#     of an old file is either exit 3 or the exact original bytes.
# (b) A container replaced by another valid container with the same id
#     (here: the same slot of another store) is an integrity error on every
#     read path (read-file, restore), never data: the read path compares
#     each chunk's recipe entry with the container's own metadata.
# Both are about the pool file; a files store's missing last file is
# kill_files_backup.sh's and container_store.sh's.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
require_pool "a lost pool tail and a planted pool slot"

printf 'container-size 256K\n' >> "$CONFIG"
gen_data "$SCRATCH/data" --size 4M --versions 3 --seed 5
gen_data "$SCRATCH/new" --size 3M --versions 1 --seed 9
for v in 1 2 3; do dst backup "$SCRATCH/data/v$v" >/dev/null; done
W="$SCRATCH/working"

# read_all: every file of every job is exit 3 or its exact bytes; prints how
# many reads failed with exit 3.
read_all() {
    refused=0
    for v in 1 2 3; do
        (cd "$SCRATCH/data/v$v" && find . -type f | sort) > "$SCRATCH/files"
        while IFS= read -r f; do
            set +e
            dst read-file $((v - 1)) "$f" -o "$SCRATCH/got" >/dev/null 2>"$SCRATCH/rerr"
            rc=$?
            set -e
            case $rc in
            0) cmp -s "$SCRATCH/got" "$SCRATCH/data/v$v/$f" || fail "job $((v - 1)) $f: wrong bytes with exit 0" ;;
            3) refused=$((refused + 1)) ;;
            *) cat "$SCRATCH/rerr" >&2; fail "job $((v - 1)) $f: exit $rc" ;;
            esac
        done < "$SCRATCH/files"
    done
    echo "$refused"
}

# (a) lose the pool's last 40%.
cp "$W/containers.pool" "$SCRATCH/pool.orig"
size=$(stat -c %s "$W/containers.pool")
truncate -s $((size * 6 / 10)) "$W/containers.pool"
before=$(read_all)
[ "$before" -gt 0 ] || fail "no read noticed the lost containers"
expect_status 3 dst backup "$SCRATCH/new/v1"
grep -q 'containers.pool' "$SCRATCH/err" || fail "the refusal does not name the pool: $(cat "$SCRATCH/err")"
[ "$(grep -c . "$SCRATCH/err")" -eq 1 ] || fail "the refusal is not one line"
[ "$(stat -c %s "$W/containers.pool")" -eq $((size * 6 / 10)) ] || fail "the refused backup wrote to the pool"
after=$(read_all)
[ "$after" -eq "$before" ] || fail "reads refused before/after the refused backup: $before/$after"
note "truncated pool: backup refused, $after reads refused with exit 3, no wrong bytes"

# (b) put back the pool, then plant another store's container 2 in slot 2.
cp "$SCRATCH/pool.orig" "$W/containers.pool"
OTHER="$SCRATCH/other"
"$DESTOR_BIN" -c "$CONFIG" -p"working-directory $OTHER" backup "$SCRATCH/new/v1" >/dev/null
dd if="$OTHER/containers.pool" of="$W/containers.pool" bs=256K skip=2 seek=2 count=1 conv=notrunc 2>/dev/null
cmp -s "$W/containers.pool" "$SCRATCH/pool.orig" && fail "the planted container is identical"
planted=$(read_all)
[ "$planted" -gt 0 ] || fail "no read noticed the planted container"
expect_status 3 dst restore 0 "$SCRATCH/r0"
grep -q 'container 2' "$SCRATCH/err" || fail "restore did not name container 2: $(cat "$SCRATCH/err")"
expect_status 3 dst verify
note "planted container: $planted reads and restore refused with exit 3, no wrong bytes"

# A damaged newest manifest is verify's to report; it does not stop backups
# (the check above falls back to the newest manifest that reads back).
cp "$SCRATCH/pool.orig" "$W/containers.pool"
"$PYTHON" -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(30); b=f.read(1); f.seek(30); f.write(bytes([b[0]^1]))' \
    "$W/jobs/00000002/manifest"
expect_status 0 dst backup "$SCRATCH/new/v1"
expect_status 3 dst verify
grep -q 'manifest of job 2' "$SCRATCH/out" || { cat "$SCRATCH/out" >&2; fail "verify did not name the damaged manifest"; }
note "damaged newest manifest: backup still commits, verify names it"
