# SPDX-License-Identifier: GPL-3.0-or-later
# experiment: run one of the PLC-Cache paper's evaluation experiments
# (section V, Figs. 6 to 24) end to end on a destor store and write its CSV,
# PNG plots and a Markdown report with the headline numbers.  It exists so
# each figure of the paper can be reproduced on our own data with one
# command: the store is ingested (or reused), a Zipf trace is drawn with
# scripts/gen-trace's generator, every configuration replays the same trace
# from an empty cache through `destor read-file --trace` (simulation mode by
# default, the real SSD cache with --real), and the numbers are destor's own
# counters.  --quick shrinks everything so CI can run a sweep in seconds.
# Beyond the paper, `frontier` runs every policy destor lists (and
# parameter sweeps) at one cache size and draws the Pareto frontier of hit
# ratio against SSD bytes written (scripts/destor_tools/frontier_experiment.py),
# and `robustness` runs every online policy on several workloads at 20% and
# 10% caches and tabulates each one's loss against the best online policy
# (scripts/destor_tools/robustness_experiment.py).  `fragmentation` backs a
# multi-version dataset up under each rewriting setting and reports dedup,
# fragmentation, restore and SSD cache figures
# (scripts/destor_tools/fragmentation_experiment.py).  `granularity` puts the
# container cache and the chunk cache (ssd-cache-granularity) side by side
# on one store and trace (scripts/destor_tools/granularity_experiment.py,
# its own options: experiment granularity --help).  The paper's six:
# experiment_table (what each runs), experiment_store, experiment_points,
# overall_experiment, sweep_experiments, paper_figures, experiment_report.

import argparse
import os
import sys
import time

from destor_tools.errors import UsageError, main_wrapper
from destor_tools.options import option_values
from destor_tools.sizes import parse_budget, parse_size
from destor_tools import destor_runner
from destor_tools import policy_replay
from destor_tools import result_files
from destor_tools import parallel_sweep
from destor_tools import plot_style
from destor_tools import frontier_experiment
from destor_tools import robustness_experiment
from destor_tools import fragmentation_experiment
from destor_tools import granularity_experiment
from destor_tools import overall_experiment
from destor_tools import sweep_experiments
from destor_tools.experiment_points import execute
from destor_tools.experiment_report import paper_sections, write_report
from destor_tools.experiment_store import Context
from destor_tools.experiment_table import EXPERIMENTS, ORDER, PROG, figs_note


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Reproduce one PLC-Cache experiment: %s, or all of them.  Or run frontier (not "
                    "in the paper): every policy `destor policies` lists at its defaults, offline "
                    "ones as bounds, and the sweeps %s, each only when destor lists its policy; all "
                    "at one cache size in simulation mode.  A point is on the Pareto frontier when "
                    "no other point has at least its hit ratio and at most its SSD bytes written, "
                    "one of them strictly; the frontier is found over every point and over the "
                    "online points only.  frontier writes frontier.csv (one row per point, with "
                    "its flags), fig-frontier and REPORT.md (the frontier points in order, each "
                    "online policy's distance below the frontier at its own write volume, in "
                    "hit-ratio points).  Or robustness: every online policy on the workloads of "
                    "robustness_experiment (zipf, zipf-shift, recency, recency-objects; and --trace) at "
                    "20%% and 10%% caches; robustness.csv has each one's hit-ratio loss against the best "
                    "online policy and its writes over PLC's, REPORT.md the worst case per policy.  "
                    "Two more take their own options (experiment NAME --help): granularity, the "
                    "container cache against the chunk cache on one store and trace; fragmentation, "
                    "backup jobs' fragmentation, restore and SSD cache figures."
                    % (", ".join("%s (%s)" % (n, EXPERIMENTS[n]["figs"]) for n in ORDER),
                       ", ".join("%s in {%s} for %s" % (k, ", ".join(map(frontier_experiment.value_text, v)), p)
                                 for p, k, v in frontier_experiment.SWEEPS)),
        epilog="The store: --workdir DIR uses an existing destor working directory; --dataset DIR "
               "ingests DIR (its v1, v2, ... subdirectories in order when it has them, as "
               "scripts/gen-dataset writes, else DIR itself) into OUT/stores; --config FILE alone "
               "uses the store FILE names; with none of them a dataset is generated with "
               "scripts/gen-dataset (--preset, default small; tiny with --quick).  container-size "
               "always re-ingests, so it needs a dataset.")
    ap.add_argument("name", choices=ORDER + ["frontier", "robustness", "all"], metavar="NAME",
                    help="the experiment: %s (all = the paper's six, not frontier nor robustness)"
                         % ", ".join(ORDER + ["frontier", "robustness", "all"]))
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--dataset", metavar="DIR", help="dataset tree to ingest")
    src.add_argument("--workdir", metavar="DIR", help="existing destor working directory")
    ap.add_argument("--preset", choices=("tiny", "small", "paper"),
                    help="gen-dataset preset when neither --dataset nor --workdir is given")
    ap.add_argument("--config", "-c", metavar="FILE",
                    help="destor config (chunking, model, ...); working-directory and "
                         "container-size are overridden when this script ingests")
    ap.add_argument("-p", dest="params", action="append", default=[], metavar='"KEY VALUE"',
                    help="extra destor config line for every replay (repeatable)")
    ap.add_argument("--destor", default=destor_runner.default_destor(),
                    help=destor_runner.DESTOR_HELP)
    ap.add_argument("--out", metavar="DIR", help="results directory (default experiments/NAME)")
    ap.add_argument("--real", action="store_true",
                    help="real mode: read containers and write them to the cache directory "
                         "(default: simulation mode)")
    ap.add_argument("--cache-dir", metavar="DIR",
                    help="SSD cache directory in real mode (default OUT/cache; emptied before "
                         "every run, so give a new directory)")
    ap.add_argument("--quick", action="store_true",
                    help="small run for CI: tiny dataset, 128K containers, 3 points per sweep "
                         "(frontier keeps all its points)")
    ap.add_argument("--job", default="0", help="job whose files are read, or 'last' (default 0)")
    ap.add_argument("--alpha", type=float, default=0.47, help="Zipf alpha (default 0.47)")
    ap.add_argument("--seed", type=int, default=1, help="trace seed (default 1)")
    ap.add_argument("--seeds", metavar="LIST",
                    help="run every point once per seed, e.g. 1-5 or 1,3,7 (overrides --seed); the CSV "
                         "adds a mean and a ci95 row (half-width of the 95%% confidence interval, "
                         "Student t) per point and the plots draw error bars")
    ap.add_argument("--jobs", "-j", type=int, metavar="N",
                    help="points run at a time on this machine (default: all cores; real mode: 1)")
    ap.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                    help="send the points to this Dask distributed scheduler, whose workers run destor "
                         "on the same paths (docs/EXPERIMENTS.md)")
    ap.add_argument("--requests", type=int, help="trace length in requests")
    ap.add_argument("--bytes", default=None,
                    help="trace length in bytes read: a size or a multiple of the job's file "
                         "bytes (default 2.6x, the paper's 520 GB over 200 GB)")
    ap.add_argument("--shift-every", type=int, metavar="K", help="working-set shift every K requests")
    ap.add_argument("--trace", metavar="FILE",
                    help="replay this read-file trace of the store's job (scripts/import-trace, "
                         "gen-trace) instead of a generated Zipf one; needs --workdir or --config, "
                         "and no --seeds, --alpha, --requests, --bytes or --shift-every, nor the "
                         "alpha experiment")
    ap.add_argument("--cache-size", default="20%", help="SSD cache size (default 20%%)")
    ap.add_argument("--container-size", default=None,
                    help="container size of the ingested store (default 2M; 128K with --quick)")
    ap.add_argument("--policies", help="override the experiment's policies (comma-separated; "
                                       "all = every online policy `destor policies` lists; frontier "
                                       "takes offline ones too, and sweeps those it has a sweep for)")
    ap.add_argument("--values", help="override the swept values (comma-separated; not for overall "
                                     "or frontier)")
    ap.add_argument("--keep-stores", action="store_true",
                    help="container-size: keep every store (default: only the base one)")
    ap.add_argument("--progress", dest="progress", action="store_true", default=None,
                    help="draw the progress bar even when stderr is not a terminal")
    ap.add_argument("--no-progress", dest="progress", action="store_false")
    ap.add_argument("--format", dest="formats", default="png",
                    help="figure formats, comma-separated from png, pdf, svg (default png)")
    given = {x.split("=")[0] for x in argv if x.startswith("--")}
    a = ap.parse_args(option_values(ap, argv))
    if not 0 <= a.alpha <= 1:
        ap.error("--alpha must be in [0, 1]")
    if a.requests is not None and a.requests < 0:
        ap.error("--requests must not be negative")
    if a.shift_every is not None and a.shift_every <= 0:
        ap.error("--shift-every must be positive")
    if a.job != "last" and not a.job.isdigit():
        ap.error("--job must be a job id (0, 1, ...) or 'last', got %r" % a.job)
    if a.trace is not None:
        clash = sorted(given & {"--seeds", "--alpha", "--requests", "--bytes", "--shift-every"})
        if clash or a.name in ("alpha", "all"):
            ap.error("--trace replays the given trace: not with %s"
                     % (", ".join(clash) if clash else "the alpha experiment"))
        if not (a.workdir or a.config):
            ap.error("--trace reads the files of an existing store: give --workdir or --config")
        if not os.path.isfile(a.trace):
            ap.error("--trace %s is not a file" % a.trace)
    if a.requests is None and a.bytes is None:
        a.bytes = "2.6x"
    try:
        a.formats = plot_style.parse_formats(a.formats)
        a.seeds = parallel_sweep.parse_seeds(a.seeds) if a.seeds else [a.seed]
        policy_replay.check_cache_size(a.cache_size)
        if a.bytes is not None:
            parse_budget(a.bytes, 1)
    except UsageError as e:
        ap.error(str(e))
    if a.jobs is not None and a.jobs < 1:
        ap.error("--jobs must be at least 1")
    if a.scheduler and a.real:
        ap.error("--scheduler runs simulations only (real mode measures this machine's SSD)")
    if a.name == "frontier" and a.real:
        ap.error("frontier runs in simulation mode only (its offline bounds need the whole trace)")
    if a.name == "frontier" and a.values:
        ap.error("frontier's sweeps are fixed (frontier_experiment.SWEEPS); --values does not apply")
    if a.name == "robustness":
        clash = sorted(given & {"--real", "--values", "--shift-every", "--cache-size"})
        if clash:
            ap.error("robustness runs fixed workloads at %s caches in simulation mode: not with %s"
                     % (" and ".join(robustness_experiment.CACHE_SIZES), ", ".join(clash)))
    if a.container_size is None:
        a.container_size = "128K" if a.quick else "2M"
    try:
        if parse_size(a.container_size) <= 0:
            ap.error("--container-size must be at least 1 byte, got %r" % a.container_size)
    except UsageError as e:
        ap.error("--container-size: %s" % e)
    if a.preset is None:
        a.preset = "tiny" if a.quick else "small"
    if a.out is None:
        a.out = os.path.join("experiments", a.name)
    return a


def run_one(ctx: Context, name: str, outdir: str) -> str:
    os.makedirs(outdir, exist_ok=True)
    t0 = time.monotonic()
    runs, rows, raws = execute(ctx, name, outdir)
    if name in ("frontier", "robustness"):
        finish = frontier_experiment.finish if name == "frontier" else robustness_experiment.finish
        figs, heads, results = finish(ctx, outdir, runs, rows, raws)
        report = write_report(ctx, name, outdir, runs, figs, time.monotonic() - t0, heads, [], results)
        print("== %s (%s): %s" % (name, figs_note(name), os.path.relpath(report)))
        print("\n".join(heads))
        return report
    summary, agg = rows, []
    if len(ctx.a.seeds) > 1:
        # one mean row per point, its ci95 row beside it for the error bars
        agg = parallel_sweep.aggregate(rows, ["experiment", "x", "group", "policy"])
        summary = []
        for m, c in zip(agg[0::2], agg[1::2]):
            summary.append(dict(m, _ci=c))
    fields = ["experiment", "x", "group", "alpha", "seed", "seeds", "trace_files"] + policy_replay.ROW_FIELDS
    result_files.write_csv(os.path.join(outdir, "%s.csv" % name), rows + agg, fields)
    result_files.write_json(os.path.join(outdir, "%s.json" % name), {
        "experiment": name, "paper": EXPERIMENTS[name]["figs"], "mode": "real" if ctx.a.real else "simulate",
        "quick": ctx.a.quick, "args": vars(ctx.a), "trace": runs[0]["trace_info"],
        "rows": rows, "seed_summary": agg, "destor_summaries": raws})
    figs = overall_experiment.plot(summary, outdir, ctx.a.real, ctx.a.formats) if name == "overall" else \
        sweep_experiments.plot(name, summary, outdir, ctx.a.real, ctx.a.formats)
    heads, checks, results = paper_sections(ctx, name, summary)
    report = write_report(ctx, name, outdir, runs, figs, time.monotonic() - t0, heads, checks, results)
    print("== %s (%s): %s" % (name, figs_note(name), os.path.relpath(report)))
    for h in heads:
        print(h)
    for crit, ok, num in checks:
        print("  [%s] %s: %s" % ("met" if ok else "MISSED", crit, num))
    return report


def run(argv: list[str]) -> int:
    if argv and argv[0] == "granularity":
        return granularity_experiment.main(argv[1:])
    if argv[:1] == ["fragmentation"]:  # its own options: destor_tools/fragmentation_experiment.py
        return fragmentation_experiment.main(argv[1:])
    a = parse_args(argv)
    ctx = Context(a)
    names = ORDER if a.name == "all" else [a.name]
    for n in names:
        outdir = os.path.join(ctx.root, n) if a.name == "all" else ctx.root
        run_one(ctx, n, outdir)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    return main_wrapper(PROG, lambda: run(sys.argv[1:] if argv is None else argv))
