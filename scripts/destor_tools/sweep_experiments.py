# SPDX-License-Identifier: GPL-3.0-or-later
"""sweep_experiments: the paper's five sweeps (cache size, Zipf alpha,
container size, PLC-Cache's filter and delay thresholds; Figs. 10-24):
one line per policy over the swept value, and the headline numbers.

Why one module for five: they are one shape, a metric against a swept
value; experiment_table says what each sweeps.
"""

import math
from typing import Any

from .formatting import format_bytes, size_label
from . import plot_style
from .plot_style import policy_label
from .result_files import fmt, pct
from . import paper_figures
from .experiment_table import EXPERIMENTS
from .result_files import ratio


def plot(name: str, rows: list[dict[str, Any]], outdir: str, real: bool, formats: list[str]) -> list[str]:
    plt = plot_style.pyplot()
    e = EXPERIMENTS[name]
    files = []
    main = [r for r in rows if r["group"] == "main"]
    ref = [r for r in rows if r["group"] == "reference"]
    pols = []
    for r in main:
        if r["policy"] not in pols:
            pols.append(r["policy"])
    for stem, key, quantity, axis, unit, hdd in paper_figures.metrics(real):
        scale, label = paper_figures.axis(main + ref, key, unit)
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for p in pols:
            if p == "none" and not hdd:
                continue
            pts = [r for r in main if r["policy"] == p]
            vals, errs = paper_figures.series(pts, key, scale)
            c, m = plot_style.policy_style(p)
            xs = [r["x"] for r in pts]
            if any(x == x for x in errs):
                # policies side by side around each point, so bars stay apart
                k = (pols.index(p) - (len(pols) - 1) / 2) * 0.012
                xs = [x * 2 ** (8 * k) for x in xs] if name == "container-size" else \
                    [x + k * (max(xs) - min(xs) or 1) for x in xs]
                ax.errorbar(xs, vals, yerr=[0 if x != x else x for x in errs], marker=m, color=c,
                            label=policy_label(p), capsize=3)
            else:
                ax.plot(xs, vals, marker=m, color=c, label=policy_label(p))
        for r in ref:
            vals, _ = paper_figures.series([r], key, scale)
            c, _ = plot_style.policy_style(r["policy"])
            ax.axhline(vals[0], color=c, linestyle="--",
                       label="%s (reference, no threshold)" % policy_label(r["policy"]))
        if name == "container-size":
            ax.set_xscale("log", base=2)
            xs = sorted(set(r["x"] for r in main))
            ax.set_xticks(xs)
            ax.set_xticklabels([format_bytes(x).replace(".00", "") for x in xs])
            ax.minorticks_off()
            plot_style.slant_if_colliding(ax, fig)
        if "default" in e:
            ax.axvline(e["default"], color="#999999", linestyle=":", linewidth=1,
                       label="default threshold (%d)" % e["default"])
        top = [v + (err if err == err else 0) for r in main + ref for v, err in
               [tuple(x[0] for x in paper_figures.series([r], key, scale))] if v == v]
        ax.set_ylim(0, max(top + [1e-9]) * 1.08)
        ax.set_xlabel(e["xlabel"])
        ax.set_ylabel("%s (%s)" % (axis, label))
        ax.set_title(quantity, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        files += plot_style.save(fig, outdir, "fig-" + stem, formats)
    return files


def headlines(name: str, rows: list[dict[str, Any]]) -> list[str]:
    e = EXPERIMENTS[name]
    main = [r for r in rows if r["group"] == "main"]
    xs = []
    for r in main:
        if r["x"] not in xs:
            xs.append(r["x"])
    lat = "latency_model_ms_mean"
    out = []

    def xl(x):
        if name == "container-size":
            return size_label(x)
        if name == "cache-size":
            return "%g%%" % x
        return "%g" % x
    pols = set(r["policy"] for r in main)
    if {"lru", "plc"} <= pols:
        facts, dh, dl = [], [], []
        for x in xs:
            g = {r["policy"]: r for r in main if r["x"] == x}
            if "lru" in g and "plc" in g:
                f = ratio(g["lru"]["ssd_bytes_written"], g["plc"]["ssd_bytes_written"])
                facts.append((x, f))
                dh.append((x, 100 * (g["plc"]["hit_ratio"] - g["lru"]["hit_ratio"])))
                dl.append((x, 100 * (1 - g["plc"][lat] / g["lru"][lat]) if g["lru"][lat] else None))
        fin = [f for _, f in facts if f is not None and math.isfinite(f)]
        if fin:
            out.append("- PLC-Cache writes %.1fx to %.1fx less to the SSD than LRU across %s %s..%s."
                       % (min(fin), max(fin), e["xlabel"], xl(xs[0]), xl(xs[-1])))
        out.append("- PLC-Cache minus LRU hit ratio, in points: %s."
                   % ", ".join("%s: %+.1f" % (xl(x), d) for x, d in dh))
        out.append("- PLC-Cache's modelled mean latency below LRU's by: %s."
                   % ", ".join("%s: %s" % (xl(x), fmt(d, "%.1f%%")) for x, d in dl))
        out.append("- PLC-Cache below LRU in modelled latency at %d of %d points."
                   % (sum(1 for _, d in dl if d is not None and d > 0), len(dl)))
    order = [r["policy"] for r in main]
    for p in sorted(pols, key=order.index):
        pts = [r for r in main if r["policy"] == p]
        if len(pts) < 2:
            continue
        lo, hi = pts[0], pts[-1]
        out.append("- %s from %s = %s to %s: hit ratio %s -> %s, SSD written %s -> %s, modelled "
                   "latency %.2f -> %.2f ms."
                   % (policy_label(p), e["xlabel"], xl(lo["x"]), xl(hi["x"]), pct(lo["hit_ratio"]),
                      pct(hi["hit_ratio"]), format_bytes(lo["ssd_bytes_written"]),
                      format_bytes(hi["ssd_bytes_written"]), lo[lat], hi[lat]))
        if "default" in e:
            at = [r for r in pts if r["x"] == e["default"]]
            if at:
                d = at[0]
                out.append("- At the default threshold %d: hit ratio %s, SSD written %s, modelled "
                           "latency %.2f ms." % (e["default"], pct(d["hit_ratio"]),
                                                 format_bytes(d["ssd_bytes_written"]), d[lat]))
    for r in rows:
        if r["group"] == "reference":
            out.append("- Reference %s (threshold does not apply): hit ratio %s, SSD written %s, "
                       "modelled latency %.2f ms." % (policy_label(r["policy"]), pct(r["hit_ratio"]),
                                                      format_bytes(r["ssd_bytes_written"]), r[lat]))
    return out
