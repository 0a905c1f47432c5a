# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of scripts/experiment fragmentation and fragmentation_experiment.py.

Why: the experiment's headline is issue 26's goal (capping's last restore
reads >= 2x fewer containers for <= 10% lost dedup); its arithmetic is
checked on rows worked out by hand, the version order of a user's tree on
names, and a quick run on a generated tree checks that every setting,
restore cache and policy produced its rows, that capping did rewrite, and
that the files and plots are written.
"""

import csv
import json
import os
import shutil
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

from destor_tools import fragmentation_experiment as fx  # noqa: E402


class ArithmeticTests(unittest.TestCase):

    def test_goal(self):
        backups = [{"algorithm": "no", "version": 20, "dedup_ratio_cumulative": 10.0},
                   {"algorithm": "capping", "version": 20, "dedup_ratio_cumulative": 9.2},
                   {"algorithm": "no", "version": 19, "dedup_ratio_cumulative": 1.0}]
        restores = [{"algorithm": "no", "restore_cache": "lru 30", "containers_read": 50},
                    {"algorithm": "capping", "restore_cache": "lru 30", "containers_read": 20}]
        g = fx.goal(backups, restores, ["no", "capping"], "lru 30")
        self.assertAlmostEqual(g["read_factor"], 2.5)
        self.assertAlmostEqual(g["lost_dedup"], 0.08)
        self.assertTrue(g["met"])
        backups[1]["dedup_ratio_cumulative"] = 8.9  # 11% lost
        self.assertFalse(fx.goal(backups, restores, ["no", "capping"], "lru 30")["met"])
        self.assertIsNone(fx.goal(backups, restores, ["no", "cbr"], "lru 30"))

    def test_version_order(self):
        tmp = tempfile.mkdtemp(prefix="trace-fragmentation-")
        try:
            for n in ("v10", "v2", "v1"):
                os.mkdir(os.path.join(tmp, n))
            self.assertEqual([os.path.basename(p) for p in fx.version_dirs(tmp)], ["v1", "v2", "v10"])
            os.mkdir(os.path.join(tmp, "b-release"))
            self.assertEqual([os.path.basename(p) for p in fx.version_dirs(tmp)],
                             ["b-release", "v1", "v10", "v2"])  # not all vN: plain name order
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


@unittest.skipUnless(have_destor(), "destor not built")
class FragmentationRunTests(unittest.TestCase):

    def test_quick_run(self):
        tmp = tempfile.mkdtemp(prefix="trace-fragmentation-")
        try:
            out = os.path.join(tmp, "fx")
            run([os.path.join(SCRIPTS, "experiment"), "fragmentation", "--destor", DESTOR, "--out", out,
                 "--versions", "3", "--container-size", "256K", "--algorithms", "no,capping",
                 "--policies", "lru,plc", "--requests", "100", "--restore-runs", "1",
                 "--restore-cache", "lru 30", "--restore-cache", "lru 4"])
            with open(os.path.join(out, "fragmentation.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(sorted((r["algorithm"], r["version"]) for r in rows),
                             sorted((a, str(v)) for a in ("no", "capping") for v in (1, 2, 3)))
            self.assertEqual(sum(int(r["rewritten_chunks"]) for r in rows if r["algorithm"] == "no"), 0)
            self.assertGreater(sum(int(r["rewritten_chunks"]) for r in rows if r["algorithm"] == "capping"), 0)
            with open(os.path.join(out, "restore.csv"), newline="") as f:
                restores = list(csv.DictReader(f))
            self.assertEqual(sorted((r["algorithm"], r["restore_cache"]) for r in restores),
                             sorted((a, c) for a in ("no", "capping") for c in ("lru 30", "lru 4")))
            for r in restores:  # a smaller restore cache never reads fewer containers
                small = next(s for s in restores if s["algorithm"] == r["algorithm"] and s["restore_cache"] == "lru 4")
                self.assertGreaterEqual(int(small["containers_read"]), int(r["containers_read"]))
            with open(os.path.join(out, "cache.csv"), newline="") as f:
                self.assertEqual(len(list(csv.DictReader(f))), 4)
            with open(os.path.join(out, "fragmentation.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["goal"]["versions"], 3)
            for stem in ("fig-fragmentation", "fig-restore-cache", "fig-ssd-writes"):
                with open(os.path.join(out, stem + ".png"), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            p = run([os.path.join(SCRIPTS, "experiment"), "fragmentation", "--destor", DESTOR, "--out", out,
                     "--algorithms", "no,sometimes"], check=False)
            self.assertEqual(p.returncode, 2)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
