# SPDX-License-Identifier: GPL-3.0-or-later
"""paper_figures: what the paper's experiments plot: the three metrics
(modelled latency, SSD bytes written, hit ratio; measured latency in real
mode), each axis's unit and scale, error bars, and the paper's figure
number of each plot.

Why it exists: the overall comparison and the five sweeps draw the same
metrics the same way.
"""

from typing import Any, Sequence

from . import plot_style
from .experiment_table import EXPERIMENTS


# (file stem, row key, title, y axis, unit: "ms", "bytes" or "%", whether
# HDD only has a value: it has no cache, so no hit ratio and no writes)
METRICS = [
    ("latency", "latency_model_ms_mean", "Mean read latency per request, modelled",
     "mean read latency per request", "ms", True),
    ("ssd-written", "ssd_bytes_written", "Data written to the SSD", "data written to the SSD", "bytes",
     False),
    ("hit-ratio", "hit_ratio", "SSD cache hit ratio", "hit ratio", "%", False),
]
MEASURED = ("latency-measured", "latency_measured_ms_mean", "Mean read latency per request, measured",
            "mean read latency per request", "ms", True)


def metrics(real: bool) -> list[tuple[str, str, str, str, str, bool]]:
    return METRICS + ([MEASURED] if real else [])


def axis(rows: Sequence[dict[str, Any]], key: str, unit: str) -> tuple[float, str]:
    """(scale, unit label) of the axis showing `key` of `rows`."""
    if unit == "bytes":
        return plot_style.byte_unit([r.get(key) for r in rows])
    if unit == "%":
        return 0.01, "%"
    return 1, unit


def series(rows: Sequence[dict[str, Any]], key: str, scale: float) -> tuple[list[float], list[float]]:
    """(values, error half-widths) of `key` in `rows` divided by `scale`
    (nan where missing); error bars come from the ci95 rows of a
    multi-seed run."""
    def conv(v):
        return float("nan") if v is None else v / scale
    return ([conv(r.get(key)) for r in rows],
            [conv((r.get("_ci") or {}).get(key)) for r in rows])


def figure_numbers(name: str) -> dict[str, int]:
    """{file stem: paper figure number} for the report (titles name the
    quantity; the paper's numbering is kept in the report only)."""
    e = EXPERIMENTS[name]
    if e["fig0"] is None:
        return {}
    out = {m[0]: e["fig0"] + i for i, m in enumerate(METRICS)}
    if name == "overall":
        out["quadrants"] = 9
    return out
