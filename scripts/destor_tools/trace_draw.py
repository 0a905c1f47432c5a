# SPDX-License-Identifier: GPL-3.0-or-later
"""trace_draw: drawing a read trace over one job of a destor store.

Why it exists: gen-trace writes the trace and experiment draws the same one
in-process, so the Zipf sampler of the paper's equation (1) (P(i)
proportional to 1/i^(1-alpha), rank -> file by a seeded random permutation),
byte budgets, working-set shifts, the recency (LRU stack) model and the
trace file format live here once.
"""

import bisect
import fractions
import io
import math
import random
from typing import Any, BinaryIO, Callable, Sequence

from .errors import ToolError, UsageError
from .formatting import format_bytes
from .sizes import parse_budget
from .destor_runner import list_job_files, store_stat


def zipf_weights(n: int, alpha: float) -> list[float]:
    """Unnormalised weights of equation (1): w(i) = 1 / i^(1 - alpha) for
    ranks i = 1..n; alpha in [0, 1] (0: classic Zipf, 1: uniform)."""
    if not 0.0 <= alpha <= 1.0:
        raise UsageError("alpha must be in [0, 1], got %g" % alpha)
    e = 1.0 - alpha
    return [1.0 / (i ** e) for i in range(1, n + 1)]


def zipf_probabilities(n: int, alpha: float) -> list[float]:
    """P(i, alpha, F) of equation (1) for i = 1..n (index 0 is rank 1)."""
    w = zipf_weights(n, alpha)
    s = math.fsum(w)
    return [x / s for x in w]


DISTRIBUTIONS = ("zipf", "uniform", "recency")


class RecencyStack:
    """The files in order of their last request, most recent first (rank
    0), starting from `order`: a Fenwick tree over time stamps (each file
    at the stamp of its last request), so taking the file at a rank and
    making it the most recent is O(log) per request.  When the stamps run
    out the present ones are renumbered 1..n in their order."""

    def __init__(self, order: Sequence[int]) -> None:
        self.n = len(order)
        self._build(list(reversed(order)))  # oldest first

    def _build(self, oldest_first):
        self.size = 2 * self.n + 1
        self.tree = [0] * (self.size + 1)
        self.file_at = [None] * (self.size + 1)
        self.stamp = {}
        for t, f in enumerate(oldest_first, 1):
            self.file_at[t] = f
            self.stamp[f] = t
            self._add(t, 1)
        self.next = self.n + 1

    def _add(self, i, d):
        while i <= self.size:
            self.tree[i] += d
            i += i & -i

    def _kth(self, k):
        """The stamp of the k-th present stamp, 1-based, oldest first."""
        pos, step = 0, 1 << self.size.bit_length()
        while step:
            if pos + step <= self.size and self.tree[pos + step] < k:
                pos += step
                k -= self.tree[pos]
            step >>= 1
        return pos + 1

    def take(self, rank: int) -> int:
        """The file at `rank` (0: most recent), made the most recent."""
        assert 0 <= rank < self.n, rank
        t = self._kth(self.n - rank)
        f = self.file_at[t]
        if self.next > self.size:
            order = [self.file_at[i] for i in sorted(self.stamp.values()) if i != t] + [f]
            self._build(order)
            return f
        self._add(t, -1)
        self.file_at[t] = None
        self.file_at[self.next] = f
        self.stamp[f] = self.next
        self._add(self.next, 1)
        self.next += 1
        return f


class TraceSampler:
    """Draws file indices 0..n-1.  zipf: rank i (1-based) is drawn with
    probability P(i) of equation (1), and the file with rank i is perm[i-1],
    a seeded random permutation of the files.  uniform: every file equally.
    shift_every K: after every K draws a new permutation is drawn, so the
    popular set moves (the distribution over ranks stays the same).
    recency: the LRU stack model (Spirn, 1977): rank i is drawn with P(i)
    of equation (1) as for zipf, but the file of rank i is the i-th most
    recently requested one (the stack starts as the permutation, perm[0]
    most recent). With ranks of non-increasing probability LRU is the best
    online policy on it, so it is the recency-driven counterpart of zipf.

    Everything comes from one random.Random(seed): the first permutation,
    then the draws, then each new permutation at a shift, in that order."""

    def __init__(self, n: int, dist: str = "zipf", alpha: float = 0.47, seed: int = 1,
                 shift_every: int | None = None, keep_epochs: bool = False) -> None:
        if n <= 0:
            raise ToolError("no requestable files")
        if dist not in DISTRIBUTIONS:
            raise UsageError("unknown distribution %r (%s)" % (dist, ", ".join(DISTRIBUTIONS)))
        if shift_every is not None and shift_every <= 0:
            raise UsageError("--shift-every must be a positive number of requests")
        if shift_every is not None and dist == "recency":
            raise UsageError("--shift-every does not apply to the recency distribution (its ranks follow "
                             "the requests)")
        self.n = n
        self.dist = dist
        self.alpha = alpha
        self.rng = random.Random(seed)
        self.shift_every = shift_every
        self.drawn = 0
        self.shifts = 0
        self.perm = list(range(n))
        self.rng.shuffle(self.perm)
        self.epochs: list[tuple[int, list[int]]] | None = [(0, list(self.perm))] if keep_epochs else None
        self.stack = RecencyStack(self.perm) if dist == "recency" else None
        if dist != "uniform":
            self.cum = _cumulative(zipf_weights(n, alpha))

    def rank(self) -> int:
        """Draw a 0-based rank."""
        if self.dist == "uniform":
            return self.rng.randrange(self.n)
        return _draw(self.rng, self.cum)

    def next(self) -> int:
        if self.shift_every and self.drawn and self.drawn % self.shift_every == 0:
            self.rng.shuffle(self.perm)
            self.shifts += 1
            if self.epochs is not None:
                self.epochs.append((self.drawn, list(self.perm)))
        self.drawn += 1
        if self.stack is not None:
            return self.stack.take(self.rank())
        return self.perm[self.rank()]


class MultiVersionSampler:
    """Draws (version, file) pairs over several versions of a tree, each
    version a job's file listing (oldest first).  The version is drawn by
    its age: the newest has age rank 1, and age rank i is drawn with
    P(i) of equation (1) at `version_alpha` (0, the default of gen-trace,
    is classic Zipf: the k-th newest version is read 1/k as often as the
    newest).  Path popularity is shared across versions: one seeded random
    permutation of the union of the versions' paths ranks every path, and
    within the drawn version its files are drawn by equation (1) at
    `alpha` in that order, so a path has the same rank (counted among the
    paths the version holds) in every version that has it.

    Everything comes from one random.Random(seed): the permutation, then
    for each request the version (no draw when there is one) and then the
    file, so one version gives TraceSampler's zipf trace of that job."""

    def __init__(self, listings: Sequence[Sequence[tuple[bytes, int]]], alpha: float, version_alpha: float,
                 seed: int) -> None:
        if not listings or any(not files for files in listings):
            raise ToolError("every version needs a requestable file")
        self.rng = random.Random(seed)
        paths = sorted({p for files in listings for p, _ in files})
        self.rng.shuffle(paths)
        self.rank = {p: i for i, p in enumerate(paths)}
        # per version: its file indices, most popular first, and their cumulative weights
        self.order = [sorted(range(len(files)), key=lambda i: self.rank[files[i][0]]) for files in listings]
        self.cum = [_cumulative(zipf_weights(len(o), alpha)) for o in self.order]
        self.version_cum = _cumulative(zipf_weights(len(listings), version_alpha))

    def next(self) -> tuple[int, int]:
        """(version index, oldest 0, and file index in that version's listing)."""
        age = _draw(self.rng, self.version_cum) if len(self.order) > 1 else 0
        v = len(self.order) - 1 - age
        return v, self.order[v][_draw(self.rng, self.cum[v])]


def _cumulative(w: Sequence[float]) -> list[float]:
    out, acc = [], 0.0
    for x in w:
        acc += x
        out.append(acc)
    return out


def _draw(rng: random.Random, cum: Sequence[float]) -> int:
    """A 0-based index drawn with the weights whose running sums are `cum`."""
    return min(bisect.bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)


def draw_until(sample: Callable[[], Any], size_of: Callable[[Any], int], requests: int | None,
               budget: int | None) -> tuple[list[Any], int]:
    """Draw with `sample` until `requests` are drawn or the next one would
    take the bytes read past `budget` (whichever comes first): (drawn, bytes)."""
    out: list[Any] = []
    total = 0
    while requests is None or len(out) < requests:
        x = sample()
        size = size_of(x)
        if budget is not None and total + size > budget:
            break
        out.append(x)
        total += size
    return out, total


def generate_indices(files: Sequence[tuple[bytes, int]], dist: str, alpha: float, seed: int,
                     requests: int | None = None, budget: int | None = None, shift_every: int | None = None,
                     epochs: list[tuple[int, list[int]]] | None = None) -> tuple[list[int], int, int]:
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
    out, total = draw_until(s.next, lambda i: files[i][1], requests, budget)
    if epochs is not None:
        assert s.epochs is not None
        epochs.extend(e for e in s.epochs if e[0] < max(len(out), 1))
    return out, total, s.shifts


def trace_header(params: Sequence[tuple[str, object]], end: str = "\n") -> str:
    """'# key value' comment records describing how a trace was made, each
    ending with `end` (a newline, or NUL for a --null trace)."""
    lines = ["# destor read-file trace written by scripts/gen-trace: one request per %s, JOB<TAB>PATH"
             % ("line" if end == "\n" else "NUL-terminated record (read-file --trace --null)")]
    for k, v in params:
        lines.append("# %s: %s" % (k, v))
    return end.join(lines) + end


def _reads_as_range(path):
    """Whether read-file would take the end of `path` for a range: the last
    two TAB-separated fields are digits and digits or '-', with a non-empty
    path before them (src/trace/trace_line.c, split_range)."""
    parts = path.rsplit(b"\t", 2)
    return (len(parts) == 3 and parts[0] != b"" and _u64(parts[1]) is not None
            and (_u64(parts[2]) is not None or parts[2] == b"-"))


def _u64(field):
    """The number of a field of digits up to 2^64-1 (leading zeros allowed,
    as destor's parse_u64 takes them), else None; huge digit strings never
    reach int()."""
    digits = field.lstrip(b"0")
    if not field.isdigit() or len(digits) > 20 or int(digits or b"0") >= 1 << 64:
        return None
    return int(digits or b"0")


def format_time(ns: int) -> bytes:
    """A request's time field, '@SECONDS' (up to 9 digits after the point,
    trailing zeros dropped) for `ns` nanoseconds (docs/FORMAT.md)."""
    assert 0 <= ns < 1 << 64, ns
    secs, frac = divmod(ns, 10 ** 9)
    return b"@%d" % secs if frac == 0 else b"@%d.%s" % (secs, (b"%09d" % frac).rstrip(b"0"))


def split_time(rec: bytes) -> tuple[int | None, bytes]:
    """(nanoseconds or None, the rest) of a record that may start with a
    time '@SECONDS<TAB>' (src/trace/trace_line.c, parse_time)."""
    if not rec.startswith(b"@"):
        return None, rec
    field, tab, rest = rec[1:].partition(b"\t")
    secs, point, frac = field.partition(b".")
    if (not tab or _u64(secs) is None or (point and (not 1 <= len(frac) <= 9 or _u64(frac) is None))
            or _u64(secs) * 10 ** 9 + int(frac.ljust(9, b"0") or b"0") >= 1 << 64):
        raise ToolError("not a time '@SECONDS<TAB>' at the start of a trace record: %r" % rec[:80])
    return _u64(secs) * 10 ** 9 + int(frac.ljust(9, b"0") or b"0"), rest


def parse_trace_record(rec: bytes) -> tuple[int, bytes, int | None, int | None]:
    """(job, path, offset, length) of one trace record (without its
    terminator, a line's CRs already dropped), read as destor reads it:
    offset None for the whole file, length None for 'to the end'; a time
    before the job is skipped (split_time reads it).  The reader that goes
    with trace_record."""
    text, tab, path = split_time(rec)[1].partition(b"\t")
    job = _u64(text)
    if not tab or not path or job is None or job >= 1 << 32:
        raise ToolError("not a trace record (JOB<TAB>PATH[<TAB>OFFSET<TAB>LENGTH]): %r" % rec[:80])
    if not _reads_as_range(path):
        return job, path, None, None
    path, offset, length = path.rsplit(b"\t", 2)
    return job, path, _u64(offset), None if length == b"-" else _u64(length)


def trace_record(job: int, path: bytes, end: bytes = b"\n", offset: int | None = None,
                 length: int | None = None, time_ns: int | None = None) -> bytes:
    """One request record of a read-file trace (docs/FORMAT.md, "Trace
    file"), ending with `end`: JOB<TAB>PATH for the whole file, or
    JOB<TAB>PATH<TAB>OFFSET<TAB>LENGTH for bytes [OFFSET, OFFSET+LENGTH)
    (LENGTH None: to the end); with time_ns, '@SECONDS<TAB>' first.  The only writer of trace records: a whole
    file whose path itself ends in TAB digits TAB digits (or '-') is asked
    for as the range 0 to the end, the format's escape, so the path is not
    read as a shorter one and a range.  A path the record cannot hold (a NUL;
    in a line, a newline or a trailing CR) is a ToolError."""
    assert isinstance(job, int) and job >= 0, job
    assert end in (b"\n", b"\0"), end
    if not path or b"\0" in path:
        raise ToolError("a trace cannot name the path %r" % path)
    if end == b"\n" and (b"\n" in path or path.endswith(b"\r")):
        raise ToolError("a trace line cannot hold the path %r (a --null trace can)" % path)
    assert offset is not None or length is None, "a LENGTH needs an OFFSET"
    when = b"" if time_ns is None else format_time(time_ns) + b"\t"
    if offset is None:
        if not _reads_as_range(path):
            return b"%s%d\t%s%s" % (when, job, path, end)
        offset = 0
    assert offset >= 0 and (length is None or length >= 0), (offset, length)
    return b"%s%d\t%s\t%d\t%s%s" % (when, job, path, offset, b"-" if length is None else b"%d" % length, end)


def request_times(n: int, rate: str | None) -> list[int | None]:
    """The times of n requests at `rate` a second (a decimal string), evenly
    spaced from 0: request k at floor(k x 10^9 / rate) nanoseconds (exact:
    the rate is read as a fraction); all None without a rate."""
    if rate is None:
        return [None] * n
    r = fractions.Fraction(rate)
    return [int(k * 10 ** 9 / r) for k in range(n)]


def parse_rate(text: str) -> str:
    """Check a request rate: a positive decimal number of requests a second."""
    try:
        r = fractions.Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise UsageError("%r is not a number of requests a second" % text)
    if r <= 0:
        raise UsageError("the rate must be positive, got %r" % text)
    return text


def write_trace(fp: BinaryIO, job: int, files: Sequence[tuple[bytes, int]], indices: Sequence[int],
                header: str, end: bytes = b"\n", rate: str | None = None) -> None:
    """Write the trace to a binary file object, records ending with `end`,
    each with its time at `rate` requests a second (request_times)."""
    fp.write(header.encode("utf-8"))
    buf = []
    for i, when in zip(indices, request_times(len(indices), rate)):
        buf.append(trace_record(job, files[i][0], end, time_ns=when))
        if len(buf) >= 4096:
            fp.write(b"".join(buf))
            buf = []
    fp.write(b"".join(buf))


def make_trace(destor: str, job: int, dist: str = "zipf", alpha: float = 0.47, seed: int = 1,
               requests: int | None = None, budget_text: str | None = None, shift_every: int | None = None,
               config: str | None = None, params: Sequence[str] = (),
               listing: tuple[list[tuple[bytes, int]], int] | None = None, want_ranks: bool = False,
               null: bool = False, rate: str | None = None) -> tuple[bytes, dict[str, Any]]:
    """List the job's files, draw a trace.  Returns (bytes of the trace
    file, info dict).  `listing` may pass a precomputed (files, skipped).
    With want_ranks, info["ranks"] holds the rank table (see rank_table).
    With null, records end with NUL and paths holding newlines are kept.
    With rate, each request has a time (request_times)."""
    if want_ranks and dist == "recency":
        raise UsageError("--ranks has no fixed rank table under the recency distribution")
    files, skipped = listing if listing is not None else list_job_files(destor, job, config, params, null)
    if not files:
        raise ToolError("job %s has no regular file a trace can name" % job)
    job_bytes = sum(s for _, s in files)
    budget = parse_budget(budget_text, job_bytes) if budget_text is not None else None
    epochs: list[tuple[int, list[int]]] | None = [] if want_ranks else None
    indices, total, shifts = generate_indices(files, dist, alpha, seed, requests, budget, shift_every,
                                              epochs)
    info = {
        "job": job, "dist": dist, "alpha": alpha if dist != "uniform" else None, "seed": seed,
        "files": len(files), "skipped_files": skipped, "job_file_bytes": job_bytes,
        "requests_asked": requests, "bytes_budget": budget, "shift_every": shift_every,
        "requests": len(indices), "bytes": total, "shifts": shifts,
        "distinct_files": len(set(indices)),
    }
    hdr = [("job", job), ("distribution", dist)]
    if dist == "zipf":
        hdr.append(("alpha", "%g (P(i) proportional to 1/i^(1-alpha), i = 1..F; rank -> file "
                             "by a seeded random permutation)" % alpha))
    elif dist == "recency":
        hdr.append(("alpha", "%g (LRU stack model: rank i, drawn with P(i) proportional to "
                             "1/i^(1-alpha), is the i-th most recently requested file)" % alpha))
    hdr += [("seed", seed),
            ("files (F)", "%d regular files, %s" % (len(files), format_bytes(job_bytes))),
            ("skipped", "%d files whose path holds a newline or CR" % skipped),
            ("requests asked", requests if requests is not None else "-"),
            ("bytes budget", "%d (%s)" % (budget, budget_text) if budget is not None else "-"),
            ("shift every", "%d requests (new permutation; %d shifts)" % (shift_every, shifts)
             if shift_every else "-"),
            ("requests", len(indices)),
            ("bytes", "%d (%s)" % (total, format_bytes(total)))]
    if rate is not None:
        hdr.append(("rate", "%s requests a second (each request's time '@SECONDS' first)" % rate))
    end = b"\0" if null else b"\n"
    buf = io.BytesIO()
    write_trace(buf, job, files, indices, trace_header(hdr, end.decode()), end, rate)
    if want_ranks:
        assert epochs is not None
        info["ranks"] = rank_table(files, epochs, dist, end)
    return buf.getvalue(), info


def live_jobs(destor: str, config: str | None = None, params: Sequence[str] = ()) -> list[int]:
    """The store's live jobs (destor stat --json), oldest first."""
    return sorted(j["job"] for j in store_stat(destor, config, params).get("jobs") or [])


def multiversion_listings(destor: str, versions: int, config: str | None = None, params: Sequence[str] = (),
                          null: bool = False) -> list[tuple[int, list[tuple[bytes, int]], int]]:
    """(job, files, skipped) of the `versions` newest live jobs, oldest first."""
    jobs = live_jobs(destor, config, params)
    if versions <= 0 or versions > len(jobs):
        raise UsageError("--versions must be 1 to the store's %d live job(s), got %d" % (len(jobs), versions))
    listings = [(j,) + list_job_files(destor, j, config, params, null) for j in jobs[-versions:]]
    for job, files, _ in listings:
        if not files:
            raise ToolError("job %d has no regular file a trace can name" % job)
    return listings


def draw_multiversion(listings: Sequence[tuple[int, list[tuple[bytes, int]], int]], alpha: float,
                      version_alpha: float, seed: int, requests: int | None = None, budget: int | None = None,
                      ) -> tuple[list[tuple[int, int]], int]:
    """MultiVersionSampler's draws over `listings` (as multiversion_listings
    gives them) until `requests` or `budget` (draw_until): ((version index,
    file index) per request, bytes)."""
    sampler = MultiVersionSampler([files for _, files, _ in listings], alpha, version_alpha, seed)
    return draw_until(sampler.next, lambda vf: listings[vf[0]][1][vf[1]][1], requests, budget)


def make_multiversion_trace(destor: str, versions: int, alpha: float = 0.47, version_alpha: float = 0.0,
                            seed: int = 1, requests: int | None = None, budget_text: str | None = None,
                            config: str | None = None, params: Sequence[str] = (), null: bool = False,
                            rate: str | None = None) -> tuple[bytes, dict[str, Any]]:
    """A trace over the `versions` newest live jobs drawn by
    MultiVersionSampler.  Returns (bytes of the trace file, info dict).  A
    byte budget's multiple is of the versions' file bytes together."""
    listings = multiversion_listings(destor, versions, config, params, null)
    version_bytes = sum(s for _, files, _ in listings for _, s in files)
    budget = parse_budget(budget_text, version_bytes) if budget_text is not None else None
    drawn, total = draw_multiversion(listings, alpha, version_alpha, seed, requests, budget)
    per_version = [0] * len(listings)
    for v, _ in drawn:
        per_version[v] += 1
    files = sum(len(f) for _, f, _ in listings)
    paths = len({p for _, f, _ in listings for p, _ in f})
    skipped = sum(k for _, _, k in listings)
    info = {
        "jobs": [j for j, _, _ in listings], "alpha": alpha, "version_alpha": version_alpha, "seed": seed,
        "files": files, "paths": paths, "skipped_files": skipped, "version_file_bytes": version_bytes,
        "requests": len(drawn), "bytes": total, "requests_per_job": per_version,
        "distinct_files": len(set(drawn)),
    }
    hdr = [("jobs", " ".join(str(j) for j, _, _ in listings) + " (versions, oldest first)"),
           ("distribution", "multi-version"),
           ("version alpha", "%g (the version of age rank i, newest 1, is read with P(i) proportional to "
                             "1/i^(1-alpha))" % version_alpha),
           ("alpha", "%g (within a version, the path of rank i among its paths with P(i) proportional to "
                     "1/i^(1-alpha); one seeded random permutation ranks the paths of every version)" % alpha),
           ("seed", seed),
           ("files", "%d regular files (%d paths), %s" % (files, paths, format_bytes(version_bytes))),
           ("skipped", "%d files whose path holds a newline or CR" % skipped),
           ("requests asked", requests if requests is not None else "-"),
           ("bytes budget", "%d (%s)" % (budget, budget_text) if budget is not None else "-"),
           ("requests", len(drawn)),
           ("bytes", "%d (%s)" % (total, format_bytes(total)))]
    if rate is not None:
        hdr.append(("rate", "%s requests a second (each request's time '@SECONDS' first)" % rate))
    end = b"\0" if null else b"\n"
    buf = io.BytesIO()
    buf.write(trace_header(hdr, end.decode()).encode("utf-8"))
    buf.write(b"".join(trace_record(listings[v][0], listings[v][1][i][0], end, time_ns=when)
                       for (v, i), when in zip(drawn, request_times(len(drawn), rate))))
    return buf.getvalue(), info


def rank_table(files: Sequence[tuple[bytes, int]], epochs: Sequence[tuple[int, list[int]]], dist: str,
               end: bytes = b"\n") -> bytes:
    """Which file had which rank: one 'FIRST<TAB>RANK<TAB>SIZE<TAB>PATH' record
    per file and permutation, FIRST being the 0-based index of the first
    request drawn under that permutation (0, K, 2K, ... with shifts).  For
    uniform the ranks are only an order: every rank is equally likely.
    Records end with `end`, as the trace's do."""
    out = [b"# rank table written by scripts/gen-trace (%s): FIRST_REQUEST<TAB>RANK<TAB>SIZE<TAB>PATH; "
           b"rank 1 is the most popular%s" % (dist.encode(), end)]
    for first, perm in epochs:
        for r, i in enumerate(perm):
            out.append(b"%d\t%d\t%d\t%s%s" % (first, r + 1, files[i][1], files[i][0], end))
    return b"".join(out)


# First bytes of a compiled trace (destor trace compile; docs/FORMAT.md)
COMPILED_MAGIC = b"DPLCCTR1"


def is_compiled(data: bytes) -> bool:
    return data[:len(COMPILED_MAGIC)] == COMPILED_MAGIC


def trace_terminator(data: bytes) -> bytes:
    """A trace's record terminator: NUL when it holds any NUL byte (written
    by gen-trace --null, read by read-file --trace --null), else newline."""
    return b"\0" if b"\0" in data else b"\n"


def trace_lines(path: str) -> int:
    """Records in a trace file: the progress units of one replay run."""
    with open(path, "rb") as f:
        data = f.read()
    return max(data.count(trace_terminator(data)), 1)
