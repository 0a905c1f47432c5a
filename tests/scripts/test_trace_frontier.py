# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of experiment frontier: the Pareto computation (pareto.py), the
points it plans from destor's policy list and the flags it writes
(frontier_experiment.py), and a quick end-to-end run.

Why: a frontier is easy to get subtly wrong at its edges (equal points,
equal writes, equal hit ratios), and its points must follow what destor
lists, not what this branch happens to have: sweeps and offline bounds are
checked on a made-up listing that has them.  The end-to-end run checks
every written flag against a brute-force recomputation from the CSV's own
numbers, with one seed and with two (where the flags are on the means).
"""

import csv
import json
import os
import re
import random
import shutil
import subprocess
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

from destor_tools.errors import ToolError  # noqa: E402
from destor_tools import frontier_experiment
from destor_tools import pareto


def dominated(p, points):
    """Brute force, from the definition: some other point has at least the
    hits and at most the writes, and is strictly better in one of them."""
    return any(q[1] >= p[1] and q[0] <= p[0] and (q[1] > p[1] or q[0] < p[0]) for q in points)


class ParetoTests(unittest.TestCase):

    def test_single_point(self):
        self.assertEqual(pareto.on_frontier([(5, 0.3)]), [True])

    def test_hand_worked(self):
        # (writes, hits): A is cheapest; B buys more hits with more writes;
        # C writes as much as B for fewer hits; D writes more than B for
        # the same hits; E is the most hits; F is beaten by B on both.
        pts = [(1, 0.2), (3, 0.5), (3, 0.4), (4, 0.5), (9, 0.7), (5, 0.45)]
        self.assertEqual(pareto.on_frontier(pts), [True, True, False, False, True, False])

    def test_duplicates_are_all_on_it(self):
        pts = [(2, 0.5), (2, 0.5), (1, 0.1)]
        self.assertEqual(pareto.on_frontier(pts), [True, True, True])
        # a duplicate of a dominated point stays dominated
        self.assertEqual(pareto.on_frontier([(3, 0.4), (3, 0.4), (2, 0.6)]), [False, False, True])

    def test_ties(self):
        # equal writes: only the larger hit ratio; equal hits: only the fewer writes
        self.assertEqual(pareto.on_frontier([(2, 0.3), (2, 0.6)]), [False, True])
        self.assertEqual(pareto.on_frontier([(7, 0.6), (2, 0.6)]), [False, True])
        # zero writes, zero hits (a cache that never admits) is on it alone
        self.assertEqual(pareto.on_frontier([(0, 0.0), (5, 0.5)]), [True, True])

    def test_best_within_and_gap(self):
        pts = [(1, 0.2), (3, 0.5), (9, 0.7), (5, 0.45)]
        self.assertIsNone(pareto.best_within(pts, 0.5))
        self.assertEqual(pareto.best_within(pts, 1), 0.2)
        self.assertEqual(pareto.best_within(pts, 4), 0.5)
        self.assertEqual(pareto.best_within(pts, 100), 0.7)
        self.assertAlmostEqual(pareto.gap_below(pts, (5, 0.45)), 0.05)  # B's 0.5 at 3 <= 5
        self.assertEqual(pareto.gap_below(pts, (3, 0.5)), 0)

    def test_agrees_with_brute_force(self):
        rng = random.Random(7)
        for _ in range(300):
            # a small grid, so equal writes, equal hits and duplicates are common
            pts = [(rng.randint(0, 5), rng.randint(0, 5) / 5) for _ in range(rng.randint(1, 12))]
            want = [not dominated(p, pts) for p in pts]
            self.assertEqual(pareto.on_frontier(pts), want, pts)


def key(name, default, typ="uint"):
    return {"name": name, "type": typ, "default": default, "min": 0.0, "max": 100.0, "words": [], "doc": ""}


def listing(plc_default="4"):
    """A made-up `destor policies --json` list with a sweep's policy and
    two offline ones, registered among the online ones."""
    return [
        {"name": "lru", "offline": False, "keys": []},
        {"name": "belady", "offline": True, "keys": []},
        {"name": "plc", "offline": False,
         "keys": [key("plc-filter-threshold", plc_default), key("plc-delay-threshold", "2")]},
        {"name": "sigpop", "offline": False, "keys": [key("sigpop-z", "2", "real")]},
        {"name": "offline-static", "offline": True, "keys": []},
    ]


def summary(points):
    return [(p["policy"], p["key"], p["value"], p["default"], p["offline"]) for p in points]


class PlanTests(unittest.TestCase):

    def test_sweeps_and_offline_bounds_when_listed(self):
        pts = frontier_experiment.plan_points(listing())
        self.assertEqual(summary(pts), [("lru", None, None, True, False)] + [
            ("plc", "plc-filter-threshold", v, v == 4, False) for v in (2, 3, 4, 5, 6, 8)] + [
            ("sigpop", "sigpop-z", v, v == 2, False) for v in (0, 0.5, 1, 2, 3, 4)] + [
            ("belady", None, None, True, True), ("offline-static", None, None, True, True)])
        byval = {(p["policy"], p["value"]): p["params"] for p in pts}
        self.assertEqual(byval[("sigpop", 0.5)], ["sigpop-z 0.5"])
        self.assertEqual(byval[("plc", 8)], ["plc-filter-threshold 8"])
        self.assertEqual(byval[("lru", None)], [])

    def test_a_default_outside_the_sweep_is_run_too(self):
        pts = frontier_experiment.plan_points(listing(plc_default="7"))
        plc = [(p["value"], p["default"]) for p in pts if p["policy"] == "plc"]
        self.assertEqual(plc, [(2, False), (3, False), (4, False), (5, False), (6, False), (7.0, True),
                               (8, False)])
        # a default that is a word is run as it is, beside the sweep
        pts = frontier_experiment.plan_points(listing(plc_default="auto"))
        plc = [(p["key"], p["value"], p["default"]) for p in pts if p["policy"] == "plc"]
        self.assertEqual(plc[0], (None, None, True))
        self.assertEqual(len(plc), 7)

    def test_only_what_is_listed_or_named(self):
        small = [p for p in listing() if p["name"] in ("lru", "plc")]
        self.assertEqual([p["policy"] for p in frontier_experiment.plan_points(small)], ["lru"] + ["plc"] * 6)
        self.assertEqual([p["policy"] for p in frontier_experiment.plan_points(listing(), ["belady", "lru"])],
                         ["lru", "belady"])

    def test_online_policies_under_opt_budgets_budgets(self):
        """With a capacity and a container's bytes per request, and
        opt-budget run, every online policy at its defaults is also run
        under opt-budget's budgets, as bytes per request."""
        listed = listing() + [{"name": "opt-budget", "offline": True,
                               "keys": [key("opt-budget-writes", "unlimited", "word")]}]
        pts = frontier_experiment.plan_points(listed, ["lru", "belady", "opt-budget"], 10, 2.5)
        self.assertEqual([(p["policy"], p["value"], p["budget"]) for p in pts if p["policy"] == "opt-budget"],
                         [("opt-budget", None, None)] + [("opt-budget", 10 * m, m) for m in (1, 2, 4, 8, 16)])
        budgeted = [p for p in pts if p["key"] == frontier_experiment.BUDGET_KEY]
        self.assertEqual([(p["policy"], p["value"], p["budget"], p["offline"]) for p in budgeted],
                         [("lru", 25.0 * m, m, False) for m in (1, 2, 4, 8, 16)])
        self.assertEqual(budgeted[0]["params"], ["ssd-cache-write-budget 25"])
        # without opt-budget, or without the trace's bytes per request: none
        self.assertFalse([p for p in frontier_experiment.plan_points(listed, ["lru", "belady"], 10, 2.5)
                          if p["key"] == frontier_experiment.BUDGET_KEY])
        self.assertFalse([p for p in frontier_experiment.plan_points(listed, None, 10, None)
                          if p["key"] == frontier_experiment.BUDGET_KEY])
        # over a timed trace of 2 days: m drive writes over it, m / 2 DWPD
        pts = frontier_experiment.plan_points(listed, ["lru", "opt-budget"], 10, 2.5, 2.0)
        budgeted = [p for p in pts if p["budget"] is not None and not p["offline"]]
        self.assertEqual([(p["key"], p["value"], p["budget"]) for p in budgeted],
                         [(frontier_experiment.BUDGET_KEY_DWPD, m / 2, m) for m in (1, 2, 4, 8, 16)])
        self.assertEqual(budgeted[0]["params"], ["ssd-cache-write-budget-dwpd 0.5"])

    def test_a_listed_policy_without_its_swept_key_is_an_error(self):
        bad = listing()
        bad[3]["keys"] = [key("sigpop-threshold", "2")]
        with self.assertRaises(ToolError):
            frontier_experiment.plan_points(bad)


def row(pol, w, h, offline=False):
    return {"policy": pol, "offline": "yes" if offline else "no", "key": None, "value": None,
            "default": "yes", "hit_ratio": h, "ssd_bytes_written": w}


class MarkTests(unittest.TestCase):

    def test_two_frontiers_and_distances(self):
        rows = [row("a", 10, 0.50), row("b", 40, 0.60), row("c", 30, 0.40), row("opt", 5, 0.70, offline=True)]
        frontier_experiment.mark(rows)
        self.assertEqual([r["on_frontier"] for r in rows], ["no", "no", "no", "yes"])
        self.assertEqual([r["on_online_frontier"] for r in rows], ["yes", "yes", "no", None])
        # c writes 30: the online frontier has a's 0.50 there, the full one opt's 0.70
        self.assertAlmostEqual(rows[2]["below_online_frontier_points"], 10.0)
        self.assertAlmostEqual(rows[2]["below_frontier_points"], 30.0)
        self.assertAlmostEqual(rows[1]["below_frontier_points"], 10.0)
        self.assertEqual(rows[1]["below_online_frontier_points"], 0.0)
        self.assertIsNone(rows[3]["below_online_frontier_points"])

    def test_gap_table(self):
        """Share of the offline gap closed, by hand: at 1C opt-budget hits
        80%, lru 40%, s3fifo 60% -> s3fifo closes 0.50 of lru's gap; at 2C
        lru is not run, so the least online hit ratio (s3fifo's) is the
        baseline."""
        def budgeted(pol, b, h, offline=False):
            return dict(row(pol, b, h, offline), budget=b)
        rows = [budgeted("opt-budget", 1, 0.8, True), budgeted("lru", 1, 0.4), budgeted("s3fifo", 1, 0.6),
                budgeted("opt-budget", 2, 0.9, True), budgeted("s3fifo", 2, 0.7), row("lru", 50, 0.5)]
        lines = frontier_experiment.gap_table(rows)
        label = frontier_experiment.policy_label
        self.assertIn("| opt-budget | 80.00% | 90.00% |", lines)
        self.assertIn("| %s | 0.00 (40.00%%) | - |" % label("lru"), lines)
        self.assertIn("| %s | 0.50 (60.00%%) | 0.00 (70.00%%) |" % label("s3fifo"), lines)
        self.assertEqual(frontier_experiment.gap_table([row("lru", 50, 0.5)]), [])

    def test_zoom_window(self):
        # writes 1, 2 and 40 GiB: the zoom holds the two that write at most
        # 10 GiB, x to 2 x 1.15 GiB, y 15% of their 20-point span either side
        g = 1 << 30
        rows = [row("a", g, 0.40), row("b", 2 * g, 0.60), row("c", 40 * g, 0.70)]
        xlim, lo, hi = frontier_experiment.zoom_window(rows)
        self.assertAlmostEqual(xlim, 2.3)
        self.assertAlmostEqual(lo, 37.0)
        self.assertAlmostEqual(hi, 63.0)
        self.assertIsNone(frontier_experiment.zoom_window(rows[1:]))  # one point alone is not zoomed on

    def test_figure_with_offline_bounds_and_error_bars(self):
        rows = [row("lru", 40 << 20, 0.4), row("belady", 8 << 20, 0.7, offline=True)]
        rows += [dict(row("plc", w << 20, h), key="plc-filter-threshold", value=v, default="no")
                 for v, w, h in ((2, 9, 0.5), (4, 5, 0.45), (8, 2, 0.3))]
        frontier_experiment.mark(rows)
        for r in rows:
            r.update(latency_model_ms_mean=1.0, latency_model_ms_p99=2.0,
                     _ci={"hit_ratio": 0.01, "ssd_bytes_written": 1 << 20})
        tmp = tempfile.mkdtemp(prefix="frontier-fig-")
        self.addCleanup(shutil.rmtree, tmp, True)
        files = frontier_experiment.plot(rows, tmp, ["png", "svg"], "20%")
        with open(files[0], "rb") as f:
            self.assertEqual(f.read(4), b"\x89PNG")
        with open(files[1]) as f:
            svg = f.read()
        self.assertIn("Pareto frontier with the offline bounds", svg)
        self.assertIn("Pareto frontier, online policies", svg)
        self.assertIn("bound: Belady (offline)", svg)
        report = "\n".join(frontier_experiment.headlines(rows) + frontier_experiment.results(rows))
        self.assertIn("below the frontier with offline bounds", report)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@unittest.skipUnless(have_destor(), "destor not built")
class FrontierRunTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trace-frontier-")
        cls.listed = json.loads(subprocess.run([DESTOR, "policies", "--json"], stdout=subprocess.PIPE,
                                               check=True).stdout)["policies"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def expected(self, capacity):
        """(policy, key, value) of every point, from destor's own list: the
        online policies in registry order, then the offline ones; opt-budget
        at its default (unlimited), then at 1, 2, 4, 8 and 16 capacities of
        writes."""
        sweeps = {"plc": ("plc-filter-threshold", ["2", "3", "4", "5", "6", "8"]),
                  "sigpop": ("sigpop-z", ["0", "0.5", "1", "2", "3", "4"])}
        out = []
        for p in sorted(self.listed, key=lambda p: p["offline"]):
            k, vals = sweeps.get(p["name"], ("", [""]))
            out += [(p["name"], k, v) for v in vals]
            if p["name"] == "opt-budget":
                out += [(p["name"], "opt-budget-writes", str(m * capacity)) for m in (1, 2, 4, 8, 16)]
        return out

    def check_flags(self, rows):
        pts = [(float(r["ssd_bytes_written"]), float(r["hit_ratio"])) for r in rows]
        online = [p for p, r in zip(pts, rows) if r["offline"] == "no"]
        for p, r in zip(pts, rows):
            self.assertEqual(r["on_frontier"], "no" if dominated(p, pts) else "yes", r)
            if r["offline"] == "no":
                self.assertEqual(r["on_online_frontier"], "no" if dominated(p, online) else "yes", r)
                best = max(h for w, h in online if w <= p[0])
                self.assertAlmostEqual(float(r["below_online_frontier_points"]), 100 * (best - p[1]), places=6)
            else:
                self.assertEqual(r["on_online_frontier"], "")
        self.assertIn("yes", [r["on_frontier"] for r in rows])

    def test_quick_run(self):
        out = os.path.join(self.tmp, "one")
        run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR, "--out", out,
             "--jobs", "2"])
        rows = read_csv(os.path.join(out, "frontier.csv"))
        with open(os.path.join(out, "frontier.json")) as f:
            capacity = json.load(f)["rows"][0]["capacity_containers"]
        budget = frontier_experiment.BUDGET_KEY
        self.assertEqual([(r["policy"], r["key"], r["value"]) for r in rows if r["key"] != budget],
                         self.expected(capacity))
        # every online policy under opt-budget's five budgets, in bytes per request
        online = [p["name"] for p in self.listed if not p["offline"]]
        budgeted = [r for r in rows if r["key"] == budget]
        self.assertEqual([(r["policy"], r["budget"]) for r in budgeted],
                         [(p, str(m)) for p in online for m in (1, 2, 4, 8, 16)])
        unit = float(budgeted[0]["value"])
        for r in budgeted:
            self.assertAlmostEqual(float(r["value"]) / (unit * int(r["budget"])), 1.0, places=4)
        with open(os.path.join(out, "fig-frontier-budgets.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(set(r["seed"] for r in rows), {"1"})
        self.check_flags(rows)
        with open(os.path.join(out, "fig-frontier.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(out, "REPORT.md")) as f:
            report = f.read()
        self.assertIn("Frontier over the online points", report)
        self.assertIn("Share of the offline gap closed", report)
        self.assertIn("![frontier (no paper figure)](fig-frontier.png)", report)
        for r in rows:  # the headline frontiers leave the budgeted points out
            if r["on_online_frontier"] == "yes" and r["key"] != budget:
                self.assertIn("| %s, " % frontier_experiment.policy_label(r["policy"]), report)
        # the JSON keeps destor's counters of every run, in the CSV's order
        with open(os.path.join(out, "frontier.json")) as f:
            doc = json.load(f)
        self.assertEqual([s["cache"]["policy"] for s in doc["destor_summaries"]], [r["policy"] for r in rows])
        self.assertEqual([s["cache"]["ssd_bytes_written"] for s in doc["destor_summaries"]],
                         [int(r["ssd_bytes_written"]) for r in rows])

    def test_seeds_flag_the_means(self):
        out = os.path.join(self.tmp, "seeds")
        run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR, "--out", out,
             "--seeds", "1-2", "--policies", "lru,plc,tinylfu", "--jobs", "2"])
        rows = read_csv(os.path.join(out, "frontier.csv"))
        per = [r for r in rows if r["seed"] in ("1", "2")]
        means = [r for r in rows if r["seed"] == "mean"]
        self.assertEqual(len(per), 2 * 8)
        self.assertEqual(len(means), 8)
        self.assertEqual(len([r for r in rows if r["seed"] == "ci95"]), 8)
        self.assertEqual(set(r["on_frontier"] for r in per), {""})
        self.check_flags(means)
        for m in means:
            two = [float(r["hit_ratio"]) for r in per if (r["policy"], r["value"]) == (m["policy"], m["value"])]
            self.assertAlmostEqual(float(m["hit_ratio"]), sum(two) / 2, places=6)

    def test_given_trace_replays_as_generated(self):
        """--trace with the trace a run generated, on that run's store,
        gives the same points; the report names the given trace."""
        out = os.path.join(self.tmp, "gen")
        run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR, "--out", out,
             "--policies", "lru,plc,sigpop", "--jobs", "2"])
        traces = [os.path.join(out, "traces", t) for t in os.listdir(os.path.join(out, "traces"))
                  if t.endswith(".trace")]
        stores = [os.path.join(out, "stores", d, "working") for d in os.listdir(os.path.join(out, "stores"))]
        self.assertEqual((len(traces), len(stores)), (1, 1))
        again = os.path.join(self.tmp, "given")
        run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR, "--out", again,
             "--policies", "lru,plc,sigpop", "--jobs", "2", "--workdir", stores[0], "--trace", traces[0]])
        key = lambda r: (r["policy"], r["value"], r["hit_ratio"], r["ssd_bytes_written"])
        self.assertEqual([key(r) for r in read_csv(os.path.join(again, "frontier.csv"))],
                         [key(r) for r in read_csv(os.path.join(out, "frontier.csv"))])
        with open(os.path.join(again, "REPORT.md")) as f:
            given = f.read()
        with open(os.path.join(out, "REPORT.md")) as f:
            generated = f.read()
        self.assertIn("(given with --trace)", given)
        # regression: a given trace's bytes were counted as 0 B
        size = re.compile(r"(\d+) requests reading ([^(]+) \(")
        self.assertEqual(size.search(given).groups(), size.search(generated).groups())
        self.assertNotIn("reading 0 B", given)
        for extra in (["--seeds", "1-2"], ["--alpha", "0.3"], ["--shift-every", "5"]):
            p = run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR,
                     "--out", os.path.join(self.tmp, "bad"), "--workdir", stores[0], "--trace", traces[0]] + extra,
                    check=False)
            self.assertEqual(p.returncode, 2, (extra, p.stderr))
            self.assertIn(b"--trace", p.stderr)
        p = run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR,
                 "--out", os.path.join(self.tmp, "bad"), "--trace", traces[0]], check=False)
        self.assertEqual(p.returncode, 2, p.stderr)

    def test_usage_errors(self):
        for extra in (["--real"], ["--values", "1,2"], ["--policies", "none,lru"]):
            p = run([os.path.join(SCRIPTS, "experiment"), "frontier", "--quick", "--destor", DESTOR,
                     "--out", os.path.join(self.tmp, "bad")] + extra, check=False)
            self.assertEqual(p.returncode, 2, (extra, p.stderr))


if __name__ == "__main__":
    unittest.main()
