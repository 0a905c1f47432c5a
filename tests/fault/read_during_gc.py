#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""read_during_gc.py: a reader that opened a job before it was deleted keeps
every container the job names while gc runs (docs/ARCHITECTURE.md,
"Lifecycle").

No timing: the fault shim's stop action holds restore of job 0 at its first
mapping of a container (FAULT_ACTION=stop), after it opened the store, the job
and its records. Job 0 is deleted meanwhile (a new reader refuses it at once,
exit 2), and gc, finding the readers' lock held, frees nothing and says so.
Restore then goes on and must give job 0's tree byte for byte; the next gc
frees job 0's containers, and job 1 restores and verifies as before. Run on
the store kind DESTOR_TEST_CONTAINER_STORE names (pool when unset).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402


def need(cond, msg):
    if not cond:
        fl.die(msg)


def gc(cfg):
    r = fl.destor(cfg, "gc", "--json")
    need(r.rc == 0 and not r.bad_stderr(), "gc: " + r.describe())
    return json.loads(r.out)


def main():
    fl.require_env()
    scratch = fl.Scratch("read_during_gc")
    ok = False
    try:
        kind = os.environ.get("DESTOR_TEST_CONTAINER_STORE", "pool")
        work = scratch.path("w")
        cfg = fl.write_config(scratch.path("destor.config"), work, "container-size 128K", "container-store " + kind)
        trees = []
        for seed in (41, 42):  # two trees of their own: job 0's containers are its alone
            out = scratch.path("data%d" % seed)
            fl.gen_data(out, "--preset", "tiny", "--size", "2M", "--seed", str(seed))
            trees.append(os.path.join(out, "v1"))
            r = fl.destor(cfg, "backup", trees[-1])
            need(r.rc == 0, "backup: " + r.describe())
        want0, want1 = fl.tree(trees[0]), fl.tree(trees[1])
        # its first container: mapped in place (a pool or files store's read path)
        hold = dict(fl.fault_env(fl.shim(scratch), "map", 1, "EIO", path="containers"), FAULT_ACTION="stop")
        target = scratch.path("restored0")
        restore = subprocess.Popen([fl.DESTOR, "-c", cfg, "restore", "0", target], env=fl.run_env(hold),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        fl.held(restore, "restore of job 0")
        r = fl.destor(cfg, "delete", "0")
        need(r.rc == 0, "delete beside a reader: " + r.describe())
        r = fl.destor(cfg, "list", "0")
        need(r.rc == 2 and "was deleted" in r.err_text(), "a new reader of the deleted job: " + r.describe())
        first = gc(cfg)
        need(first["deferred"] and first["containers_freed"] == 0 and first["containers_dead"] > 0,
             "gc beside a reader freed something or found nothing to free: %s" % first)
        res = fl.let_go(restore, "restore")
        need(res.rc == 0 and not res.bad_stderr(), "restore held across gc: " + res.describe())
        problems = fl.tree_diff(want0, target)
        need(not problems, "restore held across gc: " + "; ".join(problems[:5]))
        second = gc(cfg)
        need(not second["deferred"] and second["containers_freed"] == first["containers_dead"],
             "gc after the reader left: %s (before: %s)" % (second, first))
        r = fl.destor(cfg, "restore", "1", scratch.path("restored1"))
        need(r.rc == 0, "restore of job 1 after gc: " + r.describe())
        problems = fl.tree_diff(want1, scratch.path("restored1"))
        need(not problems, "job 1 after gc: " + "; ".join(problems[:5]))
        r = fl.destor(cfg, "verify", "--deep")
        need(r.rc == 0, "verify --deep after gc: " + r.describe())
        print("# restore held across delete and gc (%s store): gc deferred %d containers, restore exact, "
              "the next gc freed them" % (kind, first["containers_dead"]))
        ok = True
    finally:
        scratch.finish(ok)


if __name__ == "__main__":
    main()
