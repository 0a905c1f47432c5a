#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# kill_files_backup.sh: the commit protocol on a `container-store files`
# store. Traced, a backup fsyncs each container file before renaming it into
# place and fsyncs every directory that gained a name (the subdirectories,
# and containers/ for a new one) before it publishes the job's manifest.
# Killed (SIGKILL, strace's syscall injection) at every rename and fsync of
# a backup, on a new store and on one with a job: no published job names a
# container whose file is missing or short, verify passes, and the next
# backup commits and restores byte for byte. Skipped when strace cannot
# inject.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

strace_kill_setup

printf 'container-size 128K\ncontainer-store files\n' >> "$CONFIG"
on() { w=$1; shift; "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $w" "$@"; }

# Every container a published job counts (ids below its containers_total)
# is a whole file: the job was published only after they were durable.
containers_whole() {
    on "$1" stat --json | "$PYTHON" -c '
import json, os, sys
w = sys.argv[1]
for job in json.load(sys.stdin)["jobs"]:
    for i in range(job["containers_total"]):
        p = os.path.join(w, "containers", "%06x" % (i >> 8), "%08x" % i)
        if not os.path.isfile(p) or os.path.getsize(p) != 128 * 1024:
            sys.exit("job %d is published but container %d (%s) is missing or short" % (job["job"], i, p))
' "$1"
}

# The order, traced: one backup onto a store with a job, writing more than
# 256 containers so that it makes a new subdirectory.
mkdir -p "$SCRATCH/big" "$SCRATCH/src/d" "$SCRATCH/src2"
pseudo_random 34000000 40 > "$SCRATCH/big/a.bin"
pseudo_random 700000 41 > "$SCRATCH/src/d/a.bin"
echo one > "$SCRATCH/src/b.txt"
pseudo_random 400000 42 > "$SCRATCH/src2/c.bin"
cp "$SCRATCH/src/b.txt" "$SCRATCH/src2/"
on "$SCRATCH/order" backup "$SCRATCH/src" >/dev/null
strace -f -y -qq -o "$SCRATCH/trace" -e trace=fsync,fdatasync,rename,renameat,renameat2,mkdir,mkdirat \
    "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $SCRATCH/order" backup "$SCRATCH/big" >/dev/null
"$PYTHON" - "$SCRATCH/trace" "$SCRATCH/order/containers" <<'PY' || fail "the files store's commit order is broken"
import re, sys
top = sys.argv[2]
synced_tmp, pending_names, pending_dirs = set(), set(), set()
renamed = made = 0
published = False
def calls(trace):
    """Each call as one line, where it ended: strace splits a call another
    thread's call interrupts into its start and its end (resumed)."""
    started = {}
    for line in open(trace):
        line = line.strip()
        m = re.match(r"(\d+)\s+(.*) <unfinished \.\.\.>$", line)
        if m:
            started[m.group(1)] = m.group(2)
            continue
        m = re.match(r"(\d+)\s+<\.\.\. \w+ resumed>(.*)$", line)
        if m and m.group(1) in started:
            line = m.group(1) + " " + started.pop(m.group(1)) + m.group(2)
        yield line
for line in calls(sys.argv[1]):
    m = re.match(r"\d+\s+(\w+)\((.*)\) += 0$", line.strip())
    if not m:
        continue
    call, args = m.groups()
    paths = re.findall(r"<([^>]*)>", args)
    if call in ("fsync", "fdatasync"):
        p = paths[0]
        if re.search(r"/\.destor-[^/]*\.tmp$", p) and p.startswith(top + "/"):
            synced_tmp.add(p)
        pending_names.discard(p)
        if p == top:
            pending_dirs.clear()
    elif call == "mkdirat" and args.split(", ")[1].strip('"') and paths and paths[0] == top:
        pending_dirs.add(args.split(", ")[1].strip('"'))
        made += 1
    elif call.startswith("rename") and paths and paths[0].startswith(top + "/"):
        names = re.findall(r'"([^"]*)"', args)
        assert re.fullmatch(r"[0-9a-f]{8}", names[1]), line
        assert paths[0] + "/" + names[0] in synced_tmp, "renamed before its fsync: " + line
        pending_names.add(paths[0])
        renamed += 1
    elif call.startswith("rename") and line.rstrip().endswith('"manifest") = 0'):
        assert not pending_names, "manifest published before fsync of %s" % pending_names
        assert not pending_dirs, "manifest published before fsync of %s for %s" % (top, pending_dirs)
        published = True
assert published and renamed > 256 and made >= 1, (published, renamed, made)
print("# %d container files, each fsynced before its rename; %d new subdirectories; "
      "every name durable before the manifest" % (renamed, made))
PY
containers_whole "$SCRATCH/order" || fail "traced store"

# The kills. strace counts a syscall per thread, and container files are
# written by the backup's writer thread: n is the most any one thread makes,
# and kill point i is the i-th call of whichever thread gets there first.
count_calls() {
    strace -f -qq -o "$SCRATCH/trace" -e trace="$2" "$DESTOR_BIN" -c "$CONFIG" -p"working-directory $1" \
        backup "$SCRATCH/src" >/dev/null
    grep "$2(" "$SCRATCH/trace" | awk '{ n[$1]++ } END { m = 0; for (t in n) if (n[t] > m) m = n[t]; print m }'
}
# What a kill or the next backup leaves: no job published without its
# containers, and a store that verifies (a kill before store.meta leaves no
# store yet).
whole_or_no_store() { [ ! -f "$1/store.meta" ] || { containers_whole "$1" && on "$1" verify >/dev/null; }; }

new_store() { :; }
store_with_a_job() { on "$1" backup "$SCRATCH/src2" >/dev/null; }

for prep in new_store store_with_a_job; do
    kill_sweep "files store, $prep" $prep count_calls whole_or_no_store
    note "files store, $prep: killed at each of $kills renames and fsyncs; no job published without its containers, verify and the next backup and restore succeeded"
done
