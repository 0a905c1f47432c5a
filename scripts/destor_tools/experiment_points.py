# SPDX-License-Identifier: GPL-3.0-or-later
"""experiment_points: the runs of one experiment (plan) and running them
(execute), store by store, each store's points in parallel, resumable
through a journal of finished points.

Why it exists: every experiment but fragmentation and granularity is a
list of (x, policy, cache size, settings, seed) points replayed on one
trace; this is that list and its execution.
"""

import json
import os
from typing import Any

from .errors import UsageError
from .sizes import parse_size
from . import progress_bar
from . import destor_runner
from . import trace_draw
from . import policy_replay
from . import parallel_sweep
from . import frontier_experiment
from . import robustness_experiment
from .plot_style import policy_label
from .experiment_store import Context, expand_policies
from .experiment_table import EXPERIMENTS


def plan(ctx: Context, name: str, outdir: str) -> list[dict[str, Any]]:
    """The runs of experiment `name`: a list of dicts with x, policy, cache
    size, container size, extra params and alpha."""
    e = EXPERIMENTS[name]
    a = ctx.a
    runs = []

    def add(x, pol, cache=None, cs=None, params=(), alpha=None, group="main", point=None):
        for seed in a.seeds:
            runs.append({"x": x, "policy": pol, "cache_size": cache or a.cache_size, "cs": cs,
                         "params": list(params), "alpha": a.alpha if alpha is None else alpha,
                         "group": group, "seed": seed, "point": point})

    if name == "robustness":
        pols = expand_policies(ctx.destor, a.policies.split(",") if a.policies else e["policies"])
        for w in robustness_experiment.workload_names(a.trace is not None):
            for size in robustness_experiment.CACHE_SIZES:
                for p in pols:
                    add(w, p, cache=size, group=size)
        return runs
    if name == "frontier":
        names = destor_runner.resolve_policies(ctx.destor, a.policies, allow_none=False) \
            if a.policies else None
        cfg, sparams = ctx.store_for(None)
        st = ctx.stat(cfg, sparams)
        capacity = policy_replay.capacity_containers(a.cache_size, st.get("containers", 0),
                                                     st.get("container_size", 0))
        # the online policies' budgets are bytes per request of the trace,
        # or DWPD over a timed trace's days
        _, info = ctx.trace(cfg, sparams, a.alpha, a.seeds[0], os.path.join(outdir, "traces"))
        unit = st.get("container_size", 0) / info["requests"] if info.get("requests") else None
        days = info["seconds"] / 86400 if info.get("seconds") else None
        for pt in frontier_experiment.plan_points(destor_runner.destor_policies(ctx.destor), names, capacity,
                                                  unit, days):
            add(pt["x"], pt["policy"], params=pt["params"], group="offline" if pt["offline"] else "online",
                point=pt)
        return runs
    pols = expand_policies(ctx.destor, a.policies.split(",") if a.policies else e["policies"])
    values = e["quick"] if a.quick and e["values"] else e["values"]
    if a.values and e["values"] is not None:
        raw = [v.strip() for v in a.values.split(",") if v.strip()]
        if name in ("cache-size",):
            values = [float(v.rstrip("%")) for v in raw]
        elif name == "alpha":
            values = [float(v) for v in raw]
        elif name == "container-size":
            values = raw
        else:
            values = [int(v) for v in raw]
    if name == "overall":
        for p in pols:
            add("main", p)
        # Fig. 9: LRU against PLC at a 10% cache, for the quadrant shares
        for p in ("lru", "plc"):
            add("fig9", p, cache="10%", group="fig9")
    elif name == "cache-size":
        for v in values:
            for p in pols:
                add(v, p, cache="%g%%" % v)
    elif name == "alpha":
        for v in values:
            for p in pols:
                add(v, p, alpha=v)
    elif name == "container-size":
        if ctx.existing_store():
            raise UsageError("container-size re-ingests the dataset: give --dataset DIR (or no "
                             "--workdir/--config, to generate one)")
        for v in values:
            cs = parse_size(v)
            for p in pols:
                add(cs, p, cs=cs)
    else:
        for v in values:
            for p in pols:
                add(v, p, params=["%s %d" % (e["key"], v)])
        if not a.policies:
            add("reference", "lru", group="reference")
    return runs


def point_key(r: dict[str, Any]) -> str:
    return json.dumps([r["x"], r["group"], r["policy"], r["cache_size"], r["cs"], r["params"],
                       r["alpha"], r["seed"]])


def execute(ctx: Context, name: str, outdir: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
            list[Any]]:
    """Run every point of the experiment, store by store (container-size
    ingests one store at a time, for disk space), each store's points in
    parallel.  Finished points go to NAME.points.jsonl, so an interrupted
    run resumes; the journal is removed once every point is done."""
    a = ctx.a
    runs = plan(ctx, name, outdir)
    tracedir = os.path.join(outdir, "traces")
    cache_dir = None
    if a.real:
        cache_dir = os.path.abspath(a.cache_dir) if a.cache_dir else os.path.join(outdir, "cache")
    fingerprint = {k: v for k, v in vars(a).items()
                   if k not in ("jobs", "scheduler", "progress", "out", "keep_stores", "formats")}
    fingerprint.update(experiment=name, points=[point_key(r) for r in runs])
    journal = parallel_sweep.Journal(os.path.join(outdir, "%s.points.jsonl" % name), fingerprint)
    done = set(journal.load())
    stores = []
    for r in runs:
        if r["cs"] not in stores:
            stores.append(r["cs"])

    def prepare(r):
        cfg, sparams = ctx.store_for(r["cs"])
        r["config"], r["store_params"] = cfg, sparams
        r["trace"], r["trace_info"] = ctx.trace(cfg, sparams, r["alpha"], r["seed"], tracedir,
                                                r["x"] if name == "robustness" else None)
        r["lines"] = trace_draw.trace_lines(r["trace"])
        key = (r["trace"], cfg, tuple(sparams))
        if key not in ctx.compiled:
            ctx.compiled[key] = policy_replay.compile_trace(ctx.destor, cfg, sparams, r["trace"],
                                                         r["trace"] + ".compiled")
        r["run_trace"] = ctx.compiled[key]

    # the first store's traces now, so the progress total can be estimated
    for r in runs:
        if r["cs"] == stores[0]:
            prepare(r)
    ctx.progress = progress_bar.Progress(sum(r.get("lines", runs[0]["lines"]) for r in runs),
                                         enabled=a.progress)
    results = {}

    def label(p, k, n):
        r = p["run"]
        return "%s %s=%s %s%s (%d/%d)" % (name, EXPERIMENTS[name]["x"] or "run", r["x"],
                                          policy_label(r["policy"]),
                                          " seed %d" % r["seed"] if len(a.seeds) > 1 else "", k + 1, n)
    try:
        for cs in stores:
            group = [r for r in runs if r["cs"] == cs]
            if cs != stores[0] and any(point_key(r) not in done for r in group):
                for r in group:
                    prepare(r)
            points = []
            for r in group:
                spec = None
                if "trace" in r:
                    store = ctx.stat(r["config"], r["store_params"])
                    spec = {"trace": r["run_trace"], "policy": r["policy"], "cache_size": r["cache_size"],
                            "simulate": not a.real, "cache_dir": cache_dir, "config": r["config"],
                            "destor": ctx.destor, "store": store,
                            "params": r["store_params"] + list(a.params) + r["params"]}
                points.append({"key": point_key(r), "weight": r.get("lines", runs[0]["lines"]),
                               "spec": spec, "run": r})
            got: list[Any] = []
            parallel_sweep.run_points(points, 1 if a.real else a.jobs, a.scheduler, journal, ctx.progress,
                                 ctx.log, label, got)
            for p, res in zip(points, got):
                results[p["key"]] = res
            # a container-size store is dropped once all its runs are done
            if name == "container-size" and not a.keep_stores:
                ctx.drop_store(cs)
    finally:
        ctx.progress.close()
        ctx.progress = None
    rows, raws = [], []
    for r in runs:
        row, raw = results[point_key(r)]
        row = dict(row)
        row["params"] = "; ".join(list(a.params) + r["params"])
        if "trace" in r:
            row["trace"] = os.path.relpath(r["trace"], outdir)
        lead = [("experiment", name), ("x", r["x"]), ("group", r["group"]), ("alpha", r["alpha"]),
                ("seed", r["seed"]), ("trace_files", r.get("trace_info", {}).get("files"))]
        row = dict(lead + [(k, v) for k, v in row.items() if k not in dict(lead)])
        rows.append(row)
        raws.append(raw)
    journal.remove()
    return runs, rows, raws
