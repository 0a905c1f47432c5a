"""plclib: shared code of gen-trace, replay and experiment.

Why it exists: the three scripts reproduce the PLC-Cache paper's evaluation
(section V) on a store built by destor.  They must agree on how a job's
files are listed, how a Zipf trace is drawn (equation (1) of the paper), how
destor is driven for one replay and how its JSON summary becomes a result
row, so all of that lives here once.  The scripts are thin command lines
over it and the tests import it by path.

Units: bytes are bytes; "MiB"/"GiB" are powers of 1024; latencies in rows
are milliseconds; lifetimes are days of 86,400 s.  The device model's MB/s
are 10^6 bytes a second, as in destor (src/cache/device_model.h).

Standard library only (experiment imports matplotlib itself).
"""

import bisect
import csv
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Marker left in a cache directory the replayer created, so it only ever
# empties directories it owns.
CACHE_DIR_MARKER = ".destor-replay-cache"


class ToolError(Exception):
    """A failure to report as one line "PROG: message" (exit status 1)."""


class UsageError(ToolError):
    """A bad argument (exit status 2)."""


def main_wrapper(prog, fn):
    """Run fn(); print ToolError as one line and map it to an exit status."""
    try:
        return fn() or 0
    except UsageError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    except ToolError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("%s: interrupted" % prog, file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


def default_destor():
    """./build/destor relative to the repository root (scripts/setup.sh)."""
    return os.path.join(REPO_ROOT, "build", "destor")


# ---------------------------------------------------------------- sizes

_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([kmgtKMGT]?)(?:i?[bB])?\s*$")
_UNITS = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": TIB}


def parse_size(text):
    """'4096', '512K', '1.5G', '2M' -> bytes (powers of 1024)."""
    m = _SIZE_RE.match(text or "")
    if not m:
        raise UsageError("invalid size %r (expected a number with an optional K/M/G/T suffix)" % text)
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def parse_budget(text, job_bytes):
    """--bytes: a size, or 'Nx' meaning N times the job's file bytes (the
    paper read 520 GB over a 200 GB set, i.e. 2.6x)."""
    t = (text or "").strip()
    if t.lower().endswith("x"):
        try:
            factor = float(t[:-1])
        except ValueError:
            raise UsageError("invalid budget %r (expected a size like 6G or a multiple like 2.6x)" % text)
        if not factor > 0:
            raise UsageError("budget multiple must be above 0: %r" % text)
        return int(factor * job_bytes)
    return parse_size(t)


def format_bytes(n):
    """Human-readable binary size: '1.50 GiB'."""
    if n is None:
        return "-"
    n = float(n)
    for unit, scale in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if abs(n) >= scale:
            return "%.2f %s" % (n / scale, unit)
    return "%d B" % n


def size_label(n):
    """Compact container-size label: 131072 -> '128K', 2097152 -> '2M'."""
    for unit, scale in (("G", GIB), ("M", MIB), ("K", KIB)):
        if n >= scale and n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return str(n)


def format_duration(s):
    if s is None or not math.isfinite(s):
        return "--:--"
    s = int(round(s))
    if s >= 3600:
        return "%dh%02dm" % (s // 3600, (s % 3600) // 60)
    return "%d:%02d" % (s // 60, s % 60)


# ---------------------------------------------------------------- progress

class Progress:
    """A one-line progress bar with ETA on stderr, drawn only when stderr is
    a terminal (or when forced).  Work is counted in arbitrary units (trace
    requests); set_total() may grow the total as runs are added."""

    def __init__(self, total, label="", enabled=None, stream=None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.total = max(total, 1)
        self.done = 0
        self.label = label
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.width = 30
        self.lock = threading.Lock()
        self.drawn = False

    def set_label(self, label):
        self.label = label
        self._draw(force=True)

    def set_total(self, total):
        self.total = max(total, 1)

    def update(self, done):
        with self.lock:
            self.done = min(done, self.total)
        self._draw()

    def advance(self, n):
        self.update(self.done + n)

    def eta(self):
        elapsed = time.monotonic() - self.start
        if self.done <= 0:
            return None
        return elapsed * (self.total - self.done) / self.done

    def _draw(self, force=False):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last_draw < 0.2 and self.done < self.total:
            return
        self.last_draw = now
        frac = self.done / self.total
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        line = "\r[%s] %5.1f%% ETA %s  %s" % (bar, 100 * frac, format_duration(self.eta()), self.label)
        cols = shutil.get_terminal_size((100, 20)).columns
        self.stream.write(line[: cols - 1].ljust(cols - 1))
        self.stream.flush()
        self.drawn = True

    def message(self, text):
        """Print a line above the bar (the bar is redrawn after it)."""
        if self.enabled and self.drawn:
            cols = shutil.get_terminal_size((100, 20)).columns
            self.stream.write("\r" + " " * (cols - 1) + "\r")
        print(text, file=self.stream)
        self._draw(force=True)

    def close(self):
        if self.enabled and self.drawn:
            self.update(self.total)
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


# ---------------------------------------------------------------- destor

def destor_base(destor, config=None, params=()):
    """The argv prefix: destor [-c CONFIG] [-p "key value"]..."""
    cmd = [destor]
    if config:
        cmd += ["-c", config]
    for p in params:
        cmd += ["-p", p]
    return cmd


def check_destor(destor):
    if not (os.path.isfile(destor) and os.access(destor, os.X_OK)):
        raise ToolError("destor binary %s not found or not executable "
                        "(build it with scripts/setup.sh or pass --destor)" % destor)


def run_destor(cmd, what, input_bytes=None):
    """Run a destor command to completion; stdout as bytes, ToolError with
    destor's own message otherwise."""
    try:
        p = subprocess.run(cmd, input=input_bytes, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise ToolError("cannot run %s: %s" % (cmd[0], e))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip() or "exit status %d" % p.returncode
        raise ToolError("%s failed (exit %d): %s" % (what, p.returncode, msg))
    return p.stdout


def store_stat(destor, config=None, params=()):
    """destor stat --json, parsed."""
    out = run_destor(destor_base(destor, config, params) + ["stat", "--json"], "destor stat")
    try:
        return json.loads(out.decode("utf-8"))
    except ValueError as e:
        raise ToolError("destor stat --json printed something that is not JSON: %s" % e)


def parse_listing(data):
    """Parse `destor list JOB --null` output: NUL-terminated records
    TYPE<TAB>SIZE<TAB>PATH.  Returns (files, skipped): files is a list of
    (path bytes, size) of the regular files whose path fits on a trace line;
    skipped counts the regular files whose path holds a newline or CR."""
    files = []
    skipped = 0
    for rec in data.split(b"\0"):
        if not rec:
            continue
        parts = rec.split(b"\t", 2)
        if len(parts) != 3:
            raise ToolError("unexpected record in destor list output: %r" % rec[:80])
        kind, size, path = parts
        if kind != b"f":
            continue
        try:
            size = int(size)
        except ValueError:
            raise ToolError("unexpected size in destor list output: %r" % rec[:80])
        if b"\n" in path or b"\r" in path:
            skipped += 1
            continue
        files.append((path, size))
    files.sort()
    return files, skipped


def list_job_files(destor, job, config=None, params=()):
    out = run_destor(destor_base(destor, config, params) + ["list", str(job), "--null"],
                     "destor list %s" % job)
    return parse_listing(out)


# ---------------------------------------------------------------- traces

def zipf_weights(n, alpha):
    """Unnormalised weights of equation (1): w(i) = 1 / i^(1 - alpha) for
    ranks i = 1..n; alpha in [0, 1] (0: classic Zipf, 1: uniform)."""
    if not 0.0 <= alpha <= 1.0:
        raise UsageError("alpha must be in [0, 1], got %g" % alpha)
    e = 1.0 - alpha
    return [1.0 / (i ** e) for i in range(1, n + 1)]


def zipf_probabilities(n, alpha):
    """P(i, alpha, F) of equation (1) for i = 1..n (index 0 is rank 1)."""
    w = zipf_weights(n, alpha)
    s = math.fsum(w)
    return [x / s for x in w]


class TraceSampler:
    """Draws file indices 0..n-1.  zipf: rank i (1-based) is drawn with
    probability P(i) of equation (1), and the file with rank i is perm[i-1],
    a seeded random permutation of the files.  uniform: every file equally.
    shift_every K: after every K draws a new permutation is drawn, so the
    popular set moves (the distribution over ranks stays the same).

    Everything comes from one random.Random(seed): the first permutation,
    then the draws, then each new permutation at a shift, in that order."""

    def __init__(self, n, dist="zipf", alpha=0.47, seed=1, shift_every=None, keep_epochs=False):
        if n <= 0:
            raise ToolError("no requestable files")
        if dist not in ("zipf", "uniform"):
            raise UsageError("unknown distribution %r (zipf or uniform)" % dist)
        if shift_every is not None and shift_every <= 0:
            raise UsageError("--shift-every must be a positive number of requests")
        self.n = n
        self.dist = dist
        self.alpha = alpha
        self.rng = random.Random(seed)
        self.shift_every = shift_every
        self.drawn = 0
        self.shifts = 0
        self.perm = list(range(n))
        self.rng.shuffle(self.perm)
        self.epochs = [(0, list(self.perm))] if keep_epochs else None
        if dist == "zipf":
            w = zipf_weights(n, alpha)
            self.cum = []
            acc = 0.0
            for x in w:
                acc += x
                self.cum.append(acc)
            self.total = acc

    def rank(self):
        """Draw a 0-based rank."""
        if self.dist == "uniform":
            return self.rng.randrange(self.n)
        u = self.rng.random() * self.total
        return min(bisect.bisect_right(self.cum, u), self.n - 1)

    def next(self):
        if self.shift_every and self.drawn and self.drawn % self.shift_every == 0:
            self.rng.shuffle(self.perm)
            self.shifts += 1
            if self.epochs is not None:
                self.epochs.append((self.drawn, list(self.perm)))
        self.drawn += 1
        return self.perm[self.rank()]


def generate_indices(files, dist, alpha, seed, requests=None, budget=None, shift_every=None,
                     epochs=None):
    """Draw requests until `requests` have been drawn or the next one would
    take the bytes read past `budget` (whichever comes first).  Returns
    (indices, total bytes, shifts).  A list passed as `epochs` receives
    (first request, permutation) for every permutation used."""
    if requests is None and budget is None:
        raise UsageError("give --requests N or --bytes BUDGET")
    if requests is not None and requests < 0:
        raise UsageError("--requests must not be negative")
    if budget is not None and budget < 0:
        raise UsageError("--bytes must not be negative")
    if budget is not None and requests is None and not any(s > 0 for _, s in files):
        raise ToolError("every requestable file is empty: a byte budget never runs out")
    s = TraceSampler(len(files), dist, alpha, seed, shift_every, keep_epochs=epochs is not None)
    out = []
    total = 0
    while requests is None or len(out) < requests:
        i = s.next()
        size = files[i][1]
        if budget is not None and total + size > budget:
            break
        out.append(i)
        total += size
    if epochs is not None:
        epochs.extend(e for e in s.epochs if e[0] < max(len(out), 1))
    return out, total, s.shifts


def trace_header(params):
    """'# key value' comment lines describing how a trace was made."""
    lines = ["# destor read-file trace written by scripts/gen-trace: one request per line, JOB<TAB>PATH"]
    for k, v in params:
        lines.append("# %s: %s" % (k, v))
    return "\n".join(lines) + "\n"


def write_trace(fp, job, files, indices, header):
    """Write the trace to a binary file object."""
    fp.write(header.encode("utf-8"))
    prefix = b"%d\t" % job
    buf = []
    for i in indices:
        buf.append(prefix + files[i][0] + b"\n")
        if len(buf) >= 4096:
            fp.write(b"".join(buf))
            buf = []
    fp.write(b"".join(buf))


def make_trace(destor, job, dist="zipf", alpha=0.47, seed=1, requests=None, budget_text=None,
               shift_every=None, config=None, params=(), listing=None, want_ranks=False):
    """List the job's files, draw a trace.  Returns (bytes of the trace
    file, info dict).  `listing` may pass a precomputed (files, skipped).
    With want_ranks, info["ranks"] holds the rank table (see rank_table)."""
    files, skipped = listing if listing is not None else list_job_files(destor, job, config, params)
    if not files:
        raise ToolError("job %s has no regular file a trace can name" % job)
    job_bytes = sum(s for _, s in files)
    budget = parse_budget(budget_text, job_bytes) if budget_text is not None else None
    epochs = [] if want_ranks else None
    indices, total, shifts = generate_indices(files, dist, alpha, seed, requests, budget, shift_every,
                                              epochs)
    info = {
        "job": job, "dist": dist, "alpha": alpha if dist == "zipf" else None, "seed": seed,
        "files": len(files), "skipped_files": skipped, "job_file_bytes": job_bytes,
        "requests_asked": requests, "bytes_budget": budget, "shift_every": shift_every,
        "requests": len(indices), "bytes": total, "shifts": shifts,
        "distinct_files": len(set(indices)),
    }
    hdr = [("job", job), ("distribution", dist)]
    if dist == "zipf":
        hdr.append(("alpha", "%g (P(i) proportional to 1/i^(1-alpha), i = 1..F; rank -> file "
                             "by a seeded random permutation)" % alpha))
    hdr += [("seed", seed),
            ("files (F)", "%d regular files, %s" % (len(files), format_bytes(job_bytes))),
            ("skipped", "%d files whose path holds a newline or CR" % skipped),
            ("requests asked", requests if requests is not None else "-"),
            ("bytes budget", "%d (%s)" % (budget, budget_text) if budget is not None else "-"),
            ("shift every", "%d requests (new permutation; %d shifts)" % (shift_every, shifts)
             if shift_every else "-"),
            ("requests", len(indices)),
            ("bytes", "%d (%s)" % (total, format_bytes(total)))]
    buf = io.BytesIO()
    write_trace(buf, job, files, indices, trace_header(hdr))
    if want_ranks:
        info["ranks"] = rank_table(files, epochs, dist)
    return buf.getvalue(), info


def rank_table(files, epochs, dist):
    """Which file had which rank: one 'FIRST<TAB>RANK<TAB>SIZE<TAB>PATH' line
    per file and permutation, FIRST being the 0-based index of the first
    request drawn under that permutation (0, K, 2K, ... with shifts).  For
    uniform the ranks are only an order: every rank is equally likely."""
    out = [b"# rank table written by scripts/gen-trace (%s): FIRST_REQUEST<TAB>RANK<TAB>SIZE<TAB>PATH; "
           b"rank 1 is the most popular\n" % dist.encode()]
    for first, perm in epochs:
        for r, i in enumerate(perm):
            out.append(b"%d\t%d\t%d\t%s\n" % (first, r + 1, files[i][1], files[i][0]))
    return b"".join(out)


def trace_lines(path):
    """Newlines in a trace file: the progress units of one replay run."""
    with open(path, "rb") as f:
        return max(f.read().count(b"\n"), 1)


# ---------------------------------------------------------------- device model

# destor's defaults (src/cache/device_model.c), and the config keys that
# change them; used for the HDD-only run, which has no cache to model it.
DEVICE_DEFAULTS = {
    "model-hdd-seek-ms": 10.0,
    "model-hdd-rpm": 5400.0,
    "model-hdd-mb-per-s": 100.0,
}


def config_lines(path):
    """(key, value) of a destor.config, in order (quotes removed)."""
    out = []
    if not path:
        return out
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                out.append(_split_config_line(line))
    except OSError as e:
        raise ToolError("cannot read config %s: %s" % (path, e))
    return [kv for kv in out if kv]


def _split_config_line(line):
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    key, _, value = line.partition(" ")
    if "\t" in key:
        key, _, rest = key.partition("\t")
        value = rest + value
    value = value.strip()
    if "#" in value and not value.startswith('"'):
        value = value.split("#", 1)[0].strip()
    if len(value) >= 2 and value[0] == '"' and value.endswith('"'):
        value = value[1:-1]
    return key.strip().replace("_", "-"), value


def effective_settings(config=None, params=()):
    """Settings as destor resolves them: config file lines, then -p lines."""
    kv = dict(config_lines(config))
    for p in params:
        sp = _split_config_line(p)
        if sp:
            kv[sp[0]] = sp[1]
    return kv


def hdd_service_s(container_size, settings):
    """Modelled HDD read of one container (device_model_hdd_service):
    average seek + half a rotation + transfer."""
    def get(k):
        try:
            return float(settings.get(k, DEVICE_DEFAULTS[k]))
        except ValueError:
            return DEVICE_DEFAULTS[k]
    seek = get("model-hdd-seek-ms") / 1e3
    rpm = get("model-hdd-rpm")
    rate = get("model-hdd-mb-per-s")
    half_turn = 0.5 * 60.0 / rpm if rpm > 0 else 0.0
    return seek + half_turn + (container_size / (rate * 1e6) if rate > 0 else 0.0)


# ---------------------------------------------------------------- replay

POLICIES = ("none", "fifo", "lru", "lfu", "lfu-incache", "plc")
POLICY_LABELS = {"none": "HDD only", "fifo": "FIFO", "lru": "LRU", "lfu": "LFU",
                 "lfu-incache": "LFU (in-cache)", "plc": "PLC-Cache"}

# Row columns, in CSV order.
ROW_FIELDS = [
    "policy", "mode", "cache_size", "params", "trace",
    "container_size", "store_containers", "capacity_containers",
    "requests", "bytes_read", "container_accesses",
    "hits", "misses", "hit_ratio", "admissions", "evictions",
    "ssd_containers_written", "ssd_bytes_written", "ssd_bytes_read", "store_bytes_read",
    "refused_popularity_filter", "refused_delayed_eviction", "refused_inout_comparison",
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
    "model_elapsed_s", "model_ssd_wait_s",
    "qa_share", "qb_share", "qc_share", "qd_share", "qa_bytes", "qb_bytes", "qc_bytes", "qd_bytes",
    "ssd_write_rate_model_mib_s",
]


def _lifetime(v):
    # destor prints null for an infinite lifetime (nothing written)
    return math.inf if v is None else float(v)


def row_from_summary(summary, policy, mode, cache_size, params, trace, container_size,
                     store_containers, settings):
    """One result row from destor's read-file --trace --json object."""
    lat = summary.get("latency_usec") or {}
    row = {k: None for k in ROW_FIELDS}
    row.update({
        "policy": policy, "mode": mode, "cache_size": cache_size if policy != "none" else "",
        "params": "; ".join(params), "trace": trace,
        "container_size": container_size, "store_containers": store_containers,
        "requests": summary["requests"], "bytes_read": summary["bytes"],
        "container_accesses": summary["container_accesses"],
        "latency_measured_ms_mean": lat.get("mean", 0.0) / 1e3,
        "latency_measured_ms_p50": lat.get("p50", 0.0) / 1e3,
        "latency_measured_ms_p95": lat.get("p95", 0.0) / 1e3,
        "latency_measured_ms_p99": lat.get("p99", 0.0) / 1e3,
        "destor_seconds": summary.get("seconds"),
    })
    cache = summary.get("cache")
    if cache is not None:
        for k in _CACHE_COPY:
            row[k] = cache.get(k)
        row["container_size"] = cache.get("container_size", container_size)
        row["store_containers"] = cache.get("store_containers", store_containers)
        row["latency_model_ms_mean"] = cache.get("request_latency_model_ms_mean")
        row["latency_model_ms_max"] = cache.get("request_latency_model_ms_max")
        # tails are used when destor reports them
        model = summary.get("latency_model_usec") or {}
        row["latency_model_ms_p95"] = model["p95"] / 1e3 if "p95" in model else None
        row["latency_model_ms_p99"] = model["p99"] / 1e3 if "p99" in model else None
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


def run_read_file(cmd_prefix, trace_path, simulate, progress=None, progress_base=0, what="destor read-file"):
    """Run destor read-file --trace --json once; returns the parsed summary.
    With a progress bar the trace is fed on standard input ('-') so the bar
    follows the requests destor has taken."""
    cmd = list(cmd_prefix) + ["read-file", "--trace"]
    tail = ["--json"] + (["--simulate"] if simulate else [])
    if progress is None or not progress.enabled:
        out = run_destor(cmd + [trace_path] + tail, what)
    else:
        with open(trace_path, "rb") as f:
            data = f.read()
        try:
            p = subprocess.Popen(cmd + ["-"] + tail, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        except OSError as e:
            raise ToolError("cannot run %s: %s" % (cmd[0], e))
        outs, errs = [], []
        t1 = threading.Thread(target=_drain, args=(p.stdout, outs))
        t2 = threading.Thread(target=_drain, args=(p.stderr, errs))
        t1.start()
        t2.start()
        done = 0
        pos = 0
        step = 1 << 14
        try:
            while pos < len(data):
                chunk = data[pos:pos + step]
                p.stdin.write(chunk)
                pos += len(chunk)
                done += chunk.count(b"\n")
                progress.update(progress_base + done)
            p.stdin.close()
        except BrokenPipeError:
            pass
        t1.join()
        t2.join()
        rc = p.wait()
        if rc != 0:
            msg = b"".join(errs).decode("utf-8", "replace").strip() or "exit status %d" % rc
            raise ToolError("%s failed (exit %d; trace %s fed on standard input '-'): %s"
                            % (what, rc, trace_path, msg))
        out = b"".join(outs)
    try:
        return json.loads(out.decode("utf-8"))
    except ValueError as e:
        raise ToolError("%s printed something that is not JSON: %s" % (what, e))


def prepare_cache_dir(path):
    """Create or empty a cache directory.  Only a new or empty directory, or
    one this tool created before (it holds CACHE_DIR_MARKER), is used: the
    replayer never deletes files it did not create."""
    if os.path.isdir(path):
        entries = os.listdir(path)
        if entries and CACHE_DIR_MARKER not in entries:
            raise ToolError("refusing to empty cache directory %s: it is not empty and was not "
                            "created by replay (give a new or empty directory)" % path)
        for e in entries:
            if e == CACHE_DIR_MARKER:
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
            raise ToolError("cannot create cache directory %s: %s" % (path, e))
    with open(os.path.join(path, CACHE_DIR_MARKER), "w") as f:
        f.write("created by destor-plc scripts/replay; emptied before every run\n")


def replay(trace, policies, cache_size="20%", simulate=True, cache_dir=None, config=None,
           destor=None, params=(), progress=None, store=None, log=None, label_runs=True):
    """Replay `trace` once per policy.  Returns (rows, raw summaries).
    `store` may pass a precomputed destor stat object."""
    destor = destor or default_destor()
    check_destor(destor)
    if not os.path.isfile(trace):
        raise ToolError("trace %s not found" % trace)
    for pol in policies:
        if pol not in POLICIES:
            raise UsageError("unknown policy %r (one of %s)" % (pol, ", ".join(POLICIES)))
    if not simulate and cache_dir is None:
        raise UsageError("real mode needs a cache directory (--cache-dir)")
    params = list(params)
    if store is None:
        store = store_stat(destor, config, params)
    container_size = store["container_size"]
    settings = effective_settings(config, params)
    mode = "simulate" if simulate else "real"
    rows, raws = [], []
    for k, pol in enumerate(policies):
        run_params = params + ["ssd-cache-policy %s" % pol]
        if pol != "none":
            run_params.append("ssd-cache-size %s" % cache_size)
        if cache_dir is not None and pol != "none":
            prepare_cache_dir(cache_dir)
            run_params.append("ssd-cache-directory %s" % cache_dir)
        if progress is not None and label_runs:
            progress.set_label("%s (%d/%d)" % (POLICY_LABELS[pol], k + 1, len(policies)))
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


# ---------------------------------------------------------------- output

def csv_value(v):
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isinf(v):
            return "inf"
        if math.isnan(v):
            return ""
        return repr(round(v, 9))
    return v


def json_value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None  # JSON has no infinity; null = infinite lifetime / n.a.
    return v


def write_csv(path, rows, fields=None):
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


def write_json(path, obj):
    def clean(o):
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return json_value(o)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(clean(obj), f, indent=1, sort_keys=False)
        f.write("\n")


def fmt(v, spec="%.2f", none="-"):
    if v is None:
        return none
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return spec % v


def pct(v):
    return fmt(None if v is None else 100.0 * v, "%.2f%%")


def markdown_table(rows, lead=None):
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
        cells = [POLICY_LABELS.get(r["policy"], r["policy"]),
                 pct(r["hit_ratio"]) if r["policy"] != "none" else "-",
                 format_bytes(r["ssd_bytes_written"]),
                 fmt(r["latency_model_ms_mean"], "%.3f"),
                 "%s / %s / %s" % (fmt(r["latency_measured_ms_mean"], "%.3f"),
                                   fmt(r["latency_measured_ms_p95"], "%.3f"),
                                   fmt(r["latency_measured_ms_p99"], "%.3f")),
                 quads,
                 fmt(r["ssd_lifetime_model_days"], "%.1f") if r["policy"] != "none" else "-"]
        if lead:
            cells = [str(r.get(lead[1]))] + cells
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
