# SPDX-License-Identifier: GPL-3.0-or-later
"""frontier_experiment: the hit/write frontier experiment (scripts/experiment
frontier): which points it runs, its CSV table with the Pareto flags, its
figure and its report tables.

Why it exists: a cache policy trades hits for SSD writes, and the useful
question is which settings no other one beats on both counts, and how far
each policy at its defaults is from the best hit ratio its own write
volume could buy.  The experiment runs every policy destor lists (online
ones at their defaults, the parameter sweeps of SWEEPS, offline ones as
bounds) at one cache size; this module turns those runs into the frontier
(pareto), twice: over every point, and over the online points only,
since only those can be deployed.
"""

import math
import os
from typing import Any, Sequence

from .errors import ToolError
from .formatting import format_bytes
from .units import GIB
from . import pareto
from . import plot_style
from . import parallel_sweep
from . import result_files
from .plot_style import policy_label

# The parameter sweeps, as data: (policy, its config key, the values run).
# A sweep runs only when `destor policies --json` lists the policy; the
# key's default joins the values when it is a number not among them, so
# every policy is also run at its defaults.
SWEEPS = (
    ("plc", "plc-filter-threshold", (2, 3, 4, 5, 6, 8)),
    ("sigpop", "sigpop-z", (0, 0.5, 1, 2, 3, 4)),
)

# The offline frontier: opt-budget at budgets of these multiples of the
# cache's capacity in container writes (offline-static writes at most one
# capacity, belady about ten on the paper's runs), and at its default
# (unlimited: belady's hits with the fewest writes). Joined, its points are
# the upper hull of what any policy can hit with so many writes.
OFFLINE_SWEEP = ("opt-budget", "opt-budget-writes", (1, 2, 4, 8, 16))

# The online policies under a write budget: when opt-budget is run, each
# online policy at its defaults is also run with ssd-cache-write-budget at each multiple of
# OFFLINE_SWEEP, as bytes per request (m x capacity x container size /
# requests), so each has a hit-against-writes curve beside opt-budget's.
# The credit bucket starts one cache full, so a budgeted online run may
# write up to one capacity more than opt-budget at the same multiple.
BUDGET_KEY = "ssd-cache-write-budget"
# ... and over a timed trace (--trace with '@SECONDS' records), the same
# budgets in drive writes per day: m x C container writes over the trace's
# D days are m / D DWPD of the cache.
BUDGET_KEY_DWPD = "ssd-cache-write-budget-dwpd"

# Columns of the CSV, in order (budget: the OFFLINE_SWEEP multiple of a
# budgeted point, opt-budget's or an online policy's).  on_online_frontier and its distance are
# empty for an offline point (it is not deployable); with several seeds the
# per-seed rows leave every frontier column empty: the frontier is on the
# mean rows.
FIELDS = ["policy", "offline", "key", "value", "default", "budget", "seed", "seeds", "hit_ratio",
          "ssd_bytes_written", "latency_model_ms_mean", "latency_model_ms_p99", "on_frontier",
          "on_online_frontier", "below_frontier_points", "below_online_frontier_points"]


def _number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def value_text(v: float) -> str:
    return "%g" % v


def plan_points(listing: list[dict[str, Any]], names: Sequence[str] | None = None,
                capacity: int | None = None, write_unit: float | None = None,
                days: float | None = None) -> list[dict[str, Any]]:
    """The points to run, from `destor policies --json`'s list: dicts with
    policy, offline, key and value (None at plain defaults), default
    (whether every key is at its default), params (config lines), x
    (the value, or "default") and budget (the OFFLINE_SWEEP multiple of a
    budgeted point, else None).  `names` restricts the policies (default:
    every one listed); online policies come first, each in registry
    order.  With the cache's `capacity` (containers), OFFLINE_SWEEP's
    budgets are run too, and with `write_unit` (a container's bytes per
    request of the trace), when opt-budget is run, every online policy at
    its defaults under each of them (BUDGET_KEY; with `days`, the trace's
    time from its first request to its last, BUDGET_KEY_DWPD)."""
    listed = {p["name"]: p for p in listing}
    chosen = [p["name"] for p in listing] if names is None else list(names)
    chosen.sort(key=lambda n: bool(listed[n]["offline"]))
    sweeps: dict[str, tuple[str, tuple[float, ...]]] = {pol: (key, values) for pol, key, values in SWEEPS}
    pol, key, multiples = OFFLINE_SWEEP
    if capacity:
        sweeps[pol] = (key, tuple(m * capacity for m in multiples))
    points = []

    def point(pol, key=None, value=None, default=True, budget=None):
        points.append({"policy": pol, "offline": bool(listed[pol]["offline"]), "key": key,
                       "value": value, "default": default,
                       "params": [] if key is None else ["%s %s" % (key, value_text(value))],
                       "x": "default" if key is None else value, "budget": budget})

    for pol in chosen:
        if pol not in sweeps:
            point(pol)
            continue
        key, swept = sweeps[pol]
        keys = {k["name"]: k for k in listed[pol].get("keys") or []}
        if key not in keys:
            raise ToolError("destor lists policy %s without its key %s, which frontier_experiment.SWEEPS "
                            "sweeps" % (pol, key))
        d = _number(keys[key].get("default"))
        values = list(swept)
        if d is None:
            point(pol)  # a default that is a word (e.g. auto) is run as it is
        elif d not in values:
            values = sorted(values + [d])
        for v in values:
            point(pol, key, v, v == d, round(v / capacity) if pol == OFFLINE_SWEEP[0] and capacity else None)
    if capacity and write_unit and OFFLINE_SWEEP[0] in chosen:
        for pol in chosen:
            if not listed[pol]["offline"]:
                for m in multiples:
                    if days:
                        point(pol, BUDGET_KEY_DWPD, float("%.6g" % (m / days)), False, m)
                    else:
                        point(pol, BUDGET_KEY, float("%.6g" % (m * capacity * write_unit)), False, m)
    return points


def _yes(flag):
    return "yes" if flag else "no"


def table(runs: list[dict[str, Any]], rows: list[dict[str, Any]],
          seeds: Sequence[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(CSV rows, summary rows) from the experiment's runs and result rows.
    The CSV has one row per point and seed, and with several seeds a mean
    and a ci95 row per point; the summary rows (one per point: the means,
    their ci95 row under "_ci") carry the frontier flags and distances."""
    per = []
    for r, row in zip(runs, rows):
        p = r["point"]
        per.append({"policy": p["policy"], "offline": _yes(p["offline"]), "key": p["key"],
                    "value": p["value"], "default": _yes(p["default"]), "budget": p.get("budget"),
                    "seed": r["seed"],
                    "hit_ratio": row["hit_ratio"], "ssd_bytes_written": row["ssd_bytes_written"],
                    "latency_model_ms_mean": row["latency_model_ms_mean"],
                    "latency_model_ms_p99": row["latency_model_ms_p99"]})
    if len(seeds) < 2:
        mark(per)
        return per, per
    agg = parallel_sweep.aggregate(per, ["policy", "key", "value"])
    means = agg[0::2]
    mark(means)
    return per + agg, [dict(m, _ci=c) for m, c in zip(means, agg[1::2])]


def mark(rows: list[dict[str, Any]]) -> None:
    """Set each row's frontier flags and its distances below the two
    frontiers (in hit-ratio points: 100 x the ratio's difference)."""
    pts = [(r["ssd_bytes_written"], r["hit_ratio"]) for r in rows]
    flags = pareto.on_frontier(pts)
    online = [i for i, r in enumerate(rows) if r["offline"] == "no"]
    opts = [pts[i] for i in online]
    oflags = dict(zip(online, pareto.on_frontier(opts)))
    for i, r in enumerate(rows):
        r["on_frontier"] = _yes(flags[i])
        gap = pareto.gap_below(pts, pts[i])
        assert gap is not None, "a point is never above its own frontier"
        r["below_frontier_points"] = 100 * gap
        if i in oflags:
            r["on_online_frontier"] = _yes(oflags[i])
            gap = pareto.gap_below(opts, pts[i])
            assert gap is not None, "an online point is never above the online frontier"
            r["below_online_frontier_points"] = 100 * gap
        else:
            r["on_online_frontier"] = r["below_online_frontier_points"] = None


def setting(r: dict[str, Any]) -> str:
    """'plc-filter-threshold 4 (default)', 'defaults', ..."""
    if r["key"] is None:
        return "defaults"
    return "%s %s%s" % (r["key"], value_text(r["value"]), " (default)" if r["default"] == "yes" else "")


def point_name(r: dict[str, Any]) -> str:
    return "%s, %s" % (policy_label(r["policy"]), setting(r))


# ---------------------------------------------------------------- the figure

def _by_policy(rows):
    groups: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["policy"], []).append(r)
    return groups


def _err(rows, key, scale):
    errs = [((r.get("_ci") or {}).get(key)) for r in rows]
    if all(e is None or e != e for e in errs):
        return None
    return [0 if e is None or e != e else e / scale for e in errs]


def _steps(ax, rows, flags_key, xmax, style, label):
    """The frontier of `rows` (those flagged) as a step line, level from
    its last point to the right edge."""
    front = sorted((r for r in rows if r[flags_key] == "yes"),
                   key=lambda r: (r["ssd_bytes_written"], r["hit_ratio"]))
    if not front:
        return
    xs = [r["ssd_bytes_written"] / GIB for r in front] + [xmax]
    ys = [100 * r["hit_ratio"] for r in front] + [100 * front[-1]["hit_ratio"]]
    ax.step(xs, ys, where="post", label=label, zorder=1, **style)


def _draw(ax, rows, xmax, label_from, label_to):
    """Both frontiers and every point on `ax`; sweep points between
    label_from and label_to GiB written get their value as a label."""
    offline = any(r["offline"] == "yes" for r in rows)
    _steps(ax, [r for r in rows if r["offline"] == "no"], "on_online_frontier", xmax,
           {"color": "#444444", "linewidth": 1.6, "alpha": 0.8},
           "Pareto frontier, online policies" if offline else
           "Pareto frontier (online policies; no offline bound run)")
    if offline:
        _steps(ax, rows, "on_frontier", xmax, {"color": "#000000", "linewidth": 1.2, "linestyle": "--"},
               "Pareto frontier with the offline bounds")
    for pol, pts in _by_policy(rows).items():
        c, m = plot_style.policy_style(pol)
        off = pts[0]["offline"] == "yes"
        swept = any(r["key"] is not None for r in pts)
        if off and swept:  # the offline frontier: joined in order of writes
            pts = sorted(pts, key=lambda r: r["ssd_bytes_written"])
        xs = [r["ssd_bytes_written"] / GIB for r in pts]
        ys = [100 * r["hit_ratio"] for r in pts]
        label = policy_label(pol)
        if off and swept:
            label = "bound: %s, the offline frontier (budgets in writes)" % label
        elif off:
            label = "bound: %s" % label
        elif swept:
            label = "%s, %s %s..%s" % (label, pts[0]["key"], value_text(pts[0]["value"]),
                                       value_text(pts[-1]["value"]))
        style = {"marker": m, "color": c, "label": label, "zorder": 3, "linestyle": "-" if swept else "none",
                 "linewidth": 1.0}
        if off:
            style.update(markerfacecolor="none", markeredgewidth=2.0, markersize=11)
        else:
            # star, plus and cross markers look smaller than the others at one size
            style.update(markersize=11 if m in "*Px" else 8, markeredgecolor="#ffffff",
                         markeredgewidth=0.6)
        xerr, yerr = _err(pts, "ssd_bytes_written", GIB), _err(pts, "hit_ratio", 0.01)
        if xerr or yerr:
            ax.errorbar(xs, ys, xerr=xerr, yerr=yerr, capsize=2, elinewidth=0.8, **style)
        else:
            ax.plot(xs, ys, **style)
        if swept:
            # points of one sweep that coincide share one label: "1, 2*, 3"
            labels: dict[Any, Any] = {}
            for r, x, y in zip(pts, xs, ys):
                if label_from < x <= label_to:
                    text = "default" if r["value"] is None else value_text(r["value"])
                    labels.setdefault((x, y), []).append(text + ("*" if r["default"] == "yes" else ""))
            for (x, y), vals in labels.items():
                ax.annotate(", ".join(vals), (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7,
                            color=c)
    ax.set_xlabel("data written to the SSD (GiB)")
    ax.set_ylabel("hit ratio (%)")
    ax.grid(alpha=0.3)


def zoom_window(rows: list[dict[str, Any]]) -> tuple[float, float, float] | None:
    """(x limit in GiB, y low, y high in %) of the zoomed panel: the points
    writing at most a quarter of the most any point writes (where the
    admission policies crowd), or None when fewer than two points do."""
    most = max(r["ssd_bytes_written"] for r in rows)
    near = [r for r in rows if r["ssd_bytes_written"] <= most / 4]
    if len(near) < 2 or most == 0:
        return None
    xlim = max(r["ssd_bytes_written"] for r in near) * 1.15 / GIB or most / 4 / GIB
    hs = [100 * r["hit_ratio"] for r in near]
    span = max(max(hs) - min(hs), 1.0)
    return xlim, max(0.0, min(hs) - 0.15 * span), min(100.0, max(hs) + 0.15 * span)


def plot(rows: list[dict[str, Any]], outdir: str, formats: Sequence[str], cache_size: str) -> list[str]:
    """fig-frontier: hit ratio against SSD bytes written, one marker per
    point in its policy's colour and marker, sweeps joined and labelled by
    their value, offline bounds hollow, and the two frontiers as steps.
    Both axes start at 0; a second panel zooms on the points that write
    least (zoom_window), with its range stated in its title."""
    plt = plot_style.pyplot()
    zoom = zoom_window(rows)
    if zoom:
        fig, (ax, zx) = plt.subplots(1, 2, figsize=(15.0, 6.0))
    else:
        fig, ax = plt.subplots(figsize=(10.0, 6.0))
    xtop = max([r["ssd_bytes_written"] + ((r.get("_ci") or {}).get("ssd_bytes_written") or 0)
                for r in rows] + [1]) / GIB
    ytop = max([r["hit_ratio"] + ((r.get("_ci") or {}).get("hit_ratio") or 0) for r in rows] + [0.01]) * 100
    xmax = xtop * 1.08
    _draw(ax, rows, xmax, zoom[0] if zoom else -1, xmax)
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, min(100.0, ytop * 1.1))
    ax.set_title("every point (both axes from 0)", fontsize=9)
    if zoom:
        xlim, ylo, yhi = zoom
        _draw(zx, rows, xmax, -1, xlim)
        zx.set_xlim(0, xlim)
        zx.set_ylim(ylo, yhi)
        zx.set_title("zoom: data written 0 to %.3g GiB, hit ratio %.1f%% to %.1f%% (not from 0)"
                     % (xlim, ylo, yhi), fontsize=9)
        ax.add_patch(plt.Rectangle((0, ylo), xlim, yhi - ylo, fill=False, linestyle=":", linewidth=1,
                                   edgecolor="#666666", zorder=0))
        ax.annotate("zoomed at right", (xlim, yhi), xytext=(3, 3), textcoords="offset points",
                    fontsize=7, color="#666666")
    fig.suptitle("Hit ratio against SSD bytes written, cache %s, %d points (sweep labels: parameter "
                 "value, * = default)" % (cache_size, len(rows)), fontsize=10)
    (zx if zoom else ax).legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return plot_style.save(fig, outdir, "fig-frontier", formats)


def _budgeted(r: dict[str, Any]) -> bool:
    """An online point under a write budget (BUDGET_KEY)."""
    return r["offline"] == "no" and r.get("budget") is not None


def plot_budgets(rows: list[dict[str, Any]], outdir: str, formats: Sequence[str],
                 cache_size: str) -> list[str]:
    """fig-frontier-budgets: each online policy's hit ratio against SSD
    bytes written under the OFFLINE_SWEEP budgets, joined in order of
    writes, beside opt-budget's curve at the same budgets (and unlimited);
    each curve's points labelled by their multiple of the capacity."""
    online = _by_policy([r for r in rows if _budgeted(r)])
    opt = sorted((r for r in rows if r["policy"] == OFFLINE_SWEEP[0]), key=lambda r: r["ssd_bytes_written"])
    if not online:
        return []
    plt = plot_style.pyplot()
    fig, ax = plt.subplots(figsize=(11.0, 6.5))
    if opt:
        ax.plot([r["ssd_bytes_written"] / GIB for r in opt], [100 * r["hit_ratio"] for r in opt],
                color="#000000", linewidth=2.2, linestyle="--", marker="o", markerfacecolor="none",
                markersize=9, label="bound: %s (budgets in writes; last: unlimited)" % policy_label(opt[0]["policy"]),
                zorder=4)
        for r in opt:
            if r.get("budget") is not None:
                ax.annotate("%gC" % r["budget"], (r["ssd_bytes_written"] / GIB, 100 * r["hit_ratio"]),
                            xytext=(4, 4), textcoords="offset points", fontsize=7)
    for pol, pts in online.items():
        pts = sorted(pts, key=lambda r: r["ssd_bytes_written"])
        c, m = plot_style.policy_style(pol)
        ax.plot([r["ssd_bytes_written"] / GIB for r in pts], [100 * r["hit_ratio"] for r in pts], color=c,
                marker=m, markersize=7, linewidth=1.0, label=policy_label(pol), zorder=3)
    ax.set_xlim(0, None)
    ax.set_xlabel("data written to the SSD (GiB)")
    ax.set_ylabel("hit ratio (%)")
    ax.grid(alpha=0.3)
    ax.set_title("Online policies under write budgets of m x the capacity C in container writes\n"
                 "beside the offline optimum at the same budgets, cache %s" % cache_size, fontsize=10)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return plot_style.save(fig, outdir, "fig-frontier-budgets", formats)


def gap_table(rows: list[dict[str, Any]]) -> list[str]:
    """Each online policy's share of the offline gap closed at each budget:
    (its hit ratio - the baseline's) / (opt-budget's - the baseline's),
    the baseline being lru under the same budget (the least online hit
    ratio there when lru was not run); 1 = the offline optimum's hits."""
    budgets = sorted({r["budget"] for r in rows if _budgeted(r)})
    opt = {r["budget"]: r["hit_ratio"] for r in rows
           if r["policy"] == OFFLINE_SWEEP[0] and r.get("budget") is not None}
    budgets = [b for b in budgets if b in opt]
    if not budgets:
        return []
    at = {(r["policy"], r["budget"]): r["hit_ratio"] for r in rows if _budgeted(r)}
    pols = list(dict.fromkeys(r["policy"] for r in rows if _budgeted(r)))
    base = {}
    for b in budgets:
        hs = [at[(p, b)] for p in pols if (p, b) in at]
        base[b] = at.get(("lru", b), min(hs))
    out = ["Share of the offline gap closed under each write budget (multiples of the capacity C in "
           "container writes; online policies at ssd-cache-write-budget = that many bytes per request): "
           "(hit ratio - lru's) / (opt-budget's - lru's) at the same budget, with the hit ratio in "
           "brackets:", "",
           "| policy | " + " | ".join("%gC" % b for b in budgets) + " |",
           "|---|" + "---:|" * len(budgets),
           "| opt-budget | " + " | ".join("%.2f%%" % (100 * opt[b]) for b in budgets) + " |"]
    for p in pols:
        cells = []
        for b in budgets:
            if (p, b) not in at:
                cells.append("-")
                continue
            gap = opt[b] - base[b]
            share = "%.2f" % ((at[(p, b)] - base[b]) / gap) if gap > 0 else "-"
            cells.append("%s (%.2f%%)" % (share, 100 * at[(p, b)]))
        out.append("| %s | %s |" % (policy_label(p), " | ".join(cells)))
    return out + [""]


# ---------------------------------------------------------------- the report

def _list(rows, flag):
    front = sorted((r for r in rows if r[flag] == "yes"),
                   key=lambda r: (r["ssd_bytes_written"], r["hit_ratio"]))
    lines = ["| # | policy, setting | SSD written | hit ratio |", "|---:|---|---:|---:|"]
    for k, r in enumerate(front, 1):
        lines.append("| %d | %s | %s | %.2f%% |" % (k, point_name(r), format_bytes(r["ssd_bytes_written"]),
                                                   100 * r["hit_ratio"]))
    return lines


def _points(v):
    return "-" if v is None else "%.2f" % v


def headlines(rows: list[dict[str, Any]]) -> list[str]:
    """The report's headline section: the frontier points in order, both
    frontiers, and each online policy's distance below them."""
    offline = [r for r in rows if r["offline"] == "yes"]
    out = []
    if offline:
        out += ["Frontier over every point, offline bounds included, by SSD bytes written:", ""]
        out += _list(rows, "on_frontier") + [""]
    out += ["Frontier over the online points (what can be deployed), by SSD bytes written:", ""]
    out += _list([r for r in rows if r["offline"] == "no"], "on_online_frontier") + [""]
    out += ["How far each online policy at its defaults is below the frontier at its own write volume "
            "(hit-ratio points; 0 = on it):", ""]
    hdr = "| policy | hit ratio | SSD written | below the online frontier |"
    if offline:
        hdr += " below the frontier with offline bounds |"
    out += [hdr, "|---|---:|---:|---:|" + ("---:|" if offline else "")]
    for r in rows:
        if r["offline"] == "no" and r["default"] == "yes":
            line = "| %s | %.2f%% | %s | %s |" % (policy_label(r["policy"]), 100 * r["hit_ratio"],
                                                format_bytes(r["ssd_bytes_written"]),
                                                _points(r["below_online_frontier_points"]))
            if offline:
                line += " %s |" % _points(r["below_frontier_points"])
            out.append(line)
    if not offline:
        out += ["", "destor lists no offline policy (or --policies left them out), so there is no "
                "offline bound and the two frontiers are one."]
    return out


def results(rows: list[dict[str, Any]]) -> list[str]:
    """Every point, in run order."""
    lines = ["| policy | setting | hit ratio | SSD written | modelled latency mean / p99 (ms) | "
             "on frontier | on online frontier | below frontier (points) | below online frontier (points) |",
             "|---|---|---:|---:|---:|---|---|---:|---:|"]
    for r in rows:
        p99 = r["latency_model_ms_p99"]
        lines.append("| %s | %s | %.2f%% | %s | %.3f / %s | %s | %s | %s | %s |"
                     % (policy_label(r["policy"]) + (" (offline)" if r["offline"] == "yes" and
                                                     "offline" not in policy_label(r["policy"]) else ""),
                        setting(r), 100 * r["hit_ratio"], format_bytes(r["ssd_bytes_written"]),
                        r["latency_model_ms_mean"], "-" if p99 is None else "%.3f" % p99,
                        r["on_frontier"], r["on_online_frontier"] or "-",
                        _points(r["below_frontier_points"]), _points(r["below_online_frontier_points"])))
    return lines + [""]


def finish(ctx: Any, outdir: str, runs: list[dict[str, Any]], rows: list[dict[str, Any]],
           raws: list[Any]) -> tuple[list[str], list[str], list[str]]:
    """frontier's CSV (one row per point: FIELDS), JSON, figure
    and report sections; returns (figures, headlines, results)."""
    tab, summary = table(runs, rows, ctx.a.seeds)
    result_files.write_csv(os.path.join(outdir, "frontier.csv"), tab, FIELDS)
    result_files.write_json(os.path.join(outdir, "frontier.json"), {
        "experiment": "frontier", "mode": "simulate", "quick": ctx.a.quick, "args": vars(ctx.a),
        "trace": runs[0]["trace_info"], "points": tab, "rows": rows, "destor_summaries": raws})
    main = [dict(r) for r in summary if not _budgeted(r)]
    mark(main)
    figs = plot(main, outdir, ctx.a.formats, ctx.a.cache_size)
    figs += plot_budgets(summary, outdir, ctx.a.formats, ctx.a.cache_size)
    return figs, headlines(main) + [""] + gap_table(summary), results(summary)
