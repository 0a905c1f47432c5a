# SPDX-License-Identifier: GPL-3.0-or-later
"""parallel_sweep: running many replay points (policy x parameter x seed) in
parallel, locally or on a Dask cluster, resuming after an interruption, and
summarising seeds as a mean with a 95% confidence interval.

Why it exists: a paper-scale sweep with several seeds and every policy is
hundreds of independent destor runs.  replay and experiment both hand their
points to run_points(), which runs them on local threads (each point is one
destor process), or on the workers of a Dask distributed scheduler, and
records every finished point in a journal so a second run with the same
arguments only runs what is missing.  Seeds are summarised here too, so
both tools write the same mean and ci95 rows.
"""

import concurrent.futures
import hashlib
import json
import math
import os
import signal
import tempfile
import zipfile
from typing import Any, Callable, Sequence

from .errors import ToolError, UsageError
from . import destor_runner
from . import policy_replay

# Columns that measure wall-clock time: they differ from run to run, so a
# comparison of two runs of the same points leaves them out.
WALL_CLOCK_FIELDS = ("latency_measured_ms_mean", "latency_measured_ms_p50", "latency_measured_ms_p95",
                     "latency_measured_ms_p99", "destor_seconds", "run_seconds")

# what point_runner imports (sent to Dask workers as one zip of the package)
MODULES = ("__init__", "errors", "units", "sizes", "formatting", "plot_style", "destor_runner",
           "trace_draw", "policy_replay", "parallel_sweep")


def parse_seeds(text: str) -> list[int]:
    """'1-5' -> [1, 2, 3, 4, 5]; '1,3,7' -> [1, 3, 7]; ranges and lists mix."""
    out: list[int] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            lo = int(first)
            hi = int(last) if dash else lo
        except ValueError:
            raise UsageError("invalid seed list %r (expected e.g. 1-5 or 1,3,7)" % text)
        if hi < lo:
            raise UsageError("invalid seed range %r (end below start)" % part)
        out.extend(s for s in range(lo, hi + 1) if s not in out)
    if not out:
        raise UsageError("empty seed list %r" % text)
    return out


# Student t quantile t(0.975, df) for df = 1..30, then a few larger df; a df
# between table entries uses the next smaller one (a slightly wider interval).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
         9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
         17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
         25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000,
         120: 1.980}


def t975(df: int) -> float:
    if df < 1:
        return math.nan
    return _T975[max(k for k in _T975 if k <= df)]


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% confidence interval, Student t with n-1
    degrees of freedom); the half-width is nan for one value."""
    v = [float(x) for x in values]
    n = len(v)
    m = math.fsum(v) / n
    if n < 2:
        return m, math.nan
    if any(math.isinf(x) for x in v):
        return m, math.nan
    s = math.sqrt(math.fsum((x - m) ** 2 for x in v) / (n - 1))
    return m, t975(n - 1) * s / math.sqrt(n)


def _numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def aggregate(rows: Sequence[dict[str, Any]], by: Sequence[str]) -> list[dict[str, Any]]:
    """For each group of rows equal in the `by` columns (in order of first
    appearance): a row with seed 'mean' and one with seed 'ci95' (half-width
    of the 95% interval) for every numeric column the group shares; other
    columns copy the group's first row when all rows agree, else are empty."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(r.get(k) for k in by), []).append(r)
    out = []
    for members in groups.values():
        mean, ci = {}, {}
        for k in members[0]:
            vals: list[Any] = [m.get(k) for m in members]
            if k in by:
                mean[k] = ci[k] = vals[0]
            elif k != "seed" and all(_numeric(x) for x in vals):
                mean[k], ci[k] = mean_ci(vals)
            else:
                same = all(x == vals[0] for x in vals)
                mean[k] = ci[k] = vals[0] if same else None
        mean["seed"], ci["seed"] = "mean", "ci95"
        mean["seeds"] = ci["seeds"] = len(members)
        out += [mean, ci]
    return out


# ---------------------------------------------------------------- the journal

class Journal:
    """Finished points, one JSON line each (key, row, destor summary), under
    a fingerprint of the arguments that decide the results.  A journal with
    another fingerprint is set aside (renamed .old) and the sweep restarts."""

    def __init__(self, path: str, fingerprint: Any) -> None:
        self.path = path
        self.fingerprint = hashlib.sha256(json.dumps(fingerprint, sort_keys=True, default=str)
                                          .encode()).hexdigest()[:16]

    def load(self) -> dict[str, Any]:
        done: dict[str, Any] = {}
        try:
            with open(self.path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return done
        except OSError as e:
            raise ToolError("cannot read %s: %s" % (self.path, e.strerror or e))
        try:
            head = json.loads(lines[0]) if lines else {}
        except ValueError:
            head = {}
        if head.get("fingerprint") != self.fingerprint:
            os.replace(self.path, self.path + ".old")
            return done
        for line in lines[1:]:
            try:
                rec = json.loads(line)
            except ValueError:
                break  # a line cut by the interruption: that point runs again
            done[rec["key"]] = (rec["row"], rec["raw"])
        return done

    def add(self, key: str, row: dict[str, Any], raw: Any) -> None:
        new = not os.path.exists(self.path)
        with open(self.path, "a", encoding="utf-8") as f:
            if new:
                f.write(json.dumps({"fingerprint": self.fingerprint}) + "\n")
            f.write(json.dumps({"key": key, "row": _plain(row), "raw": raw}) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def remove(self) -> None:
        if os.path.exists(self.path):
            os.unlink(self.path)


def _plain(row):
    # JSON has no infinity: an infinite lifetime is stored as a string
    return {k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in row.items()}


def _unplain(row):
    return {k: (math.inf if v == "inf" else v) for k, v in row.items()}


# ---------------------------------------------------------------- running points

def point_runner(spec: dict[str, Any], progress: Any = None) -> tuple[dict[str, Any], Any]:
    """Run one point: one policy of one trace (the function Dask workers
    run).  Returns (row, destor summary)."""
    rows, raws = policy_replay.replay(spec["trace"], [spec["policy"]], spec["cache_size"], spec["simulate"],
                                   spec.get("cache_dir"), spec.get("config"), spec["destor"],
                                   spec.get("params", ()), progress, spec.get("store"),
                                   label_runs=False)
    return rows[0], raws[0]


def default_jobs() -> int:
    return os.cpu_count() or 1


def _on_sigterm(signum, frame):
    raise KeyboardInterrupt


def run_points(points: list[dict[str, Any]], jobs: int | None = None, scheduler: str | None = None,
               journal: Journal | None = None, progress: Any = None, log: Callable[[str], None] | None = None,
               label: Callable[[dict[str, Any], int, int], str] | None = None,
               results: list[Any] | None = None) -> list[Any]:
    """Run every point (dicts with "key", "spec" and "weight": progress
    units) and return their (row, raw) in point order, in `results` when a
    list is given (None for a point not run).  Finished points are added to
    the journal as they finish and taken from it when present.  On Ctrl-C or
    SIGTERM the destor processes are stopped, what finished is kept (in the
    journal and in `results`), and KeyboardInterrupt propagates."""
    if results is None:
        results = []
    results[:] = [None] * len(points)
    done = journal.load() if journal else {}
    todo = []
    for i, p in enumerate(points):
        if p["key"] in done:
            row, raw = done[p["key"]]
            results[i] = (_unplain(row), raw)
            if progress is not None:
                progress.advance(p.get("weight", 1))
        else:
            todo.append(i)
    if done and log:
        log("resuming: %d of %d points already done" % (len(points) - len(todo), len(points)))
    if not todo:
        return results

    def finished(i, row, raw):
        assert results is not None
        results[i] = (row, raw)
        if journal:
            journal.add(points[i]["key"], row, raw)

    old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if scheduler:
            _run_dask(points, todo, scheduler, finished, progress, label)
        elif (jobs or default_jobs()) <= 1 or len(todo) == 1:
            for n, i in enumerate(todo):
                if progress is not None and label:
                    progress.set_label(label(points[i], n + len(points) - len(todo), len(points)))
                base = progress.done if progress is not None else 0
                row, raw = point_runner(points[i]["spec"], progress)
                if progress is not None:
                    progress.update(base + points[i].get("weight", 1))
                finished(i, row, raw)
        else:
            _run_local(points, todo, jobs or default_jobs(), finished, progress)
    except KeyboardInterrupt:
        destor_runner.stop_children()
        raise
    finally:
        signal.signal(signal.SIGTERM, old)
        destor_runner.resume_children()  # every point's thread has ended here
    return results


def _collect(completed, futs, points, finished, progress):
    """Record each future's point as it completes (`completed`: futures in
    completion order; `futs`: future -> point index)."""
    for fut in completed:
        i = futs[fut]
        row, raw = fut.result()
        finished(i, row, raw)
        if progress is not None:
            progress.advance(points[i].get("weight", 1))


def _run_local(points, todo, jobs, finished, progress):
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    futs = {pool.submit(point_runner, points[i]["spec"]): i for i in todo}
    try:
        _collect(concurrent.futures.as_completed(futs), futs, points, finished, progress)
    except BaseException:
        for f in futs:
            f.cancel()
        destor_runner.stop_children()
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)


def _run_dask(points, todo, address, finished, progress, label):
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ToolError("--scheduler needs Dask distributed (apt install python3-distributed)")
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as e:
        raise ToolError("cannot reach the Dask scheduler at %s: %s" % (address, e))
    futs = {}
    try:
        # the workers import these modules from the copies sent here, so a
        # worker needs destor and the shared store, not this source tree
        here = os.path.dirname(os.path.abspath(__file__))
        with tempfile.TemporaryDirectory(prefix="destor-tools-") as tmp:
            archive = os.path.join(tmp, "destor_tools.zip")
            with zipfile.ZipFile(archive, "w") as z:
                for m in MODULES:
                    z.write(os.path.join(here, m + ".py"), "destor_tools/%s.py" % m)
            client.upload_file(archive)
        futs = {client.submit(point_runner, points[i]["spec"], pure=False): i for i in todo}
        _collect(as_completed(list(futs)), futs, points, finished, progress)
    except BaseException:
        client.cancel(list(futs))
        raise
    finally:
        client.close()
