# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of scripts/compare: two result CSVs side by side.

Why: a comparison that pairs the wrong rows or gets a sign wrong reports a
regression as an improvement.  Two small hand-made CSVs, with rows in
different orders, a policy in one file only and an infinite lifetime, and
the expected differences worked out by hand.
"""

import csv
import os
import shutil
import tempfile
import unittest

from test_trace_tools import SCRIPTS, run


class CompareTests(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="compare-")
        self.a = os.path.join(self.tmp, "a.csv")
        self.b = os.path.join(self.tmp, "b.csv")
        with open(self.a, "w") as f:
            f.write("seed,policy,hit_ratio,ssd_bytes_written,ssd_lifetime_model_days,mode\n"
                    "1,lru,0.5,1000,inf,simulate\n1,plc,0.6,100,3650.5,simulate\n1,fifo,0.4,2000,100,simulate\n")
        with open(self.b, "w") as f:
            f.write("seed,policy,hit_ratio,ssd_bytes_written,ssd_lifetime_model_days,mode\n"
                    "1,plc,0.66,50,7301,simulate\n1,lru,0.5,1100,inf,simulate\n1,arc,0.7,900,1,simulate\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_side_by_side(self):
        out = os.path.join(self.tmp, "d.csv")
        p = run([os.path.join(SCRIPTS, "compare"), self.a, self.b, "--csv", out])
        text = p.stdout.decode()
        self.assertIn("| seed | policy | metric | A | B | B - A | change |", text)
        self.assertIn("| 1 | lru | ssd_bytes_written | 1000 | 1100 | +100 | +10.00% |", text)
        self.assertIn("| 1 | plc | ssd_bytes_written | 100 | 50 | -50 | -50.00% |", text)
        self.assertIn("| 1 | plc | ssd_lifetime_model_days | 3650.5 | 7301 | +3650.5 | +100.00% |", text)
        self.assertIn("| 1 | lru | ssd_lifetime_model_days | inf | inf | - | - |", text)
        self.assertIn("only in A: seed=1, policy=fifo", text)
        self.assertIn("only in B: seed=1, policy=arc", text)
        with open(out, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 6)  # lru and plc x 3 metrics
        r = [r for r in rows if r["policy"] == "plc" and r["metric"] == "hit_ratio"][0]
        self.assertAlmostEqual(float(r["difference"]), 0.06)
        self.assertAlmostEqual(float(r["relative_change"]), 0.1)

    def test_metrics_and_errors(self):
        p = run([os.path.join(SCRIPTS, "compare"), self.a, self.b, "--metrics", "hit_ratio"])
        self.assertNotIn("ssd_bytes_written", p.stdout.decode())
        for args in ([self.a, os.path.join(self.tmp, "none.csv")], [self.a, self.b, "--metrics", "nope"]):
            p = run([os.path.join(SCRIPTS, "compare")] + args, check=False)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr.decode().startswith("compare: "))


if __name__ == "__main__":
    unittest.main()
