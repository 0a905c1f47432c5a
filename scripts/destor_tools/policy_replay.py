# SPDX-License-Identifier: GPL-3.0-or-later
"""policy_replay: replaying a trace through destor once per cache policy and
turning destor's JSON summary into a result row.

Why it exists: replay runs one trace and experiment runs many, and both must
give rows that are exactly the counters destor printed, with the HDD-only
run modelled the way destor's device model would; that logic lives here.
"""

import json
import math
import os
import re
import shutil
import subprocess
import threading
import time
from typing import Any, BinaryIO, Callable, Sequence

from .errors import ToolError, UsageError
from .destor_runner import (check_destor, config_line, default_destor, destor_base,
                        effective_settings, hdd_service_s, reap_destor, resolve_policies, run_destor,
                        start_destor, store_params, store_stat)
from .plot_style import POLICY_LABELS, policy_label  # noqa: F401  (the one table of names)
from .sizes import parse_size
from .trace_draw import is_compiled, trace_terminator

# Marker left in a cache directory the replayer created, so it only ever
# empties directories it owns.
CACHE_DIR_MARKER = ".destor-replay-cache"


# Row columns, in CSV order.
ROW_FIELDS = [
    "policy", "mode", "cache_size", "params", "trace",
    "container_size", "store_containers", "capacity_containers",
    "requests", "bytes_read", "container_accesses",
    "hits", "misses", "hit_ratio", "admissions", "evictions",
    "ssd_containers_written", "ssd_bytes_written", "ssd_bytes_read", "store_bytes_read",
    "refused_popularity_filter", "refused_delayed_eviction", "refused_inout_comparison",
    "refused_write_budget", "write_budget_bytes",
    "latency_measured_ms_mean", "latency_measured_ms_p50", "latency_measured_ms_p95",
    "latency_measured_ms_p99",
    "latency_model_ms_mean", "latency_model_ms_p95", "latency_model_ms_p99", "latency_model_ms_max",
    "latency_model_source",
    "model_elapsed_s", "model_ssd_wait_s",
    "qa_share", "qb_share", "qc_share", "qd_share",
    "qa_bytes", "qb_bytes", "qc_bytes", "qd_bytes",
    "ssd_write_rate_model_mib_s", "ssd_lifetime_model_days", "ssd_lifetime_wall_days",
    "destor_seconds", "run_seconds",
]

# Counters copied from destor's "cache" object under the same name.
_CACHE_COPY = [
    "capacity_containers", "hits", "misses", "hit_ratio", "admissions", "evictions",
    "ssd_containers_written", "ssd_bytes_written", "ssd_bytes_read", "store_bytes_read",
    "refused_popularity_filter", "refused_delayed_eviction", "refused_inout_comparison",
    "refused_write_budget", "write_budget_bytes",
    "qa_share", "qb_share", "qc_share", "qd_share", "qa_bytes", "qb_bytes", "qc_bytes", "qd_bytes",
    "ssd_write_rate_model_mib_s",
]


def _seconds(ms):
    # destor's JSON gives times in milliseconds; the rows keep seconds
    return None if ms is None else ms / 1e3


def _lifetime(v):
    # destor prints null for an infinite lifetime (nothing written)
    return math.inf if v is None else float(v)


def row_from_summary(summary: dict[str, Any], policy: str, mode: str, cache_size: str, params: Sequence[str],
                     trace: str, container_size: int, store_containers: int | None,
                     settings: dict[str, str]) -> dict[str, Any]:
    """One result row from destor's read-file --trace --json object."""
    lat = summary.get("latency_ms") or {}
    row: dict[str, Any] = {k: None for k in ROW_FIELDS}
    row.update({
        "policy": policy, "mode": mode, "cache_size": cache_size if policy != "none" else "",
        "params": "; ".join(params), "trace": trace,
        "container_size": container_size, "store_containers": store_containers,
        "requests": summary["requests"], "bytes_read": summary["bytes"],
        "container_accesses": summary["container_accesses"],
        "latency_measured_ms_mean": lat.get("mean", 0.0),
        "latency_measured_ms_p50": lat.get("p50", 0.0),
        "latency_measured_ms_p95": lat.get("p95", 0.0),
        "latency_measured_ms_p99": lat.get("p99", 0.0),
        "destor_seconds": _seconds(summary.get("elapsed_ms")),
    })
    cache = summary.get("cache")
    if cache is not None:
        for k in _CACHE_COPY:
            row[k] = cache.get(k)
        row["model_elapsed_s"] = _seconds(cache.get("model_elapsed_ms"))
        row["model_ssd_wait_s"] = _seconds(cache.get("model_ssd_wait_ms"))
        row["container_size"] = cache.get("container_size", container_size)
        row["store_containers"] = cache.get("store_containers", store_containers)
        row["latency_model_ms_mean"] = cache.get("request_latency_model_ms_mean")
        row["latency_model_ms_max"] = cache.get("request_latency_model_ms_max")
        # tails are used when destor reports them
        model = summary.get("latency_model_ms") or {}
        row["latency_model_ms_p95"] = model.get("p95")
        row["latency_model_ms_p99"] = model.get("p99")
        row["latency_model_source"] = "destor"
        row["ssd_lifetime_model_days"] = _lifetime(cache.get("ssd_lifetime_model_days"))
        # wall-clock lifetime: null means "nothing written" in real mode but
        # "not applicable" in simulation mode (no bytes move)
        row["ssd_lifetime_wall_days"] = _lifetime(cache.get("ssd_lifetime_wall_days")) \
            if cache.get("mode", mode) == "real" else None
    else:
        # HDD only: no cache, so every container access is an HDD read of
        # one container, modelled exactly as destor's device model does
        # (one request at a time, no queueing).
        acc = summary["container_accesses"]
        reqs = summary["requests"]
        t = hdd_service_s(container_size, settings)
        row.update({
            "capacity_containers": 0, "hits": 0, "misses": acc, "hit_ratio": 0.0,
            "admissions": 0, "evictions": 0, "ssd_containers_written": 0, "ssd_bytes_written": 0,
            "ssd_bytes_read": 0, "store_bytes_read": acc * container_size,
            "latency_model_ms_mean": 1e3 * acc * t / reqs if reqs else 0.0,
            "latency_model_source": "replay (HDD model, no cache)",
            "model_elapsed_s": acc * t, "model_ssd_wait_s": 0.0,
        })
    return row


def _drain(stream, sink):
    sink.append(stream.read())


def run_read_file(cmd_prefix: list[str], trace_path: str, simulate: bool, progress: Any = None,
                  progress_base: int = 0, what: str = "destor read-file", log: BinaryIO | None = None,
                  raw: bool = False) -> Any:
    """Run destor read-file --trace --json once; returns the parsed summary
    (stdout's bytes with raw).  With a progress bar the trace is fed on
    standard input ('-') so the bar follows the requests destor has taken.
    A NUL-terminated trace is passed with --null.  `log`, a binary file
    open for writing, receives destor's stderr (its log) instead of memory."""
    with open(trace_path, "rb") as f:
        data = f.read()
    compiled = is_compiled(data)
    end = trace_terminator(data)
    cmd = list(cmd_prefix) + ["read-file", "--trace"]
    tail = ["--json"] + (["--simulate"] if simulate else []) + \
        (["--null"] if end == b"\0" and not compiled else [])
    # a compiled trace has no records to count: its bar moves per run
    streaming = progress is not None and progress.enabled and not compiled
    if not streaming and log is None:
        out = run_destor(cmd + [trace_path] + tail, what)
    else:
        p = start_destor(cmd + ["-" if streaming else trace_path] + tail,
                         stdin=subprocess.PIPE if streaming else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=log if log is not None else subprocess.PIPE)
        outs: list[bytes] = []
        errs: list[bytes] = []
        threads = [threading.Thread(target=_drain, args=(p.stdout, outs))]
        if log is None:
            threads.append(threading.Thread(target=_drain, args=(p.stderr, errs)))
        for t in threads:
            t.start()
        done = 0
        pos = 0
        step = 1 << 14
        try:
            while streaming and pos < len(data):
                chunk = data[pos:pos + step]
                assert p.stdin is not None
                p.stdin.write(chunk)
                pos += len(chunk)
                done += chunk.count(end)
                progress.update(progress_base + done)
            if streaming:
                assert p.stdin is not None
                p.stdin.close()
        except BrokenPipeError:
            pass
        for t in threads:
            t.join()
        rc = p.wait()
        reap_destor(p)
        if rc != 0:
            msg = b"".join(errs).decode("utf-8", "replace").strip() or \
                ("see %s" % log.name if log is not None else "exit status %d" % rc)
            raise ToolError("%s failed (exit %d%s): %s"
                            % (what, rc, "; trace %s fed on standard input '-'" % trace_path
                               if streaming else "", msg))
        out = b"".join(outs)
    if raw:
        return out
    try:
        return json.loads(out.decode("utf-8"))
    except ValueError as e:
        raise ToolError("%s printed something that is not JSON: %s" % (what, e))


def prepare_cache_dir(path: str, marker: str = CACHE_DIR_MARKER, owner: str = "replay", wipe_ok: bool = False,
                      hint: str = "give a new or empty directory") -> None:
    """Create or empty a cache directory.  Only a new or empty directory, one
    this tool created before (it holds `marker`), or any directory when
    wipe_ok, is emptied: the tools never delete files they did not create
    unless told to.  / and the home directory are always refused."""
    real = os.path.realpath(path)
    if real == "/" or real == os.path.realpath(os.path.expanduser("~")):
        raise UsageError("refusing to use %s as the cache directory" % path)
    if os.path.isdir(path):
        entries = os.listdir(path)
        if entries and marker not in entries and not wipe_ok:
            raise ToolError("refusing to empty cache directory %s: it is not empty and was not "
                            "created by %s (%s)" % (path, owner, hint))
        for e in entries:
            if e == marker:
                continue
            full = os.path.join(path, e)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.unlink(full)
    else:
        try:
            os.makedirs(path)
        except OSError as e:
            raise ToolError("cannot create cache directory %s: %s" % (path, e.strerror or e))
    try:
        with open(os.path.join(path, marker), "w") as f:
            f.write("created by destor-plc scripts/%s; emptied before every run\n" % owner)
    except OSError as e:
        raise ToolError("cannot write in %s: %s" % (path, e.strerror or e))


_CACHE_SIZE_RE = re.compile(r"^\s*([0-9]+(\.[0-9]*)?%|[0-9]+|[0-9]+(\.[0-9]*)?\s*[kmgtKMGT](i?[bB])?)\s*$")


def check_cache_size(text: str) -> str:
    """ssd-cache-size as destor takes it: N containers, a size (4G) or a
    share of the stored containers (20%, above 0 and at most 100)."""
    m = _CACHE_SIZE_RE.match(text or "")
    if not m:
        raise UsageError("invalid cache size %r (N containers, a size like 4G, or a share like 20%%)"
                         % text)
    t = text.strip()
    if t.endswith("%") and not 0 < float(t[:-1]) <= 100:
        raise UsageError("cache size %s: a share must be above 0%% and at most 100%%" % t)
    if t.isdigit() and int(t) == 0:
        raise UsageError("cache size must be above 0")
    return t


def capacity_containers(text: str, containers: int, container_size: int) -> int:
    """The containers a cache of size `text` holds in a store of
    `containers` containers of `container_size` bytes, resolved as destor
    resolves ssd-cache-size (a share rounds down, at least 1; a size holds
    whole containers), cut to the store's count as the cache cuts it."""
    t = check_cache_size(text)
    if t.endswith("%"):
        n = max(1, int(containers * float(t[:-1]) / 100.0)) if containers else 0
    elif t.isdigit():
        n = int(t)
    else:
        n = parse_size(t) // container_size if container_size else 0
    return min(n, containers)


def _destor_help(destor, cache={}):
    if destor not in cache:
        try:
            cache[destor] = subprocess.run([destor, "--help"], stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT).stdout
        except OSError:
            cache[destor] = b""
    return cache[destor]


def compile_trace(destor: str, config: str | None, params: Sequence[str], trace: str, out_path: str) -> str:
    """The file replays should read for `trace`: resolved once into its
    container accesses with `destor trace compile TRACE -o OUT` when this
    destor has that command (its --help lists it), else the trace itself.
    (An older destor would take "trace" for a directory to back up, so the
    command is never tried blind.)"""
    if b"trace compile" not in _destor_help(destor):
        return trace
    with open(trace, "rb") as f:
        null = trace_terminator(f.read()) == b"\0"
    cmd = destor_base(destor, config, store_params(destor, params)) + ["trace", "compile", trace, "-o", out_path]
    run_destor(cmd + (["--null"] if null else []), "destor trace compile %s" % trace)
    return out_path


def replay(trace: str, policies: str | Sequence[str], cache_size: str = "20%", simulate: bool = True,
           cache_dir: str | None = None, config: str | None = None, destor: str | None = None,
           params: Sequence[str] = (), progress: Any = None, store: dict[str, Any] | None = None,
           log: Callable[[str], None] | None = None, label_runs: bool = True) -> tuple[list[dict[str, Any]], list[Any]]:
    """Replay `trace` once per policy.  Returns (rows, raw summaries).
    `store` may pass a precomputed destor stat object."""
    destor = destor or default_destor()
    check_destor(destor)
    if not os.path.isfile(trace):
        raise ToolError("trace %s not found" % trace)
    names = resolve_policies(destor, policies)
    if not simulate and cache_dir is None:
        raise UsageError("real mode needs a cache directory (--cache-dir)")
    params = list(params)
    if store is None:
        store = store_stat(destor, config, params)
    container_size = store["container_size"]
    settings = effective_settings(config, params)
    mode = "simulate" if simulate else "real"
    rows, raws = [], []
    for k, pol in enumerate(names):
        run_params = params + ["ssd-cache-policy %s" % pol]
        if pol != "none":
            run_params.append("ssd-cache-size %s" % cache_size)
        if cache_dir is not None and pol != "none":
            prepare_cache_dir(cache_dir)
            run_params.append(config_line("ssd-cache-directory", cache_dir))
        if progress is not None and label_runs:
            progress.set_label("%s (%d/%d)" % (policy_label(pol), k + 1, len(names)))
        if log:
            log("replay: %s, %s mode, cache %s" % (pol, mode, cache_size))
        t0 = time.monotonic()
        summary = run_read_file(destor_base(destor, config, run_params), trace, simulate,
                                progress, progress.done if progress else 0,
                                "destor read-file (policy %s)" % pol)
        row = row_from_summary(summary, pol, mode, cache_size, params, trace, container_size,
                               store.get("containers"), settings)
        row["run_seconds"] = time.monotonic() - t0
        rows.append(row)
        raws.append(summary)
        if progress is not None:
            progress.update(progress.done)
    return rows, raws
