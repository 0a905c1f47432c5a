# SPDX-License-Identifier: GPL-3.0-or-later
"""robustness_experiment: `scripts/experiment robustness`, every online
policy on several workloads at several cache sizes.

Why it exists: a policy tuned on one workload can lose badly on another. For
each workload and cache size this finds the best online policy, and for
every policy its hit-ratio loss against that best (points) and its SSD
bytes written against PLC-Cache's, then the worst case of each over all
workloads and sizes: the numbers a user who does not know the workload in
advance can count on.

The workloads are fixed here, defined by their own parameters (not by any
policy's results): the paper's Zipf (alpha 0.47) over a fixed popularity
order; the same with a new popularity order every quarter of that trace
(a working-set shift); the LRU stack model with the same alpha
(trace_draw, `recency`), where the re-read file is the i-th most recent;
and the same stack model over objects, `recency-objects`: as many objects
as the store has containers, each read as one whole file (import-trace's
object mapping), as many requests as the zipf trace. Files lie many to a
container, so a file-level stack mixes into a container stream where
frequency still wins; an object stack over about one file per container
stays recency-driven at container level. A trace given with --trace is
one more workload, `given`.
"""

import io
import os
import math
from typing import Any, Sequence

from .formatting import format_bytes
from .plot_style import policy_label, policy_style
from . import plot_style
from . import result_files
from . import trace_draw
from . import trace_import

# name -> (distribution, shift): shift True draws a new permutation every
# ceil(requests of the stationary trace / 4) requests
WORKLOADS = (("zipf", "zipf", False), ("zipf-shift", "zipf", True), ("recency", "recency", False),
             ("recency-objects", "recency-objects", False))
CACHE_SIZES = ("20%", "10%")
GOAL_LOSS_POINTS = 0.5
REFERENCE_WRITER = "plc"

FIELDS = ["workload", "cache_size", "policy", "hit_ratio", "ssd_bytes_written", "best_policy",
          "loss_points", "writes_vs_plc"]


def workload_names(given: bool) -> list[str]:
    return [w for w, _, _ in WORKLOADS] + (["given"] if given else [])


def workload_spec(name: str) -> tuple[str, bool]:
    """(distribution, shift) of a generated workload."""
    for w, dist, shift in WORKLOADS:
        if w == name:
            return dist, shift
    raise KeyError(name)


def shift_for(stationary_requests: int) -> int:
    return max(1, int(math.ceil(stationary_requests / 4.0)))


def object_stack_trace(files: Sequence[tuple[bytes, int]], job: int, objects: int, requests: int,
                       alpha: float, seed: int) -> tuple[bytes, dict[str, Any]]:
    """(trace bytes, info) of recency-objects: `requests` draws of the LRU
    stack model over `objects` ids, each id one of the job's files by
    import-trace's object mapping (seeded with `seed`)."""
    sampler = trace_draw.TraceSampler(objects, "recency", alpha, seed)
    reqs = [trace_import.Request("r", sampler.next(), None, None, None) for _ in range(requests)]
    body = io.BytesIO()
    counts = trace_import.import_trace(reqs, files, job, "object", seed, out=body)
    head = trace_import.header("recency-objects (LRU stack model, alpha %g, %d objects, seed %d)"
                               % (alpha, objects, seed), "txt", "object", seed, "skip", job, files, counts)
    info = {"job": job, "dist": "recency-objects", "alpha": alpha, "seed": seed, "objects": objects,
            "files": len(files), "skipped_files": 0, "job_file_bytes": sum(s for _, s in files),
            "requests": counts["records_out"], "bytes": counts["bytes_out"], "shift_every": None}
    return head + body.getvalue(), info


def table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (workload, cache size, policy): its loss against the best
    online policy of that workload and size, in hit-ratio points, and its
    writes over PLC's (None without a PLC run or when PLC wrote nothing)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["x"], r["cache_size"]), []).append(r)
    out = []
    for (w, cs), rs in groups.items():
        best = max(rs, key=lambda r: r["hit_ratio"])
        plc = [r["ssd_bytes_written"] for r in rs if r["policy"] == REFERENCE_WRITER]
        for r in rs:
            ratio = r["ssd_bytes_written"] / plc[0] if plc and plc[0] else None
            out.append({"workload": w, "cache_size": cs, "policy": r["policy"], "hit_ratio": r["hit_ratio"],
                        "ssd_bytes_written": r["ssd_bytes_written"], "best_policy": best["policy"],
                        "loss_points": 100.0 * (best["hit_ratio"] - r["hit_ratio"]),
                        "writes_vs_plc": ratio})
    return out


def worst_cases(table_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per policy, in first-seen order: the largest loss and the largest
    writes ratio over every workload and size, where each happened, and on
    how many of them the goal (loss within GOAL_LOSS_POINTS and writes at
    most PLC's) holds."""
    per: dict[str, dict[str, Any]] = {}
    for r in table_rows:
        w = per.setdefault(r["policy"], {"policy": r["policy"], "loss": -1.0, "loss_at": None,
                                         "writes": None, "writes_at": None, "met": 0, "runs": 0})
        at = "%s %s" % (r["workload"], r["cache_size"])
        if r["loss_points"] > w["loss"]:
            w["loss"], w["loss_at"] = r["loss_points"], at
        if r["writes_vs_plc"] is not None and (w["writes"] is None or r["writes_vs_plc"] > w["writes"]):
            w["writes"], w["writes_at"] = r["writes_vs_plc"], at
        w["runs"] += 1
        ok_writes = r["writes_vs_plc"] is not None and r["writes_vs_plc"] <= 1.0
        w["met"] += r["loss_points"] <= GOAL_LOSS_POINTS and ok_writes
    return list(per.values())


def _ratio(v):
    return "-" if v is None else "%.2f" % v


def headlines(table_rows: list[dict[str, Any]]) -> list[str]:
    worst = sorted(worst_cases(table_rows), key=lambda w: w["loss"])
    out = ["Worst case of each online policy over every workload and cache size: its largest "
           "hit-ratio loss against the best online policy of that workload and size (points), "
           "and its largest SSD bytes written over PLC-Cache's; the goal is a loss of at most "
           "%.1f points with writes at most PLC's." % GOAL_LOSS_POINTS, "",
           "| policy | worst loss (points) | where | worst writes / PLC's | where | goal met |",
           "|---|---:|---|---:|---|---:|"]
    for w in worst:
        out.append("| %s | %.2f | %s | %s | %s | %d of %d |"
                   % (policy_label(w["policy"]), w["loss"], w["loss_at"], _ratio(w["writes"]),
                      w["writes_at"] or "-", w["met"], w["runs"]))
    return out


def results(table_rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| workload | cache | policy | hit ratio | SSD written | loss (points) | writes / PLC's | best |",
             "|---|---|---|---:|---:|---:|---:|---|"]
    for r in table_rows:
        lines.append("| %s | %s | %s | %.2f%% | %s | %.2f | %s | %s |"
                     % (r["workload"], r["cache_size"], policy_label(r["policy"]), 100 * r["hit_ratio"],
                        format_bytes(r["ssd_bytes_written"]), r["loss_points"], _ratio(r["writes_vs_plc"]),
                        policy_label(r["best_policy"])))
    return lines + [""]


def plot(table_rows: list[dict[str, Any]], outdir: str, formats: Sequence[str]) -> list[str]:
    """fig-robustness: per policy, its loss on every workload and size (a
    marker each, the worst as a bar) and its writes over PLC's (log scale)."""
    plt = plot_style.pyplot()
    worst = sorted(worst_cases(table_rows), key=lambda w: w["loss"])
    names = [w["policy"] for w in worst]
    cases = sorted(set((r["workload"], r["cache_size"]) for r in table_rows))
    markers = "osD^v<>ph*"
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(max(7.0, 0.6 * len(names) + 2), 8), sharex=True)
    xs = range(len(names))
    ax1.bar(xs, [w["loss"] for w in worst], color=[policy_style(n)[0] for n in names], alpha=0.35)
    ax1.bar([0], [0], color="#999999", alpha=0.35, label="worst case (bar, in the policy's colour)")
    for k, (wl, cs) in enumerate(cases):
        pts = {r["policy"]: r for r in table_rows if r["workload"] == wl and r["cache_size"] == cs}
        ax1.plot(xs, [pts[n]["loss_points"] if n in pts else float("nan") for n in names],
                 linestyle="none", marker=markers[k % len(markers)], color="black", markersize=5,
                 markerfacecolor="none", label="%s, %s cache" % (wl, cs))
        ax2.plot(xs, [pts[n]["writes_vs_plc"] if n in pts and pts[n]["writes_vs_plc"] else float("nan")
                      for n in names],
                 linestyle="none", marker=markers[k % len(markers)], color="black", markersize=5,
                 markerfacecolor="none", label="%s, %s cache" % (wl, cs))
    ax1.axhline(GOAL_LOSS_POINTS, color="grey", linestyle="--", linewidth=1, label="goal: %.1f points"
                % GOAL_LOSS_POINTS)
    ax1.set_ylabel("hit-ratio loss against the best online policy (points)")
    ax1.set_ylim(bottom=0)
    ax1.set_title("Hit-ratio loss against the best online policy of each workload and cache size")
    ax1.legend(fontsize=7, ncol=2)
    ax2.axhline(1.0, color="grey", linestyle="--", linewidth=1, label="PLC-Cache's writes")
    ax2.set_yscale("log")
    ax2.set_ylabel("SSD bytes written / PLC-Cache's (log scale)")
    ax2.set_title("SSD bytes written against PLC-Cache's")
    ax2.legend(fontsize=7, ncol=2)
    plot_style.fit_category_ticks(ax2, fig, [policy_label(n) for n in names])
    fig.tight_layout()
    return plot_style.save(fig, outdir, "fig-robustness", formats)


def finish(ctx: Any, outdir: str, runs: list[dict[str, Any]], rows: list[dict[str, Any]],
           raws: list[Any]) -> tuple[list[str], list[str], list[str]]:
    """robustness's CSV (one row per workload, cache size and policy:
    FIELDS), JSON, figure and report sections."""
    tab = table(rows)
    result_files.write_csv(os.path.join(outdir, "robustness.csv"), tab, FIELDS)
    traces: dict[str, dict[str, Any]] = {}
    for r in runs:
        traces.setdefault(r["x"], dict(r["trace_info"], file=os.path.relpath(r["trace"], outdir)))
    result_files.write_json(os.path.join(outdir, "robustness.json"), {
        "experiment": "robustness", "mode": "simulate", "quick": ctx.a.quick, "args": vars(ctx.a),
        "traces": traces, "table": tab, "worst": worst_cases(tab), "rows": rows,
        "destor_summaries": raws})
    figs = plot(tab, outdir, ctx.a.formats)
    heads = ["Workloads (robustness_experiment.WORKLOADS): " + "; ".join(
        "%s, %d requests, %d container accesses%s" % (w, t["requests"], next(
            r["container_accesses"] for r in rows if r["x"] == w),
            ", shift every %d requests" % t["shift_every"] if t.get("shift_every") else "")
        for w, t in traces.items()) + ".", ""]
    return figs, heads + headlines(tab), results(tab)
