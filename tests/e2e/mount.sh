#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# mount.sh: destor mount (FUSE, read-only). A generated tree backed up and
# mounted is the tree: bytes, sizes, modes, mtimes and symlinks (diff -r,
# stat), at the root of jobs and with --job; reads through the SSD cache
# at container and at chunk granularity, whose state outlives the mount
# (a later read-file finds it warm); a damaged container is EIO and a
# destor: line, never other bytes; kill -9, fusermount3 -u, mount again;
# 8 readers at once, from the store and through each cache granularity; a
# backup and a delete while mounted; every change
# refused with EROFS; each way of ending the mount; the bad inputs with
# their exit codes. Skipped (77) without /dev/fuse or fusermount3.
. "$TOP_SRCDIR/tests/e2e/lib.sh"
. "$TOP_SRCDIR/tests/e2e/mount_lib.sh"

need_fuse

MNT="$SCRATCH/mnt"
MNT2="$SCRATCH/mnt2"
MPID=""
mkdir "$MNT" "$MNT2"
# Every mount is gone before lib.sh's trap removes the scratch directory.
unmount_all() {
    for m in "$MNT" "$MNT2"; do fusermount3 -u -z "$m" 2>/dev/null || true; done
    [ -z "$MPID" ] || kill "$MPID" 2>/dev/null || true
}
trap 'rc=$?; unmount_all; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT

# The tree: the tiny dataset, plus what it lacks: symlinks (relative,
# absolute, dangling), an empty directory, unusual modes, a zero-length
# file, a file of several containers, odd names, nanosecond mtimes.
printf 'container-size 128K\n' >> "$CONFIG"
gen_data "$SCRATCH/data" --preset tiny --versions 2 --seed 40
T="$SCRATCH/data/v1"
mkdir -p "$T/extra/empty" "$T/extra/private"
pseudo_random 1000000 41 > "$T/extra/big.bin"
: > "$T/extra/zero"
printf 'secret\n' > "$T/extra/private/key"
printf 'spaced\n' > "$T/extra/a name with spaces"
# a directory larger than one readdir buffer: listed a buffer at a time
mkdir "$T/extra/many"
"$PYTHON" -c 'import os, sys
for i in range(1500):
    open(os.path.join(sys.argv[1], "entry-with-a-longer-name-%05d" % i), "w").write(str(i))' "$T/extra/many"
ln -s ../extra/big.bin "$T/extra/rel-link"
ln -s /nonexistent/target "$T/extra/dangling"
chmod 0600 "$T/extra/private/key"
chmod 0700 "$T/extra/private"
chmod 0751 "$T/extra/big.bin"
touch -d '2001-02-03 04:05:06.123456789' "$T/extra/zero"
dst backup "$T" >/dev/null
files=$(cd "$T" && find . -type f -size +20k | sort | head -n 8)
[ "$(echo "$files" | wc -l)" -eq 8 ] || fail "the tree has fewer than 8 files to read"

# readers_at_once DIR: the 8 files of $files read through DIR at once, each
# by a thread of its own in a shuffled order of 16 KiB pieces (the mount's
# readers switch files and containers at every read), every piece against
# the tree's bytes. First on a fresh mount: the kernel keeps what was read,
# so a later reader would not reach the mount.
readers_at_once() {
    "$PYTHON" - "$T" "$1" $files <<'PY'
import os, random, sys, threading
tree, top, names = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = []
def read(name, seed):
    try:
        want = open(os.path.join(tree, name), "rb").read()
        fd = os.open(os.path.join(top, name), os.O_RDONLY)
        pieces = list(range(0, len(want), 16384))
        random.Random(seed).shuffle(pieces)
        for off in pieces:
            if os.pread(fd, 16384, off) != want[off:off + 16384]:
                bad.append("%s at %d" % (name, off))
        os.close(fd)
    except OSError as e:
        bad.append("%s: %s" % (name, e))
threads = [threading.Thread(target=read, args=(n, i)) for i, n in enumerate(names)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not bad, bad[:5]
PY
}

# 1. the root of jobs and the tree, as backed up; 8 readers at once
start_mount "$MNT" mount
readers_at_once "$MNT/0" || fail "8 readers at once read other bytes"
[ "$(ls "$MNT")" = "$(printf '0\nlatest')" ] || fail "root lists $(ls "$MNT" | tr '\n' ' ')"
[ "$(readlink "$MNT/latest")" = 0 ] || fail "latest -> $(readlink "$MNT/latest")"
same_tree "$T" "$MNT/0"
same_tree "$T" "$MNT/latest/"
for f in extra/big.bin extra/zero extra/private/key extra/rel-link extra/dangling; do
    [ "$(stat -c '%F %s %a %Y' "$T/$f")" = "$(stat -c '%F %s %a %Y' "$MNT/0/$f")" ] || fail "stat of $f differs"
done
[ "$(stat -c %y "$MNT/0/extra/zero")" = "$(stat -c %y "$T/extra/zero")" ] || fail "nanoseconds of an mtime"
[ ! -e "$MNT/1" ] && [ ! -e "$MNT/00" ] && [ ! -e "$MNT/0/no/such" ] || fail "a path that is not there"
[ "$(ls -f "$MNT/0/extra/many" | wc -l)" -eq 1502 ] || fail "a large directory lists $(ls -f "$MNT/0/extra/many" | wc -l) entries"
note "the mount is the tree (diff -r, modes, mtimes, symlinks), 8 readers at once its bytes"

# 2. every change is refused with EROFS
"$PYTHON" - "$MNT/0" <<'PY'
import errno, os, sys
top = sys.argv[1]
f = os.path.join(top, "extra/big.bin")
tries = {
    "create": lambda: open(os.path.join(top, "new"), "w"),
    "write": lambda: open(f, "r+b"),
    "truncate": lambda: os.truncate(f, 0),
    "mkdir": lambda: os.mkdir(os.path.join(top, "d")),
    "unlink": lambda: os.unlink(f),
    "rmdir": lambda: os.rmdir(os.path.join(top, "extra/empty")),
    "rename": lambda: os.rename(f, os.path.join(top, "moved")),
    "chmod": lambda: os.chmod(f, 0o777),
    "utime": lambda: os.utime(f, (0, 0)),
    "symlink": lambda: os.symlink("x", os.path.join(top, "l")),
    "link": lambda: os.link(f, os.path.join(top, "hard")),
    "setxattr": lambda: os.setxattr(f, "user.x", b"1"),
}
for name, op in tries.items():
    try:
        op()
    except OSError as e:
        assert e.errno == errno.EROFS, (name, e)
    else:
        raise AssertionError(name + " through the mount succeeded")
PY
note "writes, creates, renames, chmod, truncate, setxattr: EROFS"

# 3. 8 processes at once, each a different file, all against the tree
pids=""
for f in $files; do cmp "$T/$f" "$MNT/0/$f" & pids="$pids $!"; done
for p in $pids; do wait "$p" || fail "a concurrent reader read other bytes"; done
note "8 concurrent readers read the tree's bytes"

# 4. a backup while mounted is a new job; a delete takes it away (an open
# file keeps reading); gc beside the mount frees nothing and says so
sleep 2.5 # idle readers have given up their containers (mount_readers_trim): job 1's reads below start there
dst backup "$SCRATCH/data/v2" >/dev/null
[ "$(readlink "$MNT/latest")" = 1 ] || fail "latest after a backup -> $(readlink "$MNT/latest")"
same_tree "$SCRATCH/data/v2" "$MNT/1"
kept=$(cd "$SCRATCH/data/v2" && find . -type f -size +20k | sort | head -n 1)
exec 3<"$MNT/1/$kept"
dst delete 1 >/dev/null
# the mount has the kernel forget a deleted job's name within 250 ms
# (mount_watch.h), a loaded machine's scheduler permitting: up to 5 s here
i=0
while [ -e "$MNT/1" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(ls "$MNT")" = "$(printf '0\nlatest')" ] || fail "root after delete lists $(ls "$MNT" | tr '\n' ' ')"
[ ! -e "$MNT/1" ] || fail "a deleted job is still reachable"
[ "$(readlink "$MNT/latest")" = 0 ] || fail "latest after delete -> $(readlink "$MNT/latest")"
cmp - "$SCRATCH/data/v2/$kept" <&3 || fail "a file open before its job was deleted"
exec 3<&-
dst gc > "$SCRATCH/gc.out" 2>&1 || { cat "$SCRATCH/gc.out" >&2; fail "gc beside the mount"; }
grep -qi 'reader' "$SCRATCH/gc.out" || { cat "$SCRATCH/gc.out" >&2; fail "gc did not say a reader holds the store"; }
stop_mount fusermount3 "$MNT"
note "a backup while mounted appears, a delete disappears, gc defers"

# 5. --job N: that job's tree at the root; -o allow_other reaches the
# mount; umount (root's) ends it
start_mount "$MNT2" mount --job 0 -o allow_other
same_tree "$T" "$MNT2"
grep " $MNT2 fuse.destor " /proc/mounts | grep -q allow_other || fail "-o allow_other did not reach the mount"
if [ "$(id -u)" -eq 0 ]; then stop_mount umount "$MNT2"; else stop_mount fusermount3 "$MNT2"; fi
note "--job 0 mounts the job's tree at the root, -o allow_other passed on"

# 6. through the SSD cache, container and chunk granularity: the bytes are
# the tree's (8 readers at once, then all), a second mount with the same cache is refused (exit 1), and
# the state saved at the end (SIGTERM, SIGINT) leaves the cache warm for a
# read-file that follows; the figures are readable while mounted
# (.destor/stats.json) and printed at the end (--json)
big=extra/big.bin
printf '0\t%s\n' "$big" > "$SCRATCH/one"
for gran in container chunk; do
    C="$SCRATCH/cache-$gran"
    set -- -p"ssd-cache-policy lru" -p"ssd-cache-directory $C" -p"ssd-cache-size 100%" \
        -p"ssd-cache-granularity $gran"
    [ "$gran" = container ] || set -- "$@" -p"ssd-cache-segment-size 256K"
    how=TERM
    [ "$gran" = container ] || how=INT
    start_mount "$MNT" "$@" mount --json
    readers_at_once "$MNT/0" || fail "8 readers at once through the $gran cache read other bytes"
    same_tree "$T" "$MNT/0"
    cp "$MNT/.destor/stats.json" "$SCRATCH/live.json"
    [ "$(ls -A "$MNT/.destor")" = stats.json ] || fail ".destor lists $(ls -A "$MNT/.destor")"
    expect_status 1 dst "$@" mount -f "$MNT2"
    grep -q 'in use by another process' "$SCRATCH/err" || fail "second mount with the same cache: $(cat "$SCRATCH/err")"
    stop_mount "$how" "$MNT"
    dst "$@" read-file --trace "$SCRATCH/one" --json > "$SCRATCH/warm.json"
    "$PYTHON" - "$SCRATCH/warm.json" "$SCRATCH/live.json" "$SCRATCH/mount.out" "$gran" "$(du -sb "$T" | cut -f1)" <<'PY'
import json, sys
warm, live, end = (json.load(open(f)) for f in sys.argv[1:4])
gran = sys.argv[4]
c = warm["cache"]
assert c["accesses"] > 0 and c["hits"] == c["accesses"], (gran, c)
for doc in (live, end):
    assert doc["kind"] == "destor.trace-summary" and doc["requests"] > 0, doc
    assert doc["cache"]["granularity" if gran == "chunk" else "policy"] == (gran if gran == "chunk" else "lru"), doc
    assert doc["cache"]["accesses"] > 0 and doc["cache"]["mode"] == "real", doc["cache"]
assert end["requests"] >= live["requests"] and end["bytes"] >= live["bytes"], (live, end)
assert 0 < live["bytes"] <= int(sys.argv[5]), live["bytes"]
PY
    note "$gran cache: the tree's bytes (8 readers at once), one mount per cache, warm after SIGTERM/SIGINT"
done

# 7. kill -9 leaves a dead mount: mount refuses it (exit 2, naming
# fusermount3), fusermount3 -u clears it, a new mount with the same cache
# serves the right bytes, to 8 readers at once
start_mount "$MNT" "$@" mount
cat "$MNT/0/$big" > /dev/null
kill -9 "$MPID"
wait "$MPID" 2>/dev/null || true
MPID=""
expect_status 2 dst "$@" mount -f "$MNT"
grep -q 'fusermount3 -u' "$SCRATCH/err" || fail "a dead mount: $(cat "$SCRATCH/err")"
fusermount3 -u "$MNT"
start_mount "$MNT" "$@" mount
readers_at_once "$MNT/0" || fail "8 readers at once after kill -9"
same_tree "$T" "$MNT/0"
stop_mount fusermount3 "$MNT"
note "kill -9, fusermount3 -u, mount again: the same bytes, 8 readers at once"

# 8. bad input, each a one-line destor: error with its exit status
expect_status 2 dst mount -f "$SCRATCH/data"                  # not empty
expect_status 2 dst mount -f "$SCRATCH/nowhere"               # missing
expect_status 2 dst mount -f "$T/extra/zero"                  # not a directory
mkdir "$SCRATCH/working/inside"
expect_status 2 dst mount -f "$SCRATCH/working/inside"        # inside the store
expect_status 2 dst -p"working-directory $SCRATCH/nostore" mount -f "$MNT"
expect_status 2 dst -p"working-directory $SCRATCH/nostore" mount "$MNT"   # the background child's status
expect_status 2 dst mount -f --job 7 "$MNT"
expect_status 2 dst mount -f -o rw "$MNT"
expect_status 2 dst mount -f "$MNT" "$MNT2"
expect_status 2 dst --simulate mount -f "$MNT"
expect_status 2 dst -p"ssd-cache-policy lru" -p"ssd-cache-directory $SCRATCH/c" -p"ssd-cache-simulate yes" mount -f "$MNT"
! mounted "$MNT" || fail "a refused mount left a mount"
note "bad input: exit 2 (and 1 for a busy cache, above)"

# 9. without -f: back once mounted, in the background; a damaged container
# is EIO for the reads that need it and one destor: line each, never other
# bytes
n0=$(container_count "$SCRATCH/working" 131072)
mkdir "$SCRATCH/lone"
pseudo_random 600000 42 > "$SCRATCH/lone/victim.bin"
dst backup "$SCRATCH/lone" >/dev/null
flip_container_byte "$SCRATCH/working" "$n0" 131072 70000
"$DESTOR_BIN" -c "$CONFIG" mount "$MNT" 2>"$SCRATCH/mount.err"
mounted "$MNT" || fail "mount without -f returned before mounting"
job=$(readlink "$MNT/latest")
set +e
cat "$MNT/$job/victim.bin" > "$SCRATCH/victim.out" 2>"$SCRATCH/cat.err"
rc=$?
set -e
[ "$rc" -ne 0 ] && grep -q 'Input/output error' "$SCRATCH/cat.err" || fail "a damaged chunk read as bytes (cat exit $rc)"
got=$(stat -c %s "$SCRATCH/victim.out")
[ "$got" -lt 600000 ] || fail "cat read the whole damaged file"
cmp -n "$got" "$SCRATCH/victim.out" "$SCRATCH/lone/victim.bin" || fail "other bytes before the damage"
dd if="$MNT/$job/victim.bin" bs=4096 skip=130 count=10 2>/dev/null | cmp -i 0:532480 -n 40960 - "$SCRATCH/lone/victim.bin" ||
    fail "the undamaged end of the file"
fusermount3 -u "$MNT"
i=0
while pgrep -f "mount $MNT\$" >/dev/null 2>&1 && [ "$i" -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q '^destor: .*victim.bin.*EIO' "$SCRATCH/mount.err" || { cat "$SCRATCH/mount.err" >&2; fail "no destor: line for the EIO"; }
note "a damaged container: EIO and a destor: line, never other bytes"
