# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of scripts/gen-trace, scripts/replay and scripts/experiment (issue 4).

Why: the PLC-Cache reproduction is only as good as its workload and its
bookkeeping.  These tests check that the Zipf generator follows the paper's
equation (1) (chi-square on a large sample, and a check that the common
mistake of using 1/i^alpha would be caught), that seeds reproduce traces
byte for byte, that uniform is uniform, that byte budgets and working-set
shifts do what they say, that replay's rows are exactly the counters destor
printed for the same run, and that a small sweep runs end to end on a tiny
dataset and leaves its CSV, plots and report.

Environment: TOP_SRCDIR (source tree) and DESTOR_BIN (destor binary), as
`make check` exports them; otherwise derived from this file's location and
./build/destor.  Tests that need destor are skipped when it is missing.
Run: /usr/bin/python3 -m unittest tests/scripts/test_trace_tools.py
"""

import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

sys.dont_write_bytecode = True

TOP = os.environ.get("TOP_SRCDIR") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DESTOR = os.environ.get("DESTOR_BIN") or os.path.join(TOP, "build", "destor")
SCRIPTS = os.path.join(TOP, "scripts")
PYTHON = sys.executable or "/usr/bin/python3"

sys.path.insert(0, SCRIPTS)
from destor_tools.errors import UsageError  # noqa: E402
from destor_tools import progress_bar  # noqa: E402
from destor_tools import destor_runner  # noqa: E402
from destor_tools import trace_draw  # noqa: E402
from destor_tools import policy_replay  # noqa: E402


def have_destor():
    return os.path.isfile(DESTOR) and os.access(DESTOR, os.X_OK)


def run(args, check=True, env=None, **kw):
    p = subprocess.run([PYTHON] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **kw)
    if check and p.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(args), p.returncode,
                                                     p.stderr.decode("utf-8", "replace")))
    return p


def wilson_hilferty_z(chi2, df):
    """Normal deviate of a chi-square statistic (Wilson-Hilferty), so a
    threshold like z < 4 (p < 3e-5) needs no tables."""
    return ((chi2 / df) ** (1.0 / 3) - (1 - 2.0 / (9 * df))) / math.sqrt(2.0 / (9 * df))


def chi_square(counts, probs):
    n = sum(counts)
    return sum((c - n * p) ** 2 / (n * p) for c, p in zip(counts, probs))


FAKE_DESTOR = r'''#!/usr/bin/python3
# A stand-in for destor's "list JOB --null": prints $FAKE_LISTING as is, or
# with $FAKE_JOBS the file $FAKE_JOBS/JOB (no file: no such job); and for
# "stat --json": $FAKE_JOBS/stat.json.
import os, sys
args = [a for a in sys.argv[1:]]
jobs = os.environ.get("FAKE_JOBS")
if "list" in args:
    path = os.path.join(jobs, args[args.index("list") + 1]) if jobs else os.environ["FAKE_LISTING"]
    if not os.path.isfile(path):
        sys.stderr.write("destor: no job %s\n" % args[args.index("list") + 1])
        sys.exit(1)
    with open(path, "rb") as f:
        sys.stdout.buffer.write(f.read())
    sys.exit(0)
if "stat" in args and jobs:
    with open(os.path.join(jobs, "stat.json"), "rb") as f:
        sys.stdout.buffer.write(f.read())
    sys.exit(0)
sys.stderr.write("fake destor: unsupported %r\n" % args)
sys.exit(2)
'''


def planted_tmp_link(test, out, make):
    """make()'s result, run with a symlink to a file beside it planted at
    OUT.tmp: the file keeps its bytes (gen-trace and import-trace wrote the
    trace into it, and OUT became the link), OUT is a new regular file with
    the mode open() gives, and no temporary file is left."""
    victim = out + ".victim"
    with open(victim, "wb") as f:
        f.write(b"precious\n")
    os.symlink(victim, out + ".tmp")
    try:
        made = make()
        with open(victim, "rb") as f:
            test.assertEqual(f.read(), b"precious\n")
        test.assertFalse(os.path.islink(out))
        mask = os.umask(0)
        os.umask(mask)
        test.assertEqual(oct(os.stat(out).st_mode & 0o777), oct(0o666 & ~mask))
    finally:
        os.unlink(out + ".tmp")
    test.assertEqual([n for n in os.listdir(os.path.dirname(out)) if n.endswith(".tmp")], [])
    return made


def fake_destor(prefix):
    """(a new temporary directory, FAKE_DESTOR installed in it as `destor`)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    fake = os.path.join(tmp, "destor")
    with open(fake, "w") as f:
        f.write(FAKE_DESTOR)
    os.chmod(fake, 0o755)
    return tmp, fake


class GeneratorTests(unittest.TestCase):
    """gen-trace against a fake destor whose listing we control."""

    F = 100

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.fake = fake_destor("trace-tools-gen-")
        recs = [b"d\t0\tdir"]
        cls.sizes = {}
        for i in range(cls.F):
            path = b"dir/file%03d.bin" % i
            size = 1000 + 37 * i
            cls.sizes[path] = size
            recs.append(b"f\t%d\t%s" % (size, path))
        recs += [b"l\t0\tdir/link", b"f\t5\tbad\nname", b"f\t6\tbad\rname", b"f\t7\ttab\tin name"]
        cls.sizes[b"tab\tin name"] = 7
        cls.listing = os.path.join(cls.tmp, "listing")
        with open(cls.listing, "wb") as f:
            f.write(b"\0".join(recs) + b"\0")
        cls.env = dict(os.environ, FAKE_LISTING=cls.listing)
        cls.nfiles = cls.F + 1  # plus the name holding a TAB

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gen(self, *args, name="t.trace", ranks=False):
        out = os.path.join(self.tmp, name)
        cmd = [os.path.join(SCRIPTS, "gen-trace"), "--destor", self.fake, "--out", out] + list(args)
        if ranks:
            cmd += ["--ranks", out + ".ranks"]
        p = run(cmd, env=self.env)
        with open(out, "rb") as f:
            data = f.read()
        return data, p.stderr.decode("utf-8", "replace")

    def requests(self, data):
        out = []
        for line in data.split(b"\n"):
            if not line or line.startswith(b"#"):
                continue
            job, tab, path = line.partition(b"\t")
            self.assertEqual(tab, b"\t")
            out.append((int(job), path))
        return out

    def ranks(self, name="t.trace"):
        """{first request: {path: rank}}"""
        out = {}
        with open(os.path.join(self.tmp, name + ".ranks"), "rb") as f:
            for line in f:
                if line.startswith(b"#"):
                    continue
                first, rank, size, path = line.rstrip(b"\n").split(b"\t", 3)
                out.setdefault(int(first), {})[path] = int(rank)
        return out

    def test_equation_1(self):
        """P(i) = (1/i^(1-alpha)) / sum_j 1/j^(1-alpha); alpha 1 is uniform."""
        for n, alpha in ((10, 0.47), (1000, 0.2), (7, 0.0)):
            p = trace_draw.zipf_probabilities(n, alpha)
            norm = sum(1 / j ** (1 - alpha) for j in range(1, n + 1))
            for i in (1, 2, n):
                self.assertAlmostEqual(p[i - 1], (1 / i ** (1 - alpha)) / norm, places=12)
            self.assertAlmostEqual(sum(p), 1.0, places=12)
        self.assertTrue(all(abs(x - 0.2) < 1e-12 for x in trace_draw.zipf_probabilities(5, 1.0)))
        with self.assertRaises(UsageError):
            trace_draw.zipf_weights(5, 1.5)

    def test_zipf_frequencies_chi_square(self):
        """200,000 draws over 101 files: the counts by rank fit equation (1)
        (chi-square), and do not fit the 1/i^alpha misreading."""
        n = 200000
        data, err = self.gen("--requests", str(n), "--seed", "7", "--alpha", "0.47", ranks=True)
        reqs = self.requests(data)
        self.assertEqual(len(reqs), n)
        self.assertTrue(all(j == 0 for j, _ in reqs))
        rank = self.ranks()[0]
        self.assertEqual(len(rank), self.nfiles)
        counts = [0] * self.nfiles
        for _, p in reqs:
            counts[rank[p] - 1] += 1
        probs = trace_draw.zipf_probabilities(self.nfiles, 0.47)
        z = wilson_hilferty_z(chi_square(counts, probs), self.nfiles - 1)
        self.assertLess(z, 4.0, "counts do not fit equation (1): z = %.2f" % z)
        wrong = [1 / i ** 0.47 for i in range(1, self.nfiles + 1)]
        wrong = [w / sum(wrong) for w in wrong]
        self.assertGreater(wilson_hilferty_z(chi_square(counts, wrong), self.nfiles - 1), 20)
        # ranked-frequency check, independent of the rank table: the sorted
        # counts of the head follow the sorted probabilities within 3%
        top = sorted(counts, reverse=True)[:5]
        for c, p in zip(top, probs[:5]):
            self.assertLess(abs(c / n - p) / p, 0.03)
        # the permutation is not the identity (rank 1 is not simply the first path)
        order = sorted(rank, key=rank.get)
        self.assertNotEqual(order, sorted(order))

    def test_alpha_extremes(self):
        """alpha 0 is the classic 1/i Zipf; alpha 1 is uniform."""
        n = 60000
        for alpha in ("0", "1"):
            data, _ = self.gen("--requests", str(n), "--seed", "3", "--alpha", alpha, ranks=True,
                               name="a%s.trace" % alpha)
            rank = self.ranks("a%s.trace" % alpha)[0]
            counts = [0] * self.nfiles
            for _, p in self.requests(data):
                counts[rank[p] - 1] += 1
            probs = trace_draw.zipf_probabilities(self.nfiles, float(alpha))
            self.assertLess(wilson_hilferty_z(chi_square(counts, probs), self.nfiles - 1), 4.0)

    def test_seed_reproduces_trace(self):
        a, _ = self.gen("--requests", "5000", "--seed", "11", name="s1.trace")
        b, _ = self.gen("--requests", "5000", "--seed", "11", name="s2.trace")
        c, _ = self.gen("--requests", "5000", "--seed", "12", name="s3.trace")
        self.assertEqual(a, b)
        self.assertNotEqual(self.requests(a), self.requests(c))
        # the library gives the same draws as the command line
        with open(self.listing, "rb") as f:
            files, _ = destor_runner.parse_listing(f.read())
        idx, _, _ = trace_draw.generate_indices(files, "zipf", 0.47, 11, requests=5000)
        self.assertEqual([files[i][0] for i in idx], [p for _, p in self.requests(a)])

    def test_uniform(self):
        n = 100000
        data, _ = self.gen("--dist", "uniform", "--requests", str(n), "--seed", "5", name="u.trace")
        counts = {}
        for _, p in self.requests(data):
            counts[p] = counts.get(p, 0) + 1
        self.assertEqual(len(counts), self.nfiles)
        c = list(counts.values())
        z = wilson_hilferty_z(chi_square(c, [1.0 / self.nfiles] * self.nfiles), self.nfiles - 1)
        self.assertLess(z, 4.0)
        self.assertIn(b"# distribution: uniform", data)

    def test_recency_stack_matches_a_list(self):
        # the Fenwick stack against a plain move-to-front list, through
        # several renumberings of its stamps
        import random
        rng = random.Random(3)
        order = list(range(37))
        stack = trace_draw.RecencyStack(order)
        plain = list(order)
        for _ in range(500):
            r = rng.randrange(len(plain))
            f = plain.pop(r)
            plain.insert(0, f)
            self.assertEqual(stack.take(r), f)

    def test_recency_rereads_recent_files(self):
        data, _ = self.gen("--dist", "recency", "--requests", "3000", "--seed", "5", name="r.trace")
        self.assertIn(b"# distribution: recency", data)
        seen, depths = [], []
        for _, p in self.requests(data):
            if p in seen:
                depths.append(seen.index(p))
                seen.remove(p)
            seen.insert(0, p)
        # equation (1) over stack depths: depth 0 (the file just read) is the
        # likeliest, and it is drawn about P(1) of the time
        p1 = trace_draw.zipf_probabilities(self.nfiles, 0.47)[0]
        self.assertAlmostEqual(depths.count(0) / 3000.0, p1, delta=4 * math.sqrt(p1 / 3000.0))
        self.assertEqual(max(set(depths), key=depths.count), 0)
        with self.assertRaises(UsageError):
            trace_draw.TraceSampler(10, "recency", shift_every=5)

    def test_skips_and_header(self):
        data, err = self.gen("--requests", "3000", "--seed", "1", "--job", "3", name="h.trace")
        self.assertIn("skipped 2 file(s)", err)
        reqs = self.requests(data)
        self.assertTrue(all(j == 3 for j, _ in reqs))
        paths = set(p for _, p in reqs)
        self.assertTrue(paths <= set(self.sizes), "only regular files, no newline/CR paths")
        self.assertNotIn(b"dir", paths)
        self.assertNotIn(b"dir/link", paths)
        head = [l for l in data.split(b"\n") if l.startswith(b"#")]
        text = b"\n".join(head).decode()
        for want in ("# job: 3", "# alpha: 0.47", "# seed: 1", "# files (F): 101 regular files",
                     "# requests: 3000", "# skipped: 2 files"):
            self.assertIn(want, text)

    def test_null_keeps_every_name(self):
        data, err = self.gen("--requests", "5000", "--seed", "1", "--null", name="n.trace",
                             ranks=True)
        self.assertNotIn("skipped", err)
        recs = [r for r in data.split(b"\0")[:-1] if not r.startswith(b"#")]
        self.assertTrue(data.endswith(b"\0"))
        self.assertEqual(len(recs), 5000)
        paths = set(r.partition(b"\t")[2] for r in recs)
        self.assertIn(b"bad\nname", paths)
        self.assertIn(b"bad\rname", paths)
        self.assertIn(b"# skipped: 0 files", data)
        with open(os.path.join(self.tmp, "n.trace.ranks"), "rb") as f:
            ranks = [r for r in f.read().split(b"\0")[:-1] if not r.startswith(b"#")]
        self.assertEqual(len(ranks), self.nfiles + 2)
        self.assertEqual(trace_draw.trace_lines(os.path.join(self.tmp, "n.trace")),
                         data.count(b"\0"))

    def test_bytes_budget(self):
        budget = 2000000
        data, _ = self.gen("--bytes", str(budget), "--seed", "9", name="b.trace")
        total = sum(self.sizes[p] for _, p in self.requests(data))
        self.assertLessEqual(total, budget)
        self.assertGreater(total, budget - max(self.sizes.values()))
        self.assertIn(b"# bytes: %d " % total, data)
        # a multiple of the job's file bytes
        job = sum(self.sizes.values())
        data, _ = self.gen("--bytes", "2.6x", "--seed", "9", name="b2.trace")
        total = sum(self.sizes[p] for _, p in self.requests(data))
        self.assertLessEqual(total, int(2.6 * job))
        self.assertGreater(total, int(2.6 * job) - max(self.sizes.values()))
        # with --requests too, whichever comes first
        data, _ = self.gen("--bytes", "1G", "--requests", "50", name="b3.trace")
        self.assertEqual(len(self.requests(data)), 50)
        data, _ = self.gen("--bytes", "10000", "--requests", "5000", name="b4.trace")
        self.assertLess(len(self.requests(data)), 20)

    def test_working_set_shift(self):
        """Every K requests a new permutation: each window fits equation (1)
        under its own rank table, and the most popular file moves."""
        k, windows = 40000, 3
        data, _ = self.gen("--requests", str(k * windows), "--seed", "4", "--shift-every", str(k),
                           ranks=True, name="w.trace")
        reqs = self.requests(data)
        tables = self.ranks("w.trace")
        self.assertEqual(sorted(tables), [0, k, 2 * k])
        probs = trace_draw.zipf_probabilities(self.nfiles, 0.47)
        tops = []
        for w in range(windows):
            rank = tables[w * k]
            counts = [0] * self.nfiles
            for _, p in reqs[w * k:(w + 1) * k]:
                counts[rank[p] - 1] += 1
            self.assertLess(wilson_hilferty_z(chi_square(counts, probs), self.nfiles - 1), 4.0)
            tops.append(max(set(p for _, p in reqs[w * k:(w + 1) * k]),
                            key=lambda p: sum(1 for _, q in reqs[w * k:(w + 1) * k] if q == p)))
            self.assertEqual(tops[-1], min(rank, key=rank.get))
        self.assertEqual(len(set(tops)), windows, "the popular file should move at every shift")
        self.assertIn(b"2 shifts", data)
        # without a shift the first window is the same draw sequence
        plain, _ = self.gen("--requests", str(k), "--seed", "4", name="w0.trace")
        self.assertEqual(self.requests(plain), reqs[:k])

    def test_rate_gives_times(self):
        """--rate R: request k at k/R seconds, to the nanosecond below,
        '@SECONDS' first; the same draws as without it; the trace record
        reader reads the times back."""
        plain, _ = self.gen("--requests", "7", "--seed", "3", name="r0.trace")
        timed, _ = self.gen("--requests", "7", "--seed", "3", "--rate", "3", name="r1.trace")
        recs = [l for l in timed.split(b"\n") if l and not l.startswith(b"#")]
        self.assertEqual([r.split(b"\t")[0] for r in recs],
                         [b"@0", b"@0.333333333", b"@0.666666666", b"@1", b"@1.333333333", b"@1.666666666", b"@2"])
        self.assertEqual([r.split(b"\t", 1)[1] for r in recs],
                         [l for l in plain.split(b"\n") if l and not l.startswith(b"#")])
        self.assertIn(b"# rate: 3 requests a second", timed)
        self.assertEqual(trace_draw.split_time(recs[1]), (333333333, recs[1].split(b"\t", 1)[1]))
        self.assertEqual(trace_draw.parse_trace_record(recs[1])[0], self.requests(plain)[1][0])
        slow, _ = self.gen("--requests", "3", "--rate", "0.25", name="r2.trace")
        self.assertEqual([l.split(b"\t")[0] for l in slow.split(b"\n") if l.startswith(b"@")], [b"@0", b"@4", b"@8"])
        for bad in ("0", "-1", "fast"):
            p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", self.fake, "--requests", "3", "--rate", bad],
                    check=False, env=self.env)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--rate", p.stderr.decode())

    def test_planted_tmp_link(self):
        """gen-trace does not write through a symlink planted at OUT.tmp."""
        out = os.path.join(self.tmp, "planted.trace")
        data = planted_tmp_link(self, out, lambda: self.gen("--requests", "10", "--seed", "3",
                                                             name="planted.trace")[0])
        self.assertEqual(len(self.requests(data)), 10)

    def test_usage_errors(self):
        p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", self.fake, "--alpha", "0.5"],
                check=False, env=self.env)
        self.assertEqual(p.returncode, 2)
        p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", self.fake, "--alpha", "1.2",
                 "--requests", "5"], check=False, env=self.env)
        self.assertEqual(p.returncode, 2)
        p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", os.path.join(self.tmp, "nope"),
                 "--requests", "5"], check=False, env=self.env)
        self.assertEqual(p.returncode, 1)
        self.assertIn("not found", p.stderr.decode())

    def test_progress_bar(self):
        bar = progress_bar.Progress(10, "x", enabled=True, stream=_Sink())
        bar.update(5)
        bar.close()
        self.assertIn("ETA", bar.stream.text)
        self.assertIn("50.0%", bar.stream.text)
        quiet = progress_bar.Progress(10, "x", stream=_Sink())  # not a terminal: nothing drawn
        quiet.update(5)
        quiet.close()
        self.assertEqual(quiet.stream.text, "")


class _Sink:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s

    def flush(self):
        pass

    def isatty(self):
        return False


class MultiVersionTests(unittest.TestCase):
    """gen-trace --versions (issue 39) against a fake destor holding six
    live versions of a tree (jobs 0-2 and 4-6; job 3 is deleted, so stat
    does not list it): paths come and go between versions."""

    LIVE = [0, 1, 2, 4, 5, 6]
    POOL = 80

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.fake = fake_destor("trace-tools-mv-")
        cls.jobs = os.path.join(cls.tmp, "jobs")
        os.mkdir(cls.jobs)
        cls.paths = {}
        for v, job in enumerate(cls.LIVE):
            # a pool path is missing from every 7th version it would be in; each version adds its own
            paths = [b"src/f%02d.c" % i for i in range(cls.POOL) if (i + v) % 7 != 0] + [b"new/v%d.c" % job]
            cls.paths[job] = set(paths)
            with open(os.path.join(cls.jobs, str(job)), "wb") as f:
                f.write(b"".join(b"f\t%d\t%s\0" % (100 + len(p) * job, p) for p in paths))
        with open(os.path.join(cls.jobs, "stat.json"), "w") as f:
            json.dump({"jobs": [{"job": j} for j in cls.LIVE]}, f)
        cls.env = dict(os.environ, FAKE_JOBS=cls.jobs)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gen(self, *args, name="mv.trace", check=True):
        out = os.path.join(self.tmp, name)
        p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", self.fake, "--out", out] + list(args),
                check=check, env=self.env)
        if not check:
            return p
        with open(out, "rb") as f:
            return [(int(j), path) for j, path in
                    (line.split(b"\t", 1) for line in f.read().split(b"\n") if line and not line.startswith(b"#"))]

    def test_requests_name_live_jobs_and_their_paths(self):
        reqs = self.gen("--versions", "4", "--requests", "3000", "--seed", "2")
        self.assertEqual(len(reqs), 3000)
        self.assertEqual({j for j, _ in reqs}, set(self.LIVE[-4:]))
        for job, path in reqs:
            self.assertIn(path, self.paths[job])

    def test_newer_versions_read_more(self):
        """60,000 requests over six versions: the counts per version fit classic Zipf over version ages
        (chi-square), so each newer version is read more; a larger --version-alpha flattens them."""
        n = 60000
        reqs = self.gen("--versions", "6", "--requests", str(n), "--seed", "5", "--alpha", "0")
        counts = [sum(1 for j, _ in reqs if j == job) for job in self.LIVE]
        self.assertEqual(counts, sorted(counts), counts)
        self.assertEqual(len(set(counts)), len(counts), counts)
        probs = list(reversed(trace_draw.zipf_probabilities(len(self.LIVE), 0.0)))  # oldest first
        self.assertLess(wilson_hilferty_z(chi_square(counts, probs), len(counts) - 1), 4.0, counts)
        flat = self.gen("--versions", "6", "--requests", str(n), "--seed", "5", "--version-alpha", "1",
                        name="flat.trace")
        fcounts = [sum(1 for j, _ in flat if j == job) for job in self.LIVE]
        self.assertLess(wilson_hilferty_z(chi_square(fcounts, [1 / 6] * 6), 5), 4.0, fcounts)

    def test_popular_paths_shared_across_versions(self):
        """Within every version the most requested path is the same one (the most popular path of all
        that it holds), and the paths two versions share are read in the same order of popularity."""
        reqs = self.gen("--versions", "6", "--requests", "60000", "--seed", "9", "--alpha", "0")
        per = {job: {} for job in self.LIVE}
        for job, path in reqs:
            per[job][path] = per[job].get(path, 0) + 1
        overall = {}
        for job, path in reqs:
            overall[path] = overall.get(path, 0) + 1
        order = sorted(overall, key=overall.get, reverse=True)
        for job in self.LIVE:
            held = [p for p in order if p in self.paths[job]]
            self.assertEqual(max(per[job], key=per[job].get), held[0], job)
        # Spearman correlation of the counts of the common paths, for every pair of versions
        for a in self.LIVE:
            for b in self.LIVE:
                if a < b:
                    common = sorted(self.paths[a] & self.paths[b])
                    ra = self._ranks([per[a].get(p, 0) for p in common])
                    rb = self._ranks([per[b].get(p, 0) for p in common])
                    m = len(common)
                    rho = 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (m * (m * m - 1))
                    self.assertGreater(rho, 0.6, (a, b, rho))

    @staticmethod
    def _ranks(values):
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0] * len(values)
        for r, i in enumerate(order):
            out[i] = r
        return out

    def test_seed_reproduces_trace(self):
        a = self.gen("--versions", "6", "--requests", "4000", "--seed", "11", name="s1.trace")
        b = self.gen("--versions", "6", "--requests", "4000", "--seed", "11", name="s2.trace")
        c = self.gen("--versions", "6", "--requests", "4000", "--seed", "12", name="s3.trace")
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        with open(os.path.join(self.tmp, "s1.trace"), "rb") as f, open(os.path.join(self.tmp, "s2.trace"), "rb") as g:
            self.assertEqual(f.read(), g.read())

    def test_one_version_is_the_newest_jobs_zipf_trace(self):
        """--versions 1 draws exactly the requests of gen-trace --job NEWEST (the same seed, the same
        permutation of the same paths): one sampler family, not two."""
        one = self.gen("--versions", "1", "--requests", "2000", "--seed", "3", name="one.trace")
        job = self.gen("--job", "6", "--requests", "2000", "--seed", "3", name="job.trace")
        self.assertEqual(one, job)

    def test_granularity_workloads_draw_it(self):
        """experiment granularity --workload multi-version reads gen-trace's draw over every live job (newest-job:
        over job 6 alone), each request a path of its job and a range inside the file."""
        from destor_tools import granularity_experiment as gx
        sizes = {}
        for job in self.LIVE:
            with open(os.path.join(self.jobs, str(job)), "rb") as f:
                files, _ = destor_runner.parse_listing(f.read())
            sizes.update(((job, p), n) for p, n in files)
        for workload, jobs in (("multi-version", set(self.LIVE)), ("newest-job", {6})):
            a = gx.parse_args(["--destor", self.fake, "--workload", workload, "--requests", "3000", "--seed", "4"])
            out = os.path.join(self.tmp, workload)
            with unittest.mock.patch.dict(os.environ, {"FAKE_JOBS": self.jobs}):  # the fake destor's store
                gx.draw_trace(a, os.path.join(self.tmp, "unused.config"), out)
            with open(out, "rb") as f:
                recs = [trace_draw.parse_trace_record(line) for line in f.read().split(b"\n") if line]
            self.assertEqual(len(recs), 3000)
            self.assertEqual({j for j, _, _, _ in recs}, jobs)
            for job, path, offset, length in recs:
                size = sizes[(job, path)]
                if offset is not None:
                    self.assertLess(offset, size)
                    self.assertLessEqual(offset + length, size)
            ranges = sum(1 for _, _, o, _ in recs if o is not None)  # RANGE_SHARE (0.3) of them
            self.assertLess(abs(ranges / len(recs) - gx.RANGE_SHARE), 0.05, ranges)

    def test_usage_errors(self):
        for args in (["--versions", "7"], ["--versions", "0"], ["--versions", "2", "--job", "1"],
                     ["--versions", "2", "--dist", "uniform"], ["--versions", "2", "--shift-every", "5"],
                     ["--version-alpha", "0.5"], ["--versions", "2", "--version-alpha", "1.5"]):
            p = self.gen(*(args + ["--requests", "10"]), check=False)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("gen-trace: ", p.stderr.decode(), args)


@unittest.skipUnless(have_destor(), "destor binary %s not built" % DESTOR)
class StoreTests(unittest.TestCase):
    """replay and experiment on a real store built from the tiny dataset."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trace-tools-store-")
        cls.data = os.path.join(cls.tmp, "data")
        run([os.path.join(SCRIPTS, "gen-dataset"), "--out", cls.data, "--preset", "tiny", "--odd-names"])
        cls.config = os.path.join(cls.tmp, "destor.config")
        with open(cls.config, "w") as f:
            f.write('working-directory "%s"\ncontainer-size 128K\n' % os.path.join(cls.tmp, "working"))
        for v in sorted(os.listdir(cls.data)):
            subprocess.run([DESTOR, "-c", cls.config, "backup", os.path.join(cls.data, v)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        cls.trace = os.path.join(cls.tmp, "z.trace")
        p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", DESTOR, "--config", cls.config,
                 "--requests", "600", "--seed", "2", "--out", cls.trace])
        cls.gen_err = p.stderr.decode()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def destor_json(self, *params, simulate=True):
        cmd = [DESTOR, "-c", self.config]
        for p in params:
            cmd += ["-p", p]
        cmd += ["read-file", "--trace", self.trace, "--json"] + (["--simulate"] if simulate else [])
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return json.loads(p.stdout)

    def test_trace_is_accepted_by_destor(self):
        self.assertIn("skipped 1 file(s)", self.gen_err)  # the newline name of --odd-names
        s = self.destor_json()
        self.assertEqual(s["requests"], 600)
        self.assertIsNone(s["cache"])

    def replay(self, prefix, *extra):
        out = os.path.join(self.tmp, prefix)
        run([os.path.join(SCRIPTS, "replay"), self.trace, "--destor", DESTOR, "--config", self.config,
             "--out-prefix", out, "-q"] + list(extra))
        with open(out + ".json") as f:
            doc = json.load(f)
        with open(out + ".csv", newline="") as f:
            rows = list(csv.DictReader(f))
        with open(out + ".md") as f:
            md = f.read()
        return doc, rows, md

    COUNTERS = ["hits", "misses", "hit_ratio", "admissions", "evictions", "ssd_containers_written",
                "ssd_bytes_written", "ssd_bytes_read", "store_bytes_read", "capacity_containers",
                "refused_popularity_filter", "refused_delayed_eviction", "refused_inout_comparison",
                "qa_share", "qb_share", "qc_share", "qd_share", "qa_bytes", "qb_bytes", "qc_bytes",
                "qd_bytes"]

    def check_row(self, row, summary):
        self.assertEqual(row["requests"], summary["requests"])
        self.assertEqual(row["bytes_read"], summary["bytes"])
        self.assertEqual(row["container_accesses"], summary["container_accesses"])
        self.assertEqual(summary["kind"], "destor.trace-summary")
        lat = summary["latency_ms"]
        self.assertAlmostEqual(row["latency_measured_ms_mean"], lat["mean"], places=9)
        self.assertAlmostEqual(row["latency_measured_ms_p95"], lat["p95"], places=9)
        self.assertAlmostEqual(row["latency_measured_ms_p99"], lat["p99"], places=9)
        c = summary["cache"]
        if c is None:
            self.assertEqual(row["policy"], "none")
            self.assertEqual(row["ssd_bytes_written"], 0)
            return
        self.assertEqual(row["policy"], c["policy"])
        for k in self.COUNTERS:
            self.assertEqual(row[k], c[k], k)
        self.assertAlmostEqual(row["model_elapsed_s"], c["model_elapsed_ms"] / 1e3, places=9)
        self.assertEqual(row["latency_model_ms_mean"], c["request_latency_model_ms_mean"])
        self.assertEqual(row["ssd_lifetime_model_days"], c["ssd_lifetime_model_days"])

    def test_replay_rows_match_destor(self):
        pols = ["none", "fifo", "lru", "lfu", "plc"]
        doc, csv_rows, md = self.replay("sim", "--policies", ",".join(pols), "--cache-size", "25%")
        self.assertEqual([r["policy"] for r in doc["rows"]], pols)
        self.assertEqual(len(doc["destor_summaries"]), len(pols))
        for row, summary, crow in zip(doc["rows"], doc["destor_summaries"], csv_rows):
            # the row is destor's summary of that very run ...
            self.check_row(row, summary)
            self.assertEqual(row["mode"], "simulate")
            # ... the CSV says the same ...
            self.assertEqual(crow["policy"], row["policy"])
            self.assertEqual(int(crow["ssd_bytes_written"]), row["ssd_bytes_written"])
            self.assertEqual(int(crow["hits"]), row["hits"])
            if row["policy"] != "none":
                self.assertAlmostEqual(float(crow["hit_ratio"]), row["hit_ratio"], places=9)
            # ... and an independent destor run with the same settings
            # prints the same counters (simulation is deterministic)
            again = self.destor_json("ssd-cache-policy %s" % row["policy"], "ssd-cache-size 25%")
            self.assertEqual(again["container_accesses"], row["container_accesses"])
            if again["cache"] is not None:
                for k in self.COUNTERS:
                    self.assertEqual(again["cache"][k], row[k], k)
        none = doc["rows"][0]
        hdd = destor_runner.hdd_service_s(131072, {})
        self.assertAlmostEqual(none["latency_model_ms_mean"],
                               1e3 * none["container_accesses"] * hdd / none["requests"], places=9)
        for label in ("HDD only", "FIFO", "LRU", "LFU", "PLC-Cache"):
            self.assertIn("| %s |" % label, md)
        # a simulation's wall time measures the simulator: not shown, for
        # HDD only too (destor reads no container for it in simulation)
        lines = {l.split(" | ")[0]: l for l in md.splitlines()}
        self.assertIn("- (simulated)", lines["| FIFO"])
        self.assertIn("- (simulated)", lines["| HDD only"])

    def test_replay_all_policies_from_destor(self):
        """--policies all = every online policy `destor policies --json`
        lists; a name destor does not know is a usage error."""
        listed = json.loads(subprocess.run([DESTOR, "policies", "--json"], stdout=subprocess.PIPE,
                                           check=True).stdout)["policies"]
        doc, _, _ = self.replay("all", "--policies", "all")
        self.assertEqual([r["policy"] for r in doc["rows"]], [p["name"] for p in listed if not p["offline"]])
        p = run([os.path.join(SCRIPTS, "replay"), self.trace, "--destor", DESTOR, "--config", self.config,
                 "--out-prefix", os.path.join(self.tmp, "unknown"), "--policies", "lru,nosuch"], check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown policy 'nosuch'", p.stderr.decode())

    def test_replay_offline_bounds(self):
        """The offline policies replay in simulation beside an online one
        (each row destor's own summary): belady hits at least as often as
        both others, offline-static writes at most the capacity; real mode
        is refused with destor's reason."""
        pols = ["belady", "offline-static", "lru"]
        doc, _, md = self.replay("offline", "--policies", ",".join(pols), "--cache-size", "10%")
        self.assertEqual([r["policy"] for r in doc["rows"]], pols)
        for row, summary in zip(doc["rows"], doc["destor_summaries"]):
            self.check_row(row, summary)
        belady, static, lru = doc["rows"]
        self.assertGreaterEqual(belady["hits"], lru["hits"])
        self.assertGreaterEqual(belady["hits"], static["hits"])
        self.assertLessEqual(static["ssd_containers_written"], static["capacity_containers"])
        self.assertEqual(doc["destor_summaries"][0]["cache"]["policy_counters"]["off_sequence_accesses"], 0)
        self.assertIn("| Belady (offline) |", md)
        p = run([os.path.join(SCRIPTS, "replay"), self.trace, "--destor", DESTOR, "--config", self.config,
                 "--out-prefix", os.path.join(self.tmp, "offline-real"), "--policies", "belady", "--real",
                 "--cache-dir", os.path.join(self.tmp, "offline-cache")], check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("belady is offline", p.stderr.decode())

    def test_replay_extra_params(self):
        doc, _, _ = self.replay("f14", "--policies", "plc", "-p", "plc-filter-threshold 14")
        d4, _, _ = self.replay("f4", "--policies", "plc")
        self.assertGreaterEqual(doc["rows"][0]["refused_popularity_filter"],
                                d4["rows"][0]["refused_popularity_filter"])
        self.assertEqual(doc["rows"][0]["params"], "plc-filter-threshold 14")
        again = self.destor_json("ssd-cache-policy plc", "ssd-cache-size 20%", "plc-filter-threshold 14")
        self.assertEqual(again["cache"]["ssd_bytes_written"], doc["rows"][0]["ssd_bytes_written"])

    def test_replay_real_mode(self):
        """Real mode: same counters as simulation, and the cache directory is
        emptied before each run (a second replay gives the same numbers)."""
        cache = os.path.join(self.tmp, "cache")
        sim, _, _ = self.replay("r-sim", "--policies", "lru,plc")
        r1, _, _ = self.replay("r1", "--policies", "lru,plc", "--real", "--cache-dir", cache, "--keep-cache")
        r2, _, md = self.replay("r2", "--policies", "lru,plc", "--real", "--cache-dir", cache)
        self.assertNotIn("(simulated)", md)
        for a, b, s in zip(r1["rows"], r2["rows"], sim["rows"]):
            self.assertEqual(a["mode"], "real")
            for k in self.COUNTERS:
                self.assertEqual(a[k], b[k], k)
                self.assertEqual(a[k], s[k], k)
        self.assertTrue(os.path.exists(os.path.join(cache, policy_replay.CACHE_DIR_MARKER)))
        foreign = os.path.join(self.tmp, "foreign")
        os.makedirs(foreign)
        with open(os.path.join(foreign, "keep.txt"), "w") as f:
            f.write("not ours\n")
        p = run([os.path.join(SCRIPTS, "replay"), self.trace, "--destor", DESTOR, "--config", self.config,
                 "--out-prefix", os.path.join(self.tmp, "rf"), "--real", "--cache-dir", foreign,
                 "--policies", "lru"], check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("refusing to empty", p.stderr.decode())
        self.assertTrue(os.path.exists(os.path.join(foreign, "keep.txt")))

    def test_null_trace_end_to_end(self):
        """gen-trace --null names the odd-name files a line trace skips;
        replay detects the format and destor serves every request."""
        trace0 = os.path.join(self.tmp, "z0.trace")
        p = run([os.path.join(SCRIPTS, "gen-trace"), "--destor", DESTOR, "--config", self.config,
                 "--requests", "600", "--seed", "2", "--null", "--out", trace0])
        self.assertNotIn("skipped", p.stderr.decode())
        with open(trace0, "rb") as f:
            recs = [r for r in f.read().split(b"\0")[:-1] if not r.startswith(b"#")]
        self.assertEqual(len(recs), 600)
        out = os.path.join(self.tmp, "null")
        run([os.path.join(SCRIPTS, "replay"), trace0, "--destor", DESTOR, "--config", self.config,
             "--out-prefix", out, "-q", "--policies", "none,plc"])
        with open(out + ".json") as f:
            doc = json.load(f)
        self.assertEqual([r["requests"] for r in doc["rows"]], [600, 600])
        prog = run([os.path.join(SCRIPTS, "replay"), trace0, "--destor", DESTOR, "--config", self.config,
                    "--out-prefix", out + "-p", "--policies", "lru", "--progress", "-q"])
        self.assertIn("100.0%", prog.stderr.decode())  # the bar counts NUL-terminated records

    def test_replay_progress_bar(self):
        out = os.path.join(self.tmp, "prog")
        p = run([os.path.join(SCRIPTS, "replay"), self.trace, "--destor", DESTOR, "--config", self.config,
                 "--out-prefix", out, "--policies", "lru,plc", "--progress", "-q"])
        err = p.stderr.decode()
        self.assertIn("ETA", err)
        self.assertIn("100.0%", err)
        with open(out + ".json") as f:
            doc = json.load(f)
        self.check_row(doc["rows"][1], doc["destor_summaries"][1])
        p = run([os.path.join(SCRIPTS, "replay"), self.trace, "--destor", DESTOR, "--config", self.config,
                 "--out-prefix", out, "--policies", "lru", "-q"])
        self.assertNotIn("ETA", p.stderr.decode(), "no bar when stderr is not a terminal")

    def check_experiment(self, name, nrows, figs):
        out = os.path.join(self.tmp, "exp-" + name)
        p = run([os.path.join(SCRIPTS, "experiment"), name, "--quick", "--dataset", self.data,
                 "--destor", DESTOR, "--out", out])
        with open(os.path.join(out, name + ".csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), nrows)
        for fig in figs:
            with open(os.path.join(out, fig), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", fig)
        with open(os.path.join(out, "REPORT.md")) as f:
            report = f.read()
        self.assertIn("## Headline numbers", report)
        for fig in figs:
            self.assertIn("(%s)" % fig, report)
        with open(os.path.join(out, name + ".json")) as f:
            doc = json.load(f)
        for row, summary in zip(doc["rows"], doc["destor_summaries"]):
            self.check_row(row, summary)
        return rows, report, p.stdout.decode()

    def test_experiment_overall_quick(self):
        listed = json.loads(subprocess.run([DESTOR, "policies", "--json"], stdout=subprocess.PIPE,
                                           check=True).stdout)["policies"]
        online = [p["name"] for p in listed if not p["offline"]]
        want = ["none"] + online + ["lru", "plc"]  # every online policy, then Fig. 9's pair at 10%
        rows, report, out = self.check_experiment(
            "overall", len(want), ["fig-latency.png", "fig-ssd-written.png", "fig-hit-ratio.png",
                                   "fig-quadrants.png"])
        self.assertEqual([r["policy"] for r in rows], want)
        self.assertIn("Acceptance bar on this run", report)
        self.assertNotRegex(report, r"[Ii]ssue [0-9]")
        self.assertIn("SSD bytes written", out)

    def test_experiment_cache_size_sweep_quick(self):
        rows, report, _ = self.check_experiment(
            "cache-size", 6, ["fig-latency.png", "fig-ssd-written.png", "fig-hit-ratio.png"])
        self.assertEqual(sorted(set(float(r["x"]) for r in rows)), [10.0, 20.0, 40.0])
        self.assertEqual([r["cache_size"] for r in rows if r["policy"] == "lru"], ["10%", "20%", "40%"])
        self.assertIn("less to the SSD than LRU", report)

    def test_experiment_container_size_quick(self):
        rows, _, _ = self.check_experiment(
            "container-size", 6, ["fig-latency.png", "fig-ssd-written.png", "fig-hit-ratio.png"])
        self.assertEqual(sorted(set(int(r["container_size"]) for r in rows)), [131072, 262144, 524288])


if __name__ == "__main__":
    unittest.main()
