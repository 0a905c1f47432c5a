#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# planted_dirs.sh: a symlink planted at one of the store's own directories
# (index/, jobs/, a job's directory, containers/ of a files store), here
# to the same directory of a second store (a pool store and a files store), is never written through: each
# writer (backup, delete, gc, repair) refuses with one destor: line naming
# the link (exit 1) before it writes, and the second store keeps every byte;
# verify reports the link as a problem (exit 3) and reads nothing through it.
# planted_links.sh plants links at file names; this plants them one level
# up. Before this test, delete and gc through a job directory linked to the
# other store's job of the same number deleted that job there (its records
# removed, its reference counts rewritten), and a backup through a linked
# index/ wrote this store's chunks into the other store's index (its verify
# then found 4 problems).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

A="$SCRATCH/working"
B="$SCRATCH/other"
BASE="$SCRATCH/base.config"
BASE_B="$SCRATCH/other-base.config"
cp "$CONFIG" "$BASE"
sed "s|$A|$B|" "$CONFIG" > "$BASE_B"
printf 'container-size 128K\n' | tee -a "$BASE" >> "$BASE_B"
CONFIG="$SCRATCH/this.config"
CONFIG_B="$SCRATCH/other.config"
dstb() { "$DESTOR_BIN" -c "$CONFIG_B" "$@"; }
sums() { (cd "$B" && find . -type f ! -name LOCK ! -name READERS -exec md5sum {} + | sort); }

# plant STATE NAME: A as in STATE, its NAME replaced by a symlink to B's.
plant() {
    rm -rf "$A"
    cp -a "$SCRATCH/a.$1" "$A"
    rm -rf "${A:?}/$2"
    ln -s "$B/$2" "$A/$2"
}

runs=0
for kind in pool files; do
    rm -rf "$A" "$B" "$SCRATCH/data" "$SCRATCH/rt"
    cp "$BASE" "$CONFIG"
    cp "$BASE_B" "$CONFIG_B"
    printf 'container-store %s\n' $kind | tee -a "$CONFIG" >> "$CONFIG_B"
    mkdir -p "$SCRATCH/data"
    for i in 1 2 3; do pseudo_random 200000 "$i" > "$SCRATCH/data/f$i"; done
    dst backup "$SCRATCH/data" >/dev/null
    dstb backup "$SCRATCH/data" >/dev/null
    pseudo_random 100000 7 > "$SCRATCH/data/f4"
    dst backup "$SCRATCH/data" >/dev/null
    dstb backup "$SCRATCH/data" >/dev/null
    pseudo_random 100000 8 > "$SCRATCH/data/f5"
    rm -rf "$SCRATCH/a.two" "$SCRATCH/a.deleted"
    cp -a "$A" "$SCRATCH/a.two"
    dst delete 0 >/dev/null
    cp -a "$A" "$SCRATCH/a.deleted"
    sums > "$SCRATCH/b.sums"

    names="index jobs jobs/00000001"
    [ $kind = files ] && names="$names containers"
    for name in $names; do
        for cmd in "delete 1" gc repair "backup $SCRATCH/data"; do
            case $cmd in
            gc | repair) plant deleted "$name" ;; # job 0 deleted: gc has work
            *) plant two "$name" ;;
            esac
            rc=0
            dst $cmd >/dev/null 2>"$SCRATCH/err" || rc=$?
            runs=$((runs + 1))
            what="$kind store, $cmd with a symlink at $name"
            sums | cmp -s - "$SCRATCH/b.sums" || fail "$what: the other store changed"
            [ $rc -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "$what: exit $rc, not 1"; }
            [ "$(wc -l < "$SCRATCH/err")" -eq 1 ] &&
                grep -q "^destor: .*$name: it is a symbolic link, which destor never writes through" "$SCRATCH/err" ||
                { cat "$SCRATCH/err" >&2; fail "$what: not one destor: line naming the link"; }
            [ -L "$A/$name" ] || fail "$what: the link was removed"
        done
    done
    # verify (a reader) reports each link (exit 3), reading nothing through
    # it: it read the other store's job, index or containers and said the
    # store was sound (exit 0), while every writer refuses it
    for name in $names; do
        for cmd in verify "verify 1"; do
            plant two "$name"
            rc=0
            dst $cmd >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
            runs=$((runs + 1))
            what="$kind store, $cmd with a symlink at $name"
            [ $rc -eq 3 ] || { cat "$SCRATCH/out" "$SCRATCH/err" >&2; fail "$what: exit $rc, not 3"; }
            grep -q "^PROBLEM.* $A/$name is a symbolic link, which destor never writes through and verify does not read" \
                "$SCRATCH/out" || { cat "$SCRATCH/out" >&2; fail "$what: no PROBLEM line naming the link"; }
            sums | cmp -s - "$SCRATCH/b.sums" || fail "$what: the other store changed"
        done
    done
    dstb verify >/dev/null || fail "$kind store: the other store does not verify"
    dstb restore 1 "$SCRATCH/rt" >/dev/null
    cmp "$SCRATCH/rt/f4" "$SCRATCH/data/f4" || fail "$kind store: the other store's job 1 does not restore"
done
note "$runs writers and verify runs, each with a symlink at one of the store's directories: refused or reported, the other store unchanged"

# A FIFO (or a symlink to /dev/zero) planted at a fixed name destor reads
# is refused, not opened to wait for a writer forever (or read without
# end): every command ends, with a destor: line when it fails. Before this
# test, a FIFO at READERS, store.meta, containers.pool, freed, a job's
# manifest, refcount, job_meta_data or recipe_index.db, or
# index/fingerprints.db hung the readers and the writers that read it.
rm -rf "$A" "$SCRATCH/rt"
cp "$BASE" "$CONFIG"
dst backup "$SCRATCH/data" >/dev/null
pseudo_random 100000 9 > "$SCRATCH/data/f6"
dst backup "$SCRATCH/data" >/dev/null
dst delete 0 >/dev/null
dst gc -p"gc-live-threshold 0.9" >/dev/null # a freed list
[ -f "$A/freed" ] || fail "gc left no freed list to plant at"
rm -rf "$SCRATCH/a.fifo"
cp -a "$A" "$SCRATCH/a.fifo"
fifos=0
for name in READERS store.meta containers.pool freed jobs/00000001/manifest jobs/00000001/refcount \
    jobs/00000001/job_meta_data jobs/00000001/recipe_index.db index/fingerprints.db; do
    for kind in fifo zero; do
        for cmd in stat verify "restore 1 $SCRATCH/rt" "read-file 1 f1" gc "backup $SCRATCH/data"; do
            rm -rf "$A" "$SCRATCH/rt"
            cp -a "$SCRATCH/a.fifo" "$A"
            rm -f "${A:?}/$name"
            if [ $kind = fifo ]; then mkfifo "$A/$name"; else ln -s /dev/zero "$A/$name"; fi
            rc=0
            timeout 60 "$DESTOR_BIN" -c "$CONFIG" $cmd >/dev/null 2>"$SCRATCH/err" </dev/null || rc=$?
            fifos=$((fifos + 1))
            [ $rc -ne 124 ] || fail "$cmd with a $kind at $name: still running after 60 s"
            [ $rc -eq 0 ] || tail -n 1 "$SCRATCH/err" | grep -q '^destor: ' ||
                { cat "$SCRATCH/err" >&2; fail "$cmd with a $kind at $name: exit $rc without a destor: line"; }
        done
    done
done
note "$fifos commands with a FIFO or /dev/zero at a name they read: each ended"
