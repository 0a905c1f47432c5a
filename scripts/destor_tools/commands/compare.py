# SPDX-License-Identifier: GPL-3.0-or-later
# compare: put two result CSVs of replay, experiment or endurance-compare
# side by side, per policy (and swept point and seed) and metric, with the
# difference and the relative change.  It exists because the question after
# a change to a policy, a setting or destor itself is "what moved, and by
# how much?", and reading two tables by eye is how differences get missed.

import argparse
import csv
import math
import sys
from typing import Sequence

from destor_tools.errors import ToolError, UsageError, main_wrapper

PROG = "compare"
# columns that identify a row, in the order they are shown
KEY_COLUMNS = ("experiment", "x", "group", "seed", "policy")
DEFAULT_METRICS = ("hit_ratio", "ssd_bytes_written", "latency_model_ms_mean", "latency_model_ms_p99",
                   "ssd_lifetime_model_days", "qa_share", "destor_bytes_written", "device_bytes_written",
                   "waf", "lifetime_days")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Compare two result CSVs (replay, experiment, endurance-compare) per policy and "
                    "metric: A, B, B - A and the change relative to A.",
        epilog="Rows are matched on the columns both files have among experiment, x, group, seed and "
               "policy; rows found in one file only are listed after the table.  Metrics default to "
               "those of %s both files hold." % ", ".join(DEFAULT_METRICS))
    ap.add_argument("a", metavar="A.csv")
    ap.add_argument("b", metavar="B.csv")
    ap.add_argument("--metrics", help="comma-separated columns to compare (default: see below)")
    ap.add_argument("--all", action="store_true", help="every numeric column both files have")
    ap.add_argument("--csv", metavar="FILE", help="also write the comparison as CSV")
    return ap.parse_args(argv)


def read_rows(path: str) -> tuple[list[str], list[dict[str, str]]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            r = csv.DictReader(f)
            rows = list(r)
            cols = list(r.fieldnames or [])
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (path, e.strerror or e))
    except (csv.Error, UnicodeDecodeError) as e:
        raise UsageError("%s is not a CSV file: %s" % (path, e))
    if "policy" not in cols:
        raise UsageError("%s has no policy column (not a result CSV)" % path)
    return cols, rows


def number(text: str | None) -> float | None:
    if text is None or text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return None


def compare(cols_a: list[str], rows_a: list[dict[str, str]], cols_b: list[str], rows_b: list[dict[str, str]],
            metrics: Sequence[str]) -> tuple[list[str],
            list[tuple[tuple[str, ...], str, float | None, float | None]], list[tuple[str, ...]],
            list[tuple[str, ...]]]:
    """[(key, metric, a, b)] for every key in both files, and the keys
    found in one file only."""
    keys = [k for k in KEY_COLUMNS if k in cols_a and k in cols_b]

    def index(rows):
        out: dict[tuple[str, ...], dict[str, str]] = {}
        for r in rows:
            out.setdefault(tuple(r[k] for k in keys), r)
        return out
    ia, ib = index(rows_a), index(rows_b)
    pairs = []
    for key, ra in ia.items():
        rb = ib.get(key)
        if rb is None:
            continue
        for m in metrics:
            pairs.append((key, m, number(ra.get(m)), number(rb.get(m))))
    only_a = [k for k in ia if k not in ib]
    only_b = [k for k in ib if k not in ia]
    return keys, pairs, only_a, only_b


def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 1e15:
        return "%d" % v
    return "%.6g" % v


def change(a: float | None, b: float | None) -> tuple[float | None, float | None]:
    if a is None or b is None:
        return None, None
    if math.isinf(a) or math.isinf(b):
        return (None if a == b else b - a), None
    d = b - a
    return d, (d / a if a else None)


def run(argv: list[str]) -> int:
    a = parse_args(argv)
    cols_a, rows_a = read_rows(a.a)
    cols_b, rows_b = read_rows(a.b)
    both = [c for c in cols_a if c in cols_b]
    if a.metrics:
        metrics = [m.strip() for m in a.metrics.split(",") if m.strip()]
        missing = [m for m in metrics if m not in both]
        if missing:
            raise UsageError("metric(s) not in both files: %s" % ", ".join(missing))
    elif a.all:
        metrics = [c for c in both if c not in KEY_COLUMNS and
                   any(number(r.get(c)) is not None for r in rows_a)]
    else:
        metrics = [m for m in DEFAULT_METRICS if m in both]
    if not metrics:
        raise UsageError("no metric to compare (the files share none of %s)"
                                    % ", ".join(DEFAULT_METRICS))
    keys, pairs, only_a, only_b = compare(cols_a, rows_a, cols_b, rows_b, metrics)
    head = keys + ["metric", "A", "B", "B - A", "change"]
    out = ["A: %s" % a.a, "B: %s" % a.b, "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(keys) + "---|" + "---:|" * 4]
    table = []
    for key, m, va, vb in pairs:
        d, rel = change(va, vb)
        cells = list(key) + [m, fmt(va), fmt(vb), "-" if d is None else ("+" if d > 0 else "") + fmt(d),
                             "-" if rel is None else "%+.2f%%" % (100 * rel)]
        table.append(cells)
        out.append("| " + " | ".join(cells) + " |")
    for label, ks in (("only in A", only_a), ("only in B", only_b)):
        if ks:
            out.append("")
            out.append("%s: %s" % (label, "; ".join(", ".join("%s=%s" % kv for kv in zip(keys, k))
                                                     for k in ks)))
    print("\n".join(out))
    if a.csv:
        try:
            with open(a.csv, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow(keys + ["metric", "a", "b", "difference", "relative_change"])
                for key, m, va, vb in pairs:
                    d, rel = change(va, vb)
                    w.writerow(list(key) + [m, "" if va is None else repr(va), "" if vb is None else repr(vb),
                                            "" if d is None else repr(d), "" if rel is None else repr(rel)])
        except OSError as e:
            raise ToolError("cannot write %s: %s" % (a.csv, e.strerror or e))
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    return main_wrapper(PROG, lambda: run(sys.argv[1:] if argv is None else argv))
