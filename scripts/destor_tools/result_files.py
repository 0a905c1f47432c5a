# SPDX-License-Identifier: GPL-3.0-or-later
"""result_files: writing replay result rows as CSV, JSON and a Markdown
comparison table.

Why it exists: replay and experiment write the same row columns and the
same table, and must agree on how a missing value or an infinite lifetime
is written (empty or "inf" in CSV, null in JSON, "-" or "inf" in tables).
"""

import csv
import json
import math
from typing import Any, Sequence

from .formatting import format_bytes
from .policy_replay import ROW_FIELDS, policy_label


def csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isinf(v):
            return "inf"
        if math.isnan(v):
            return ""
        return repr(round(v, 9))
    return v


def json_value(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None  # JSON has no infinity; null = infinite lifetime / n.a.
    return v


def write_csv(path: str, rows: Sequence[dict[str, Any]], fields: Sequence[str] | None = None) -> None:
    fields = fields or ROW_FIELDS
    extra = [k for r in rows for k in r if k not in fields]
    seen = []
    for k in extra:
        if k not in seen:
            seen.append(k)
    cols = list(seen) + list(fields) if seen else list(fields)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([csv_value(r.get(k)) for k in cols])


def write_json(path: str, obj: Any) -> None:
    def clean(o):
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return json_value(o)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(clean(obj), f, indent=1, sort_keys=False)
        f.write("\n")


def fmt(v: float | None, spec: str = "%.2f", none: str = "-") -> str:
    if v is None:
        return none
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return spec % v


def pct(v: float | None) -> str:
    return fmt(None if v is None else 100.0 * v, "%.2f%%")


def markdown_table(rows: Sequence[dict[str, Any]], lead: tuple[str, str] | None = None) -> str:
    """The comparison table of a replay, one line per row.  `lead` is an
    optional (header, key) column put first (the swept parameter)."""
    hdr = ["policy", "hit ratio", "SSD written", "latency modelled mean (ms)",
           "measured mean / p95 / p99 (ms)", "QA / QB / QC / QD of written", "lifetime (days, modelled)"]
    if lead:
        hdr = [lead[0]] + hdr
    lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        q = r.get("qa_share")
        quads = ("%s / %s / %s / %s" % (pct(r["qa_share"]), pct(r["qb_share"]), pct(r["qc_share"]),
                                         pct(r["qd_share"]))) if q is not None else "-"
        # A simulation moves no bytes (HDD only included: its container
        # accesses are ids too): its wall time measures the simulator, not
        # a device, so the table does not show it.
        measured = "- (simulated)" if r.get("mode") == "simulate" else \
            "%s / %s / %s" % (fmt(r["latency_measured_ms_mean"], "%.3f"), fmt(r["latency_measured_ms_p95"], "%.3f"),
                              fmt(r["latency_measured_ms_p99"], "%.3f"))
        cells = [policy_label(r["policy"]),
                 pct(r["hit_ratio"]) if r["policy"] != "none" else "-",
                 format_bytes(r["ssd_bytes_written"]),
                 fmt(r["latency_model_ms_mean"], "%.3f"),
                 measured,
                 quads,
                 fmt(r["ssd_lifetime_model_days"], "%.1f") if r["policy"] != "none" else "-"]
        if lead:
            cells = [str(r.get(lead[1]))] + cells
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b; inf when only b is 0 (or missing) and a is positive, None
    when neither can be said."""
    if a is None or b is None or b == 0:
        return math.inf if (a or 0) > 0 else None
    return a / b
