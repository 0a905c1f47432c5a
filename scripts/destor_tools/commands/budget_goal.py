# SPDX-License-Identifier: GPL-3.0-or-later
# budget-goal: issue 38's goal on one workload and one cache size, in
# simulation.  It exists because the goal compares runs that must share one
# budget (PLC's own bytes written), and taking that budget from one run to
# twenty others and opt-budget by hand is how a figure gets the wrong one.

import argparse
import json
import os
import sys
from typing import Any

from destor_tools.destor_runner import check_destor, default_destor, destor_base, run_destor
from destor_tools.errors import ToolError, main_wrapper

PROG = "budget-goal"
BUCKET = "lru,lfu,arc,larc,s3fifo,minisim,wlfu,sigpop,plc"
RANKED = "lru,arc,s3fifo,lfu,wlfu,minisim"
RULES = ("bucket", "compete", "learned")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Issue 38's goal on one workload and cache size, in simulation: B = PLC's unbudgeted "
                    "SSD bytes written per request; every online policy under B with the admission rules "
                    "bucket (first come, first served), compete and learned; opt-budget at PLC's container "
                    "writes. Prints a row per run and the goal row: goal = the best bucket run plus half "
                    "the gap from it to opt-budget.",
        epilog="The store must exist (--workdir); the trace is a read-file trace of it (e.g. from "
               "import-trace or gen-trace).")
    ap.add_argument("--workdir", required=True, help="the store's working directory")
    ap.add_argument("--trace", required=True, help="the read-file trace replayed")
    ap.add_argument("--size", default="10%", help="ssd-cache-size (default 10%%)")
    ap.add_argument("--destor", default=None, help="the destor binary (default: the source tree's build)")
    ap.add_argument("--bucket", default=BUCKET, help="policies run with bucket (default %s)" % BUCKET)
    ap.add_argument("--ranked", default=RANKED, help="policies run with compete and learned (default %s)" % RANKED)
    ap.add_argument("--json", metavar="FILE", help="also write every run's figures as JSON")
    return ap.parse_args(argv)


def replay(a: argparse.Namespace, policy: str, params: list[str]) -> dict[str, Any]:
    cmd = destor_base(a.destor, None, ["working-directory " + a.workdir, "ssd-cache-policy " + policy,
                                       "ssd-cache-size " + a.size] + params)
    out = run_destor(cmd + ["read-file", "--trace", a.trace, "--simulate", "--json"], "%s %s" % (policy, params))
    cache: dict[str, Any] = json.loads(out)["cache"]
    return {"policy": policy, "hit_ratio": cache["hit_ratio"], "ssd_bytes_written": cache["ssd_bytes_written"],
            "ssd_containers_written": cache["ssd_containers_written"], "requests": cache["requests"],
            "memory_bytes_admission": cache["memory_bytes_admission"],
            "memory_bytes_admission_per_container": cache["memory_bytes_admission_per_container"]}


def run(argv: list[str]) -> int:
    a = parse_args(argv)
    a.destor = a.destor or default_destor()
    check_destor(a.destor)
    plc = replay(a, "plc", [])
    if plc["ssd_bytes_written"] == 0:
        raise ToolError("PLC wrote nothing on %s: no budget to share" % a.trace)
    budget = plc["ssd_bytes_written"] / plc["requests"]
    print("| policy | admission | hit ratio | GiB written | admission B / stored container |")
    print("|---|---|---|---|---|")
    runs: dict[str, list[dict[str, Any]]] = {}
    for rule in RULES:
        for name in (a.bucket if rule == "bucket" else a.ranked).split(","):
            r = replay(a, name, ["ssd-cache-write-budget %r" % budget, "ssd-cache-admission " + rule])
            runs.setdefault(rule, []).append(r)
            print("| %s | %s | %.2f%% | %.2f | %.2f |" % (name, rule, 100 * r["hit_ratio"],
                                                        r["ssd_bytes_written"] / 2**30,
                                                        r["memory_bytes_admission_per_container"]), flush=True)
    opt = replay(a, "opt-budget", ["opt-budget-writes %d" % plc["ssd_containers_written"]])
    best = {rule: max(runs[rule], key=lambda r: r["hit_ratio"]) for rule in RULES}
    goal = best["bucket"]["hit_ratio"] + (opt["hit_ratio"] - best["bucket"]["hit_ratio"]) / 2
    print()
    print("| size, trace | plc | best bucket | best compete | best learned | opt-budget | goal "
          "| compete - goal | learned - goal |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("| %s %s | %.2f%% | %s %.2f%% | %s %.2f%% | %s %.2f%% | %.2f%% | %.2f%% | %+.2f | %+.2f |" % (
        a.size, os.path.basename(a.trace), 100 * plc["hit_ratio"],
        best["bucket"]["policy"], 100 * best["bucket"]["hit_ratio"],
        best["compete"]["policy"], 100 * best["compete"]["hit_ratio"],
        best["learned"]["policy"], 100 * best["learned"]["hit_ratio"],
        100 * opt["hit_ratio"], 100 * goal,
        100 * (best["compete"]["hit_ratio"] - goal), 100 * (best["learned"]["hit_ratio"] - goal)))
    if a.json:
        try:
            with open(a.json, "w") as f:
                json.dump({"size": a.size, "trace": a.trace, "budget_bytes_per_request": budget, "goal": goal,
                           "plc": plc, "opt_budget": opt, "runs": runs}, f, indent=1)
        except OSError as e:
            raise ToolError("cannot write %s: %s" % (a.json, e.strerror or e))
    return 0


def main(argv: list[str] | None = None) -> int:
    return main_wrapper(PROG, lambda: run(sys.argv[1:] if argv is None else argv))
