# SPDX-License-Identifier: GPL-3.0-or-later
"""experiment_store: the store and the traces one `experiment` invocation
replays: the dataset it generates or is given, the store it ingests or
reuses (one per container size), each job's traces, cached.

Why it exists: every experiment of one invocation shares one store and
draws the same trace for the same seed; this is that shared state.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any, Sequence

from .errors import ToolError, UsageError
from .formatting import size_label
from .sizes import parse_size
from . import child_command
from . import progress_bar
from . import destor_runner
from . import trace_draw
from . import robustness_experiment
from .experiment_table import PROG


def expand_policies(destor: str, names: Sequence[str]) -> list[str]:
    """An experiment's policy list with 'all' replaced by every online
    policy destor lists (checked against destor's registry)."""
    out = []
    for n in names:
        out += destor_runner.resolve_policies(destor, "all" if n == "all" else n)
    return list(dict.fromkeys(out))


class Context:
    """Everything shared by the experiments of one invocation."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.a = a
        self.destor = os.path.abspath(a.destor) if os.sep in a.destor else a.destor
        destor_runner.check_destor(self.destor)
        self.root = os.path.abspath(a.out)
        os.makedirs(self.root, exist_ok=True)
        self.config = os.path.abspath(a.config) if a.config else None
        self.base_cs = parse_size(a.container_size)
        self.dataset = os.path.abspath(a.dataset) if a.dataset else None
        self.workdir = os.path.abspath(a.workdir) if a.workdir else None
        self.progress: progress_bar.Progress | None = None
        self.listings: dict[Any, tuple[list[tuple[bytes, int]], int]] = {}
        self.stats: dict[Any, dict[str, Any]] = {}
        self.traces: dict[Any, tuple[str, dict[str, Any]]] = {}
        self.compiled: dict[Any, str] = {}

    def log(self, msg: str) -> None:
        if self.progress is not None:
            self.progress.message("%s: %s" % (PROG, msg))
        else:
            print("%s: %s" % (PROG, msg), file=sys.stderr)

    # ---- the store

    def ensure_dataset(self) -> str:
        if self.dataset:
            if not os.path.isdir(self.dataset):
                raise ToolError("dataset %s is not a directory" % self.dataset)
            return self.dataset
        ds = os.path.join(self.root, "dataset-%s" % self.a.preset)
        marker = os.path.join(ds, ".complete")
        if not os.path.exists(marker):
            self.log("generating the %s dataset in %s" % (self.a.preset, ds))
            if os.path.isdir(ds):
                shutil.rmtree(ds)
            cmd, env = child_command.command_line("gen-dataset")
            cmd += ["--out", ds, "--preset", self.a.preset, "--seed", "1"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            if p.returncode != 0:
                raise ToolError("gen-dataset failed: %s" % p.stderr.decode("utf-8", "replace").strip())
            with open(marker, "w") as f:
                f.write("complete\n")
        self.dataset = ds
        return ds

    def dataset_versions(self, ds: str) -> list[str]:
        subs = []
        for e in os.listdir(ds):
            if e.startswith("v") and e[1:].isdigit() and os.path.isdir(os.path.join(ds, e)):
                subs.append((int(e[1:]), os.path.join(ds, e)))
        subs.sort()
        return [p for _, p in subs] or [ds]

    def existing_store(self) -> bool:
        """True when the runs use a store this script does not ingest:
        --workdir, or --config alone."""
        return self.workdir is not None or (self.config is not None and self.a.dataset is None)

    def store_for(self, container_size: int | None) -> tuple[str | None, list[str]]:
        """(config, params) naming the store to replay on, ingesting it
        when needed; container_size None means the base store."""
        if self.existing_store():
            if container_size is not None:
                raise UsageError("container-size re-ingests the dataset: give --dataset DIR (or no "
                                 "--workdir/--config, to generate one)")
            params = [destor_runner.config_line("working-directory", self.workdir)] if self.workdir else []
            return self.config, params
        if container_size is None:
            container_size = self.base_cs
        ds = self.ensure_dataset()
        label = size_label(container_size)
        sdir = os.path.join(self.root, "stores", "cs-%s" % label)
        wd = os.path.join(sdir, "working")
        marker = os.path.join(sdir, "ingested.json")
        versions = self.dataset_versions(ds)
        want = {"dataset": ds, "versions": versions, "container_size": container_size,
                "config": self.config}
        params = [destor_runner.config_line("working-directory", wd), "container-size %s" % container_size]
        have = None
        if os.path.exists(marker):
            try:
                with open(marker) as f:
                    have = json.load(f)
            except (OSError, ValueError):
                have = None
        if have != want:
            if os.path.isdir(sdir):
                shutil.rmtree(sdir)
            os.makedirs(sdir)
            t0 = time.monotonic()
            self.log("ingesting %s (%d version%s) with %s containers into %s"
                     % (ds, len(versions), "s" if len(versions) > 1 else "", label, wd))
            for v in versions:
                destor_runner.run_destor(
                    destor_runner.destor_base(self.destor, self.config, params) + ["backup", v],
                    "destor backup %s" % v)
            with open(marker, "w") as f:
                json.dump(want, f)
            self.log("ingested in %.1f s" % (time.monotonic() - t0))
        return self.config, params

    def drop_store(self, container_size: int) -> None:
        if not self.existing_store() and container_size != self.base_cs:
            sdir = os.path.join(self.root, "stores", "cs-%s" % size_label(container_size))
            if os.path.isdir(sdir):
                shutil.rmtree(sdir)

    def stat(self, config: str | None, params: Sequence[str]) -> dict[str, Any]:
        key = (config, tuple(params))
        if key not in self.stats:
            self.stats[key] = destor_runner.store_stat(self.destor, config, params)
        return self.stats[key]

    def job(self, config: str | None, params: Sequence[str]) -> int:
        if self.a.job == "last":
            jobs = self.stat(config, params).get("jobs") or []
            if not jobs:
                raise ToolError("the store has no job")
            return jobs[-1]["job"]
        try:
            return int(self.a.job)
        except ValueError:
            raise UsageError("--job must be a number or 'last'")

    def trace(self, config: str | None, params: Sequence[str], alpha: float, seed: int, tracedir: str,
              workload: str | None = None) -> tuple[str, dict[str, Any]]:
        """The trace of this store's job at `alpha` and `seed` (cached by
        file list), or the one --trace gives; a robustness workload
        (robustness_experiment.WORKLOADS) picks the distribution and shift,
        its `given` the --trace."""
        job = self.job(config, params)
        key = (config, tuple(params), job)
        if key not in self.listings:
            self.listings[key] = destor_runner.list_job_files(self.destor, job, config, params)
        listing = self.listings[key]
        if self.a.trace is not None and workload in (None, "given"):
            return self.a.trace, given_trace_info(self.a.trace, job, listing[0])
        dist, shift = "zipf", self.a.shift_every
        if workload is not None:
            dist, shifting = robustness_experiment.workload_spec(workload)
            shift = None
            if shifting or dist == "recency-objects":
                _, stationary = self.trace(config, params, alpha, seed, tracedir, "zipf")
                shift = robustness_experiment.shift_for(stationary["requests"]) if shifting else None
        tkey = (tuple(p for p, _ in listing[0]), tuple(s for _, s in listing[0]), job, alpha, seed, dist, shift)
        if tkey in self.traces:
            return self.traces[tkey]
        if dist == "recency-objects":
            data, info = robustness_experiment.object_stack_trace(
                listing[0], job, self.stat(config, params).get("containers", 0), stationary["requests"], alpha, seed)
        else:
            data, info = trace_draw.make_trace(self.destor, job, dist, alpha, seed, self.a.requests,
                                              self.a.bytes, shift, config, params, listing)
        os.makedirs(tracedir, exist_ok=True)
        path = os.path.join(tracedir, "%s-alpha%g-seed%d-%d.trace" % (dist, alpha, seed, len(self.traces)))
        with open(path, "wb") as f:
            f.write(data)
        if info["skipped_files"]:
            self.log("trace: skipped %d file(s) whose path holds a newline or CR" % info["skipped_files"])
        self.traces[tkey] = (path, info)
        return path, info


def given_trace_info(path: str, job: int, files: Sequence[tuple[bytes, int]]) -> dict[str, Any]:
    """What the report says of a --trace: its requests and the bytes they
    read (sizes from the job's listing of (path bytes, size); records read
    as destor reads them, a range cut at the end of its file), and for a
    timed trace the seconds from its first request to its last."""
    with open(path, "rb") as f:
        data = f.read()
    sizes = dict(files)
    requests = nbytes = 0
    first = last = None
    end = trace_draw.trace_terminator(data)
    for rec in data.split(end):
        if end == b"\n":
            rec = rec.rstrip(b"\r")
        if not rec or rec.startswith(b"#"):
            continue
        _, name, offset, length = trace_draw.parse_trace_record(rec)
        last = trace_draw.split_time(rec)[0]
        first = last if requests == 0 else first
        requests += 1
        left = max(sizes.get(name, 0) - (offset or 0), 0)  # a range is cut at the end of the file
        nbytes += left if length is None else min(left, length)
    return {"job": job, "given": path, "files": len(files), "skipped_files": 0,
            "job_file_bytes": sum(s for _, s in files), "requests": requests, "bytes": nbytes,
            "seconds": (last - first) / 1e9 if last is not None and first is not None else None}
