# SPDX-License-Identifier: GPL-3.0-or-later
"""overall_experiment: the paper's overall comparison (Figs. 6-9): HDD
only and every online policy at one cache size, LRU against PLC-Cache at
10% for the quadrants; its bar charts, headline numbers against the
paper's and acceptance checks.
"""

from typing import Any

from .formatting import format_bytes
from . import plot_style
from .plot_style import policy_label
from .result_files import fmt, pct
from . import paper_figures
from .result_files import ratio


def plot(rows: list[dict[str, Any]], outdir: str, real: bool, formats: list[str]) -> list[str]:
    plt = plot_style.pyplot()
    files = []
    main = [r for r in rows if r["group"] == "main"]
    for stem, key, quantity, axis, unit, hdd in paper_figures.metrics(real):
        sel = [r for r in main if hdd or r["policy"] != "none"]
        scale, label = paper_figures.axis(sel, key, unit)
        vals, errs = paper_figures.series(sel, key, scale)
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        colours = [plot_style.policy_style(r["policy"])[0] for r in sel]
        has_err = any(e == e and e is not None for e in errs)
        bars = ax.bar(range(len(sel)), vals, color=colours,
                      yerr=[0 if e != e else e for e in errs] if has_err else None, capsize=4)
        plot_style.label_bars(ax, bars, vals, plot_style.decimals_for(vals), errs)
        top = max([v + (e if e == e else 0) for v, e in zip(vals, errs) if v == v] + [1e-9])
        ax.set_ylim(0, top * 1.15)
        plot_style.fit_category_ticks(ax, fig, [policy_label(r["policy"]) for r in sel])
        ax.set_xlabel("cache policy")
        ax.set_ylabel("%s (%s)" % (axis, label))
        ax.set_title("%s, cache %s" % (quantity, sel[-1]["cache_size"] or "-"), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        files += plot_style.save(fig, outdir, "fig-" + stem, formats)
    # bytes written by quadrant, LRU and PLC, at 10% and at the main size
    sel = [r for r in rows if r["policy"] in ("lru", "plc") and r.get("qa_bytes") is not None]
    if sel:
        scale, unit = plot_style.byte_unit([r["ssd_bytes_written"] for r in sel])
        fig, ax = plt.subplots(figsize=(8.8, 4.2))
        bottom = [0.0] * len(sel)
        # greys and hatches: the colours belong to the policies
        qcol = {"qa": "#2f2f2f", "qb": "#6f6f6f", "qc": "#a8a8a8", "qd": "#dedede"}
        qhatch = {"qa": "", "qb": "//", "qc": "..", "qd": "xx"}
        qname = {"qa": "QA popular, written rarely (PLC data)", "qb": "QB popular, rewritten",
                 "qc": "QC unpopular, written rarely", "qd": "QD unpopular, rewritten"}
        for q in ("qa", "qb", "qc", "qd"):
            v = [(r["%s_bytes" % q] or 0) / scale for r in sel]
            ax.bar(range(len(sel)), v, bottom=bottom, color=qcol[q], hatch=qhatch[q], edgecolor="#ffffff",
                   label=qname[q])
            bottom = [b + x for b, x in zip(bottom, v)]
        for i, r in enumerate(sel):
            ax.annotate("QA %.1f%%" % (100 * (r["qa_share"] or 0)), (i, bottom[i]), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8)
        ax.set_ylim(0, max(bottom + [1e-9]) * 1.15)
        plot_style.fit_category_ticks(ax, fig, ["%s\ncache %s" % (policy_label(r["policy"]), r["cache_size"])
                                               for r in sel])
        ax.set_xlabel("cache policy and cache size (% of stored containers)")
        ax.set_ylabel("data written to the SSD (%s)" % unit)
        ax.set_title("Data written to the SSD by popularity/rewrite quadrant", fontsize=10)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        files += plot_style.save(fig, outdir, "fig-quadrants", formats)
    return files


def by_policy(rows: list[dict[str, Any]], group: str = "main") -> dict[str, dict[str, Any]]:
    return {r["policy"]: r for r in rows if r["group"] == group}


def headlines(rows: list[dict[str, Any]]) -> tuple[list[str], list[tuple[str, bool, str]]]:
    out = []
    m = by_policy(rows)
    plc = m.get("plc")
    classic = [p for p in ("fifo", "lru", "lfu", "lfu-incache") if p in m]
    lat = "latency_model_ms_mean"
    checks = []
    if plc and classic:
        w = {p: m[p]["ssd_bytes_written"] for p in classic}
        factors = {p: ratio(w[p], plc["ssd_bytes_written"]) for p in classic}
        out.append("- SSD bytes written: PLC-Cache %s against %s, i.e. %s less (paper: 3.18 GB "
                   "against 53.05/48.77/48.55 GB, 15.7x less on average)."
                   % (format_bytes(plc["ssd_bytes_written"]),
                      " / ".join("%s %s" % (policy_label(p), format_bytes(w[p])) for p in classic),
                      " / ".join("%sx" % fmt(factors[p], "%.1f") for p in classic)))
        best = max(classic, key=lambda p: m[p]["hit_ratio"])
        out.append("- Hit ratio: PLC-Cache %s against %s (paper: 66.9%% against 61.0/61.9/62.0%%)."
                   % (pct(plc["hit_ratio"]),
                      " / ".join("%s %s" % (policy_label(p), pct(m[p]["hit_ratio"])) for p in classic)))
        gains = {p: 1 - plc[lat] / m[p][lat] for p in classic if m[p][lat]}
        out.append("- Modelled mean latency per request: PLC-Cache %.2f ms against %s, i.e. %s lower "
                   "(paper: 24.0/23.2/23.0%% lower)."
                   % (plc[lat], " / ".join("%s %.2f ms" % (policy_label(p), m[p][lat]) for p in classic),
                      " / ".join("%.1f%%" % (100 * gains[p]) for p in classic if p in gains)))
        if "none" in m and m["none"][lat]:
            out.append("- Against HDD only (%.2f ms), PLC-Cache's modelled latency is %.1f%% lower "
                       "(paper: 41.9%%)." % (m["none"][lat], 100 * (1 - plc[lat] / m["none"][lat])))
        checks.append(("PLC's SSD bytes written at least 10x below each classic policy run",
                       all(f is not None and f >= 10 for f in factors.values()),
                       "factors %s" % " / ".join("%sx" % fmt(factors[p], "%.1f") for p in classic)))
        checks.append(("PLC's hit ratio no more than 2 points below the best classic policy",
                       100 * (m[best]["hit_ratio"] - plc["hit_ratio"]) <= 2.0,
                       "PLC %s, best %s %s (difference %+.2f points)"
                       % (pct(plc["hit_ratio"]), policy_label(best), pct(m[best]["hit_ratio"]),
                          100 * (plc["hit_ratio"] - m[best]["hit_ratio"]))))
        checks.append(("PLC's modelled mean latency below every classic policy",
                       all(plc[lat] < m[p][lat] for p in classic),
                       "PLC %.3f ms, lowest other %.3f ms" % (plc[lat], min(m[p][lat] for p in classic))))
    for grp, label in (("main", "at the main cache size"), ("fig9", "at a 10% cache (paper Fig. 9)")):
        g = by_policy(rows, grp)
        if "plc" in g and "lru" in g and g["plc"].get("qa_share") is not None:
            out.append("- QA (popular, rarely rewritten) share of SSD-written data %s: PLC-Cache %s, "
                       "LRU %s (paper Fig. 9: 81.63%% against 0%%); QC+QD: PLC %s, LRU %s."
                       % (label, pct(g["plc"]["qa_share"]), pct(g["lru"]["qa_share"]),
                          pct((g["plc"]["qc_share"] or 0) + (g["plc"]["qd_share"] or 0)),
                          pct((g["lru"]["qc_share"] or 0) + (g["lru"]["qd_share"] or 0))))
            if grp == "main":
                checks.append(("QA share under PLC above 50%, under LRU below 10%",
                               g["plc"]["qa_share"] > 0.5 and g["lru"]["qa_share"] < 0.1,
                               "PLC %s, LRU %s" % (pct(g["plc"]["qa_share"]),
                                                   pct(g["lru"]["qa_share"]))))
    return out, checks
