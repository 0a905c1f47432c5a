#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""verify_during_repair.py: `destor verify` while `destor repair` rebuilds
the fingerprint index (issue 28). Repair marks the index DIRTY, removes it
and builds it again; a verify that had looked at the index just before, and
opened it just after, exited 1 ("open fingerprint index"). Now it looks
again and says the index is being rebuilt (a note; exit 0 when the rest is
sound), as it does beside a backup.

No timing: the fault shim's stop action holds each process at its point
(FAULT_ACTION=stop): verify just before it opens the index, after its first
look; repair just before it creates the new one, after removing the old.
Then verify goes on, then repair; both must succeed, and so must a verify
after them.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402


def need(cond, msg):
    if not cond:
        fl.die(msg)


def main():
    fl.require_env()
    scratch = fl.Scratch("verify_during_repair")
    ok = False
    try:
        cfg, work, _, _ = fl.two_version_store(scratch, 28)
        index = os.path.join(work, "index")
        # stop at the first open of the index's DB: verify's read of it,
        # repair's creation of the new one
        hold = dict(fl.fault_env(fl.shim(scratch), "open", 1, "EIO", path="fingerprints.db"), FAULT_ACTION="stop")
        cmd = lambda *a: [fl.DESTOR, "-c", cfg] + list(a)  # noqa: E731
        pipes = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        verify = subprocess.Popen(cmd("verify"), env=fl.run_env(hold), **pipes)
        fl.held(verify, "verify")
        need(not os.path.exists(os.path.join(index, "DIRTY")), "the index was DIRTY before repair ran")
        repair = subprocess.Popen(cmd("repair"), env=fl.run_env(hold), **pipes)
        fl.held(repair, "repair")
        need(os.path.exists(os.path.join(index, "DIRTY")) and
                 not os.path.exists(os.path.join(index, "fingerprints.db")),
                 "repair was not held between removing the index and creating the new one")
        v = fl.let_go(verify, "verify")
        r = fl.let_go(repair, "repair")
        need(r.rc == 0 and not r.bad_stderr(), "repair: " + r.describe())
        need(v.rc == 0 and not v.bad_stderr(), "verify during repair: " + v.describe())
        need("fingerprint index not checked: a backup or repair is rebuilding it" in v.err_text(),
                 "verify during repair did not say the index is being rebuilt: " + v.describe())
        after = fl.destor(cfg, "verify")
        need(after.rc == 0 and "not checked" not in after.err_text(), "verify after repair: " + after.describe())
        print("# verify held across repair's rebuild of the index: exit 0, index reported as being rebuilt")
        ok = True
    finally:
        scratch.finish(ok)


if __name__ == "__main__":
    main()
