# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of scripts/experiment robustness and robustness_experiment.py.

Why: the robustness table is what a user who does not know the workload
reads: each policy's loss against the best online policy of every
workload and cache size, its writes against PLC's, and the worst case of
each. The arithmetic is checked on rows worked out by hand, and a quick run
of the experiment on destor's tiny dataset checks the workloads, the sizes
and that every online policy ran on each.
"""

import csv
import json
import os
import shutil
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

from destor_tools import robustness_experiment as rx  # noqa: E402


def row(workload, cache, policy, hit, written):
    return {"x": workload, "cache_size": cache, "policy": policy, "hit_ratio": hit, "ssd_bytes_written": written}


class TableTests(unittest.TestCase):

    ROWS = [row("zipf", "20%", "lfu", 0.60, 900), row("zipf", "20%", "plc", 0.55, 100),
            row("zipf", "20%", "adapt", 0.598, 90),
            row("recency", "20%", "lfu", 0.40, 800), row("recency", "20%", "plc", 0.30, 200),
            row("recency", "20%", "adapt", 0.45, 300)]

    def test_loss_and_writes(self):
        t = {(r["workload"], r["policy"]): r for r in rx.table(self.ROWS)}
        self.assertAlmostEqual(t["zipf", "adapt"]["loss_points"], 0.2)
        self.assertAlmostEqual(t["zipf", "adapt"]["writes_vs_plc"], 0.9)
        self.assertEqual(t["zipf", "adapt"]["best_policy"], "lfu")
        self.assertAlmostEqual(t["recency", "lfu"]["loss_points"], 5.0)
        self.assertEqual(t["recency", "adapt"]["loss_points"], 0.0)
        self.assertAlmostEqual(t["recency", "adapt"]["writes_vs_plc"], 1.5)

    def test_worst_cases(self):
        worst = {w["policy"]: w for w in rx.worst_cases(rx.table(self.ROWS))}
        a = worst["adapt"]
        self.assertAlmostEqual(a["loss"], 0.2)
        self.assertEqual(a["loss_at"], "zipf 20%")
        self.assertAlmostEqual(a["writes"], 1.5)
        self.assertEqual(a["writes_at"], "recency 20%")
        self.assertEqual((a["met"], a["runs"]), (1, 2))  # zipf: 0.2 points, 0.9 x PLC's
        self.assertEqual(worst["plc"]["met"], 0)  # 5 and 15 points below
        self.assertEqual(worst["lfu"]["met"], 0)  # 9 and 4 x PLC's writes

    def test_shift_is_a_quarter(self):
        self.assertEqual(rx.shift_for(28833), 7209)
        self.assertEqual(rx.shift_for(3), 1)
        self.assertEqual(rx.workload_spec("zipf-shift"), ("zipf", True))
        self.assertEqual(rx.workload_names(True)[-1], "given")


@unittest.skipUnless(have_destor(), "destor not built")
class RobustnessRunTests(unittest.TestCase):

    def test_quick_run(self):
        tmp = tempfile.mkdtemp(prefix="trace-robustness-")
        try:
            out = os.path.join(tmp, "rb")
            run([os.path.join(SCRIPTS, "experiment"), "robustness", "--quick", "--destor", DESTOR, "--out", out,
                 "--jobs", "2", "--policies", "lru,lfu,plc,adapt"])
            with open(os.path.join(out, "robustness.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            cases = {(r["workload"], r["cache_size"]) for r in rows}
            self.assertEqual(cases, {(w, c) for w in ("zipf", "zipf-shift", "recency", "recency-objects")
                                     for c in ("20%", "10%")})
            for case in cases:
                got = [r for r in rows if (r["workload"], r["cache_size"]) == case]
                self.assertEqual(sorted(r["policy"] for r in got), ["adapt", "lfu", "lru", "plc"])
                self.assertEqual(min(float(r["loss_points"]) for r in got), 0.0)
                self.assertEqual([float(r["writes_vs_plc"]) for r in got if r["policy"] == "plc"], [1.0])
            with open(os.path.join(out, "robustness.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["traces"]["zipf-shift"]["shift_every"],
                             rx.shift_for(doc["traces"]["zipf"]["requests"]))
            self.assertEqual(doc["traces"]["recency"]["dist"], "recency")
            objects = doc["traces"]["recency-objects"]
            self.assertEqual(objects["requests"], doc["traces"]["zipf"]["requests"])
            self.assertEqual(objects["objects"], doc["rows"][0]["store_containers"])
            with open(os.path.join(out, "REPORT.md")) as f:
                self.assertIn("| policy | worst loss (points) |", f.read())
            with open(os.path.join(out, "fig-robustness.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            p = run([os.path.join(SCRIPTS, "experiment"), "robustness", "--quick", "--destor", DESTOR, "--out", out,
                     "--cache-size", "30%"], check=False)
            self.assertEqual(p.returncode, 2)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
