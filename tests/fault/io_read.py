#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_read.py: I/O faults while reading: read-file of one file (to -o OUT
and to standard output), read-file --trace, and restore.

N sweeps the reads, container mappings (mmap), writes, renames, fsyncs, opens and closes of each
command (Berkeley DB's files aside, see faultlib.BDB_FILES) (sampled
evenly where there are many), once and from then on, with EIO for reads and mappings
and ENOSPC or EIO for writes; and mappings that succeed with pages that
cannot be read (a disk's read error under a mapped container: touched, they
would be SIGBUS), which must be EIO too. Each run must either succeed with exactly the
right bytes (a fault Berkeley DB retried, or one on something harmless) or
fail with exit status 1 and a `destor: ...` message naming the error;
never a signal or a memory error. read-file -o must leave OUT as it was (a
file that was there keeps its bytes, no OUT.destor-tmp is left behind); a
failed restore may stop part way but nothing it wrote may hold wrong bytes.
Readers never change the store: its files are byte for byte the same after
every run, and `destor verify --deep` passes at the end.

When restore cannot create a file at the target (ENOSPC, EIO), it warns,
goes on, and ends with exit status 1 naming the first failure.

A read error in the middle of a long trace (the third read(2) of the trace
file fails) is a failure (exit 1, one line naming the error), never a
shorter replay that exits 0 (issue 10, item 6).
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

SENTINEL = b"this file was here before read-file ran\n"
KINDS = ("write", "read", "fsync", "rename", "truncate", "open", "close", "map")


def main():
    fl.require_env()
    scratch = fl.Scratch("fault-read")
    shim = fl.shim(scratch)
    cfg, work, v1, v2 = fl.two_version_store(scratch, 62, "--odd-names")
    want_v1 = fl.tree(v1)
    digest = fl.store_digest(work)

    # The files to read: the largest of job 1 (several containers), a
    # small one of job 0, and a trace over both jobs.
    files1 = sorted(fl.list_files(cfg, 1), key=lambda f: f[1])
    files0 = [f for f in fl.list_files(cfg, 0) if b"\n" not in f[0] and b"\r" not in f[0]]
    big = files1[-1][0]
    small = files0[len(files0) // 2][0]
    want_big = open(os.path.join(v2.encode(), big), "rb").read()
    want_small = open(os.path.join(v1.encode(), small), "rb").read()
    trace = scratch.path("trace")
    with open(trace, "wb") as f:
        names = [p for p, _ in files1 if b"\n" not in p and b"\r" not in p]
        for i in range(24):
            job, p = (0, files0[(i * 7) % len(files0)][0]) if i % 3 == 0 else (1, names[(i * 5) % len(names)])
            f.write(b"%d\t%s\n" % (job, p))

    commands = {
        "read-file -o": lambda out: ["read-file", "1", "-o", out, "--", big.decode("utf-8", "surrogateescape")],
        "read-file stdout": lambda out: ["read-file", "0", "--", small.decode("utf-8", "surrogateescape")],
        "read-file --trace": lambda out: ["read-file", "--trace", trace, "--verify", "--json"],
        "restore": lambda out: ["restore", "0", out],
    }

    def counts(name):
        cf = scratch.path("count.txt")
        out = scratch.path("count.out")
        # Close faults leave Berkeley DB's files alone (see faultlib): count without them.
        r = fl.destor(cfg, *commands[name](out), env={"LD_PRELOAD": shim, "FAULT_COUNT_FILE": cf,
                                                      "FAULT_EXCLUDE": fl.BDB_FILES})
        if r.rc != 0:
            fl.die("undisturbed %s under the shim failed: %s" % (name, r.describe()))
        shutil.rmtree(out, ignore_errors=True)
        if os.path.exists(out):
            os.unlink(out)
        return fl.read_counts(cf)

    trace_read_error(scratch, shim, cfg, trace)

    sweep = fl.Sweep("read I/O faults")
    cases = []
    seq = [0]
    for name in commands:
        c = counts(name)
        print("# calls of %s (Berkeley DB files aside): %s" % (name, " ".join("%s %d" % (k, c[k]) for k in KINDS)))
        for kind, limit, action in (("read", 60, "fail"), ("write", 30, "fail"), ("rename", 4, "fail"),
                                    ("fsync", 4, "fail"), ("truncate", 4, "fail"), ("open", 12, "fail"),
                                    ("close", 12, "fail"), ("map", 12, "fail"), ("map", 6, "unreadable")):
            for at in fl.evenly(c[kind], fl.scale(limit)):
                for repeat in (1, 0):
                    errno = "EIO" if kind in ("read", "map") or (at + repeat) % 2 else "ENOSPC"
                    seq[0] += 1
                    desc = "%s: FAULT_CALL=%s FAULT_ACTION=%s FAULT_AT=%d FAULT_ERRNO=%s FAULT_REPEAT=%d" % (
                        name, kind, action, at, errno, repeat)
                    what = kind if action == "fail" else "%s (%s)" % (kind, action)
                    category = "%s, %s %s" % (name, what, "once" if repeat else "from then on")
                    args = (scratch, shim, cfg, work, digest, commands[name], name, seq[0], kind, action, at,
                            errno, repeat, {"big": want_big, "small": want_small, "v1": want_v1})
                    cases.append((category, desc, lambda a=args: read_case(*a)))
    sweep.run(cases)
    vr = fl.destor(cfg, "verify", "--deep")
    if vr.rc != 0:
        sweep.fail("store", "verify --deep after all runs", vr.describe())
    ok = sweep.summary()
    scratch.finish(ok)
    sys.exit(0 if ok else 1)


def trace_read_error(scratch, shim, cfg, trace):
    """The trace repeated until it spans several 64 KiB reads; the third
    read of it fails with EIO."""
    long_trace = scratch.path("long-trace")
    with open(trace, "rb") as f:
        lines = f.read()
    with open(long_trace, "wb") as f:
        f.write(lines * (3 * 65536 // len(lines) + 2))
    r = fl.destor(cfg, "read-file", "--trace", long_trace, "--simulate",
                  env=fl.fault_env(shim, "read", 3, "EIO", 1, "long-trace"))
    try:
        line = fl.expect_clean_failure(r)
    except fl.CaseFailure as e:
        fl.die("a read error inside the trace: %s" % e)
    lines_out = [l for l in r.err_text().splitlines() if l.startswith("destor: ")]
    if len(lines_out) != 1 or not fl.names_error(line, "EIO") or "long-trace" not in line:
        fl.die("a read error inside the trace: expected one line naming it, got: " + r.describe())
    print("# a read error in the middle of a trace: exit 1, %s" % line)


def read_case(scratch, shim, cfg, work, digest, command, name, n, kind, action, at, errno, repeat, want):
    case = scratch.path("case%04d" % n)
    os.mkdir(case)
    out = os.path.join(case, "out")
    had_sentinel = name == "read-file -o" and n % 2 == 0
    if had_sentinel:
        with open(out, "wb") as f:
            f.write(SENTINEL)
    count_file = os.path.join(case, "count.txt")
    env = fl.fault_env(shim, kind, at, errno, repeat, None, count_file, fl.BDB_FILES)
    env["FAULT_ACTION"] = action
    r = fl.destor(cfg, *command(out), env=env)
    c = fl.read_counts(count_file)
    first = c.get("first", ("", 0, ""))
    fl.check(not r.crashed, "crashed: " + r.describe())
    fl.check(not r.bad_stderr(), "memory error reported: " + r.describe())
    if r.rc == 0:
        if name == "read-file -o":
            fl.check(open(out, "rb").read() == want["big"], "read-file -o returned wrong bytes")
        elif name == "read-file stdout":
            fl.check(r.out == want["small"], "read-file returned wrong bytes")
        elif name == "read-file --trace":
            fl.check(json.loads(r.out)["requests"] == 24, "the trace summary counts the wrong requests")
        else:
            problems = fl.tree_diff(want["v1"], out)
            fl.check(not problems, "restore after a harmless fault differs: %s" % problems[:5])
        if not c.get("fired"):
            outcome = "succeeded, fault not reached"
        elif first[0] in ("pread", "read") and first[2].endswith(".db"):
            outcome = "succeeded, Berkeley DB retried the %s" % first[0]
        else:
            outcome = "succeeded, fault hit %s on %s" % (first[0], os.path.basename(first[2]))
    else:
        # A fault on the config file: exit 2 (configuration) when that is what failed.
        config = os.path.basename(first[2]) == os.path.basename(cfg)
        allowed = (1, 2) if config else (1,)
        line = fl.expect_clean_failure(r, allowed=allowed)
        fl.check(fl.names_error(line, errno), "the message does not name the error: " + line)
        outcome = "config unreadable (exit 2)" if r.rc == 2 else "failed cleanly (exit 1)"
        if name == "read-file -o":
            left = [n for n in os.listdir(os.path.dirname(out)) if n.startswith(".destor-")]
            fl.check(not left, "a failed read-file -o left a new file beside OUT: %s" % left)
            if had_sentinel:
                fl.check(open(out, "rb").read() == SENTINEL, "a failed read-file -o changed OUT")
            else:
                fl.check(not os.path.exists(out), "a failed read-file -o left a partial OUT")
        elif name == "restore":
            problems = fl.partial_tree_problems(want["v1"], out)
            fl.check(not problems, "a failed restore wrote wrong data: %s" % problems[:5])
    fl.check(fl.store_digest(work) == digest, "the store changed under a reader")
    shutil.rmtree(case)
    return outcome


if __name__ == "__main__":
    main()
