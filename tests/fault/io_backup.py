#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_backup.py: I/O faults during a backup into a store that already holds
a committed job.

The LD_PRELOAD shim (fault_shim.c) makes the Nth write, read, fsync, rename,
ftruncate, open or close fail with ENOSPC or EIO, once (a transient error) or from the
Nth call on (a disk that is full or gone). N sweeps every such call destor
makes on the store, plus a sample of all calls (the source files being
read) and of "any" call. Each run must either fail with exit status 1 and a
`destor: ...` message naming the error, or succeed when the fault hit
something harmless (Berkeley DB retries a failed pwrite with lseek+write and EIO by
itself), or commit the job without a source file that could not be read
(skipped, counted, warned, and exit status 1). Never a signal, a hang or a memory error. Afterwards:
`destor verify --deep` passes, job 0 restores byte for byte, a successful
faulted job holds exactly the files it did not skip, the failed job is
absent, and a new backup succeeds and verifies.
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

KINDS = ("write", "read", "fsync", "rename", "truncate", "open", "close")


def main():
    fl.require_env()
    scratch = fl.Scratch("fault-backup")
    shim = fl.shim(scratch)
    data = scratch.path("data")
    fl.gen_data(data, "--preset", "tiny", "--size", "4M", "--versions", "2", "--odd-names", "--seed", "61")
    v1, v2 = os.path.join(data, "v1"), os.path.join(data, "v2")
    want_v1, want_v2 = fl.tree(v1), fl.tree(v2)

    base = scratch.path("base")
    base_cfg = fl.write_config(scratch.path("base.config"), base, "container-size 128K")
    r = fl.destor(base_cfg, "backup", v1)
    if r.rc != 0:
        fl.die(r.describe())

    # Count the calls of an undisturbed backup: all of them, and those on the store.
    def counts(path_filter, exclude=None):
        case = scratch.path("count")
        fl.copy_tree(base, case)
        cfg = fl.write_config(scratch.path("count.config"), case, "container-size 128K")
        env = {"LD_PRELOAD": shim, "FAULT_COUNT_FILE": scratch.path("count.txt")}
        if path_filter:
            env["FAULT_PATH"] = case + "/"
        if exclude:
            env["FAULT_EXCLUDE"] = exclude
        r = fl.destor(cfg, "backup", v2, env=env)
        if r.rc != 0:
            fl.die("undisturbed backup under the shim failed: " + r.describe())
        c = fl.read_counts(scratch.path("count.txt"))
        shutil.rmtree(case)
        return c

    all_calls, store_calls = counts(False), counts(True)
    # Close faults and "any" leave Berkeley DB's files alone (see faultlib).
    all_no_db, store_no_db = counts(False, fl.BDB_FILES), counts(True, fl.BDB_FILES)
    print("# calls of one backup, all files: %s" % " ".join("%s %d" % (k, all_calls[k]) for k in KINDS))
    print("# calls of one backup, the store: %s" % " ".join("%s %d" % (k, store_calls[k]) for k in KINDS))
    if store_calls["write"] == 0 or store_calls["fsync"] == 0 or store_calls["rename"] == 0:
        fl.die("the shim saw no writes, fsyncs or renames on the store; is it interposing?")

    sweep = fl.Sweep("backup I/O faults", io_bound=True)
    seq = [0]

    def make_case(category, kind, at, errno, repeat, path_filter):
        seq[0] += 1
        n = seq[0]
        exclude = fl.BDB_FILES if kind in ("close", "any") else None
        desc = "FAULT_CALL=%s FAULT_AT=%d FAULT_ERRNO=%s FAULT_REPEAT=%d%s%s" % (
            kind, at, errno, repeat, " FAULT_PATH=<store>/" if path_filter else "",
            " FAULT_EXCLUDE=%s" % exclude if exclude else "")

        def fn():
            return backup_case(scratch, shim, base, v1, v2, want_v1, want_v2, n, kind, at, errno, repeat,
                               path_filter, exclude)
        return (category, desc, fn)

    cases = []
    # Every call on the store, transient and persistent, with both errnos.
    for kind in KINDS:
        total = (store_no_db if kind == "close" else store_calls)[kind]
        for at in fl.evenly(total, fl.scale(total if kind != "read" else 40)):
            e1, e2 = ("ENOSPC", "EIO") if at % 2 else ("EIO", "ENOSPC")
            if kind == "read":  # a read does not run out of space
                e1 = e2 = "EIO"
            cases.append(make_case("store %s, once" % kind, kind, at, e1, 1, True))
            cases.append(make_case("store %s, from then on" % kind, kind, at, e2, 0, True))
    # A sample of all reads (mostly the source tree) and of any call at all.
    for at in fl.evenly(all_calls["read"], fl.scale(30)):
        cases.append(make_case("any file read, once", "read", at, "EIO", 1, False))
    for at in fl.evenly(all_no_db["any"], fl.scale(30)):
        cases.append(make_case("any call, from then on", "any", at, "ENOSPC" if at % 2 else "EIO", 0, False))
    sweep.run(cases)
    ok = sweep.summary()
    scratch.finish(ok)
    sys.exit(0 if ok else 1)


def backup_case(scratch, shim, base, v1, v2, want_v1, want_v2, n, kind, at, errno, repeat, path_filter, exclude):
    case = scratch.path("case%04d" % n)
    os.mkdir(case)
    work = os.path.join(case, "w")
    fl.copy_tree(base, work)
    cfg = fl.write_config(os.path.join(case, "destor.config"), work, "container-size 128K")
    count_file = os.path.join(case, "count.txt")
    env = fl.fault_env(shim, kind, at, errno, repeat, work + "/" if path_filter else None, count_file, exclude)
    r = fl.destor(cfg, "backup", v2, env=env)
    c = fl.read_counts(count_file)
    fired = c.get("fired", 0)
    first = c.get("first", ("", 0, ""))
    where = "%s on %s" % (first[0], os.path.basename(first[2]) or "?")
    fl.check(not r.crashed, "crashed: " + r.describe())
    fl.check(not r.bad_stderr(), "memory error reported: " + r.describe())

    jobs_after_fault = 1
    partial = r.rc == 1 and "could not be read and are not in job 1" in r.err_text()
    if r.rc == 0 or partial:
        # Harmless, or a source file skipped: the job is committed (a skip
        # makes the exit status 1). Say why, and prove the committed job
        # holds the right files: all of them but those the summary counts
        # as skipped (each with a warning; their names may be re-encoded for
        # the locale).
        m = re.search(r"(\d+) skipped", r.out.decode("utf-8", "replace"))
        skipped = int(m.group(1)) if m else -1
        warned = sum(1 for l in r.err_text().splitlines() if l.startswith("destor: warning: skipping "))
        fl.check(skipped == warned, "%d skipped, %d warnings: %s" % (skipped, warned, r.describe()))
        fl.check((skipped > 0) == (r.rc == 1), "exit %d with %d skipped: %s" % (r.rc, skipped, r.describe()))
        out = os.path.join(case, "restored")
        rr = fl.destor(cfg, "restore", "1", out)
        fl.check(rr.rc == 0, "the job of a successful faulted backup does not restore: " + rr.describe())
        got = fl.tree(out)
        missing = [p for p in want_v2 if p not in got]
        fl.check(len(missing) == skipped and all(want_v2[p][0] == "f" for p in missing),
                 "%d skipped but missing %s" % (skipped, missing[:5]))
        problems = fl.tree_diff(want_v2, got, allow_missing=missing)
        fl.check(not problems, "the job of a successful faulted backup differs: %s" % problems[:5])
        jobs_after_fault = 2
        if not fired:
            outcome = "succeeded, fault not reached"
        elif skipped:
            outcome = "succeeded, source file skipped"
        elif first[0] in ("pwrite", "pread", "read") and first[2].endswith(".db"):
            outcome = "succeeded, Berkeley DB retried the %s" % first[0]
        else:
            outcome = "succeeded, fault hit %s" % where
    else:
        if os.path.basename(first[2]) == "destor.config":
            line = fl.expect_clean_failure(r, allowed=(2,))
        else:
            line = fl.expect_clean_failure(r)
        fl.check(not fired or fl.names_error(line, errno),
                 "the message does not name the error (%s): %s" % (fl.ERRNO_TEXT[errno], line))
        outcome = "config unreadable (exit 2)" if r.rc == 2 else "failed cleanly (exit 1)"
        if os.path.exists(os.path.join(work, "jobs", "00000001", "manifest")):
            # The manifest was published before the error (the directory
            # fsync after its rename failed): the job must then be whole.
            out = os.path.join(case, "restored")
            rr = fl.destor(cfg, "restore", "1", out)
            fl.check(rr.rc == 0, "a failed backup left a job that does not restore: " + rr.describe())
            problems = fl.tree_diff(want_v2, out)
            fl.check(not problems, "a failed backup left an incomplete job: %s" % problems[:5])
            jobs_after_fault = 2
            outcome = "failed (exit 1) after publishing the manifest; job complete"

    # The store afterwards: intact, job 0 whole, the failed job absent.
    vr = fl.destor(cfg, "verify", "--deep")
    fl.check(vr.rc == 0, "verify --deep after the fault: " + vr.describe())
    st = fl.destor(cfg, "stat", "--json")
    fl.check(st.rc == 0, "stat after the fault: " + st.describe())
    jobs = json.loads(st.out)["job_count"]
    fl.check(jobs == jobs_after_fault, "%d jobs after the fault, expected %d" % (jobs, jobs_after_fault))
    out0 = os.path.join(case, "restored0")
    rr = fl.destor(cfg, "restore", "0", out0)
    fl.check(rr.rc == 0, "job 0 does not restore after the fault: " + rr.describe())
    problems = fl.tree_diff(want_v1, out0)
    fl.check(not problems, "job 0 differs after the fault: %s" % problems[:5])
    # And the store still takes a new backup.
    br = fl.destor(cfg, "backup", v2)
    fl.check(br.rc == 0, "a new backup after the fault fails: " + br.describe())
    vr = fl.destor(cfg, "verify", "--deep")
    fl.check(vr.rc == 0, "verify --deep after the new backup: " + vr.describe())
    shutil.rmtree(case)
    return outcome


if __name__ == "__main__":
    main()
