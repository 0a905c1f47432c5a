# SPDX-License-Identifier: GPL-3.0-or-later
# replay: run one trace through `destor read-file --trace` once per SSD cache
# policy and tabulate what each cost and bought.  It exists because the
# PLC-Cache paper compares HDD only, FIFO, LRU, LFU and PLC-Cache on the same
# workload (section V, Figs. 6 to 9): every policy must see the same trace
# from an empty cache, and the numbers must come straight from destor's own
# counters (hit ratio, bytes written to the SSD, measured and modelled
# latency, quadrant shares of the written data, projected SSD lifetime), so
# the comparison is reproducible and checkable.  Output: one row per run in
# PREFIX.csv and PREFIX.json (which also keeps destor's raw summary of every
# run) and a Markdown table in PREFIX.md.

import argparse
import os
import shutil
import sys
import time
from typing import Any

from destor_tools.errors import ToolError, UsageError, main_wrapper
from destor_tools.formatting import format_bytes, size_label
from destor_tools.options import option_values
from destor_tools import progress_bar
from destor_tools import destor_runner
from destor_tools import trace_draw
from destor_tools import policy_replay
from destor_tools import result_files
from destor_tools import plot_style
from destor_tools import parallel_sweep

PROG = "replay"


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Replay TRACE once per cache policy with destor read-file --trace --json and "
                    "write the results as CSV, JSON and a Markdown table.",
        epilog="Policy 'none' is the HDD-only system (no SSD cache); its modelled latency is "
               "computed here with destor's HDD model (every container access is an HDD read).  "
               "In real mode the cache directory is emptied before every run; replay only ever "
               "empties a new or empty directory, or one it created before.")
    ap.add_argument("trace", help="trace file (scripts/gen-trace, import-trace); with --seeds, a name "
                                  "holding {seed}, replaced by each seed")
    ap.add_argument("--policies", default="fifo,lru,lfu,plc",
                    help="comma-separated: none (no cache) or policies `destor policies` lists, "
                         "or all = every online policy (default fifo,lru,lfu,plc)")
    ap.add_argument("--cache-size", default="20%",
                    help="ssd-cache-size: N containers, a size like 4G, or a share of the stored "
                         "containers like 20%% (default 20%%, the paper's)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--simulate", dest="simulate", action="store_true", default=True,
                      help="simulation mode: the cache runs on container ids (default)")
    mode.add_argument("--real", dest="simulate", action="store_false",
                      help="real mode: containers are read and written to --cache-dir")
    ap.add_argument("--cache-dir", metavar="DIR",
                    help="ssd-cache-directory (real mode; default: a new directory PREFIX.cache)")
    ap.add_argument("--config", "-c", metavar="FILE", help="destor config file")
    ap.add_argument("--destor", default=destor_runner.default_destor(),
                    help=destor_runner.DESTOR_HELP)
    ap.add_argument("-p", dest="params", action="append", default=[], metavar='"KEY VALUE"',
                    help="extra destor config line for every run, e.g. -p 'plc-filter-threshold 4' "
                         "(repeatable)")
    ap.add_argument("--out-prefix", metavar="P",
                    help="write P.csv, P.json, P.md (default: the trace's name without extension, "
                         "plus .replay)")
    ap.add_argument("--progress", dest="progress", action="store_true", default=None,
                    help="draw the progress bar even when stderr is not a terminal")
    ap.add_argument("--no-progress", dest="progress", action="store_false",
                    help="never draw the progress bar")
    ap.add_argument("--seeds", metavar="LIST",
                    help="one trace per seed: TRACE names it with {seed}; e.g. 1-5 or 1,3,7.  The CSV "
                         "keeps every seed's rows and adds a mean and a ci95 row (half-width of the "
                         "95%% confidence interval, Student t) per policy")
    ap.add_argument("--jobs", "-j", type=int, metavar="N",
                    help="runs at a time on this machine (default: all cores; real mode: 1)")
    ap.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                    help="send the runs to this Dask distributed scheduler (docs/EXPERIMENTS.md)")
    ap.add_argument("--keep-cache", action="store_true",
                    help="real mode: keep the cache directory replay made (default: removed at the end)")
    ap.add_argument("--quiet", "-q", action="store_true", help="do not print the table")
    a = ap.parse_args(option_values(ap, argv))
    try:
        a.seeds = parallel_sweep.parse_seeds(a.seeds) if a.seeds else None
        policy_replay.check_cache_size(a.cache_size)
    except UsageError as e:
        ap.error(str(e))
    if a.seeds and "{seed}" not in a.trace:
        ap.error("--seeds needs a trace name holding {seed} (e.g. z-seed{seed}.trace)")
    if not a.seeds and "{seed}" in a.trace:
        ap.error("the trace name holds {seed}: give --seeds")
    if a.jobs is not None and a.jobs < 1:
        ap.error("--jobs must be at least 1")
    if a.scheduler and not a.simulate:
        ap.error("--scheduler runs simulations only (real mode measures this machine's SSD)")
    try:  # destor policies --json is the authority on policy names
        a.policies = destor_runner.resolve_policies(a.destor, a.policies)
    except ToolError as e:
        ap.error(str(e))
    if a.out_prefix is None:
        a.out_prefix = os.path.splitext(a.trace.replace("{seed}", "seeds"))[0] + ".replay"
    return a


def traces(a: argparse.Namespace) -> list[tuple[int | None, str]]:
    """[(seed or None, trace path)], every trace checked readable."""
    out = [(s, a.trace.replace("{seed}", str(s))) for s in a.seeds] if a.seeds else [(None, a.trace)]
    for _, t in out:
        if not os.path.isfile(t):
            raise UsageError("trace %s not found" % t)
    return out


def write_outputs(a: argparse.Namespace, doc: dict[str, Any], rows: list[dict[str, Any]],
                  cache_dir: str | None, interrupted: bool) -> str:
    doc["rows"] = rows
    result_files.write_csv(a.out_prefix + ".csv", rows)
    result_files.write_json(a.out_prefix + ".json", doc)
    md = ["# Replay of %s" % os.path.basename(a.trace), "",
          "%s mode, cache %s of the stored containers%s; destor %s." % (
              doc["mode"], a.cache_size,
              ", extra settings: " + "; ".join(a.params) if a.params else "", a.destor), ""]
    if interrupted:
        md += ["Interrupted: only the runs that finished are shown.", ""]
    if rows:
        r0 = rows[0]
        md.append("%d requests, %s read, %d container accesses; container %s, %s containers stored."
                  % (r0["requests"], format_bytes(r0["bytes_read"]), r0["container_accesses"],
                     size_label(r0["container_size"]), r0["store_containers"]))
        md.append("")
    table = result_files.markdown_table(rows, lead=("seed", "seed") if a.seeds else None)
    md.append(table)
    if a.seeds:
        md.append("Rows 'mean' and 'ci95' summarise the %d seeds: the mean, and the half-width of its "
                  "95%% confidence interval (Student t, %d degrees of freedom).\n"
                  % (len(a.seeds), len(a.seeds) - 1))
    md.append("Latency modelled: destor's device model (5400 rpm HDD, SATA SSD; "
              "src/cache/common/device_model.h), mean per request.  Measured: wall time per request "
              "in destor (ids only in simulation mode).  Lifetime: the SSD's rated TBW over the "
              "modelled write rate.")
    with open(a.out_prefix + ".md", "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    return table


def run(argv: list[str]) -> int:
    a = parse_args(argv)
    # every argument is checked before the first run
    destor_runner.check_destor(a.destor)
    if a.config and not os.path.isfile(a.config):
        raise UsageError("config %s not found" % a.config)
    seeded = traces(a)
    cache_dir, made_cache = a.cache_dir, False
    if not a.simulate:
        if cache_dir is None:
            cache_dir = a.out_prefix + ".cache"
        made_cache = not os.path.exists(cache_dir)
        policy_replay.prepare_cache_dir(cache_dir)
    store = destor_runner.store_stat(a.destor, a.config, a.params)
    points: list[dict[str, Any]] = []
    for seed, trace in seeded:
        lines = trace_draw.trace_lines(trace)
        run_trace = policy_replay.compile_trace(a.destor, a.config, a.params, trace, "%s%s.compiled-trace" % (
            a.out_prefix, ".seed%d" % seed if seed is not None else ""))
        for pol in a.policies:
            points.append({"key": "%s|%s" % (seed, pol), "weight": lines, "seed": seed, "trace": trace,
                           "spec": {"trace": run_trace, "policy": pol, "cache_size": a.cache_size,
                                    "simulate": a.simulate, "cache_dir": cache_dir, "config": a.config,
                                    "destor": a.destor, "params": a.params, "store": store}})
    progress = progress_bar.Progress(sum(p["weight"] for p in points), enabled=a.progress)
    jobs = 1 if not a.simulate else a.jobs

    def label(p, k, n):
        return "%s%s (%d/%d)" % (plot_style.policy_label(p["spec"]["policy"]),
                                 " seed %d" % p["seed"] if p["seed"] is not None else "", k + 1, n)
    t0 = time.time()
    doc = {
        "tool": "scripts/replay",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t0)),
        "trace": a.trace, "seeds": a.seeds, "policies": a.policies, "cache_size": a.cache_size,
        "mode": "simulate" if a.simulate else "real", "cache_directory": cache_dir,
        "config": a.config, "params": a.params,
    }
    results: list[Any] = []
    interrupted = False
    try:
        parallel_sweep.run_points(points, jobs, a.scheduler, None, progress, label=label, results=results)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.close()
        if made_cache and not a.keep_cache and cache_dir and os.path.isdir(cache_dir):
            shutil.rmtree(cache_dir, ignore_errors=True)
        for p in points:
            if p["spec"]["trace"] != p["trace"] and os.path.exists(p["spec"]["trace"]):
                os.unlink(p["spec"]["trace"])
    rows, raws = [], []
    for p, res in zip(points, results):
        if res is None:
            continue
        row = res[0]
        row["trace"] = p["trace"]
        if a.seeds:
            row = dict([("seed", p["seed"])] + list(row.items()))
        rows.append(row)
        raws.append(res[1])
    if a.seeds and not interrupted:
        rows += parallel_sweep.aggregate(rows, ["policy"])
    doc["destor_summaries"] = raws
    table = write_outputs(a, doc, rows, cache_dir, interrupted)
    if not a.quiet:
        sys.stdout.write(table)
    print("%s: wrote %s.csv, %s.json, %s.md%s" % (PROG, a.out_prefix, a.out_prefix, a.out_prefix,
                                                  " with the %d runs that finished" % len(raws)
                                                  if interrupted else ""), file=sys.stderr)
    if interrupted:
        raise KeyboardInterrupt
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    return main_wrapper(PROG, lambda: run(sys.argv[1:] if argv is None else argv))
