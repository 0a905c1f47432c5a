# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of scripts/experiment granularity (granularity_experiment.py).

Why: the granularity experiment is what answers "which cache design should
guard my SSD": the CDAC-against-CacheDedup ratios are checked on rows
worked out by hand, and a quick run on the tiny dataset checks that both
designs and every policy ran at every share on the same SSD bytes, with
the outputs written.
"""

import csv
import json
import os
import shutil
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

from destor_tools import granularity_experiment as gx  # noqa: E402


def chunk_row(policy, share, hit, byte_hit, reclaim="evict"):
    return {"granularity": "chunk", "policy": policy, "fetch": "chunk", "share": share, "hit_ratio": hit,
            "byte_hit_ratio": byte_hit, "reclaim": reclaim}


class CdacTableTests(unittest.TestCase):

    def test_ratios(self):
        rows = [chunk_row("cdac-lru", 0.2, 0.30, 0.3), chunk_row("d-lru", 0.2, 0.20, 0.2),
                chunk_row("cdac-arc", 0.2, 0.10, 0.1), chunk_row("d-arc", 0.2, 0.40, 0.4)]
        lines = gx.cdac_lines(rows)
        self.assertIn("1.500x", lines[2])
        self.assertIn("0.250x", lines[2])
        self.assertTrue(lines[-1].startswith("CDAC over D-*: at most 1.500x, on average 0.875x"), lines[-1])

    def test_average_over_the_papers_range_only(self):
        rows = [chunk_row("cdac-lru", 0.1, 0.9, 0.9), chunk_row("d-lru", 0.1, 0.1, 0.1),
                chunk_row("cdac-lru", 0.4, 0.2, 0.2), chunk_row("d-lru", 0.4, 0.4, 0.4)]
        lines = gx.cdac_lines(rows)
        self.assertIn("9.000x", lines[2])  # the 10% row is shown
        self.assertTrue(lines[-1].startswith("CDAC over D-*: at most 0.500x, on average 0.500x at 20-80%"),
                        lines[-1])

    def test_each_reclaim_compared_apart(self):
        rows = [chunk_row("cdac-lru", 0.4, 0.3, 0.3, "evict"), chunk_row("d-lru", 0.4, 0.3, 0.3, "evict"),
                chunk_row("cdac-lru", 0.4, 0.6, 0.6, "clean"), chunk_row("d-lru", 0.4, 0.2, 0.2, "clean")]
        evict, clean = gx.cdac_lines(rows, "evict"), gx.cdac_lines(rows, "clean")
        self.assertIn("1.000x", evict[2])
        self.assertIn("3.000x", clean[2])
        self.assertTrue(clean[-1].startswith("With reclaim clean: CDAC over D-*: at most 3.000x"), clean[-1])

    def test_missing_points_are_dashes(self):
        lines = gx.cdac_lines([chunk_row("cdac-lru", 0.4, 0.3, 0.3)])
        self.assertTrue(all("x (" not in l for l in lines[2:]))


class ReinsertTableTests(unittest.TestCase):

    @staticmethod
    def rows(policy, hits, ssd):
        out = []
        for reclaim, hit, written in zip(("evict", "clean", "reinsert"), hits, ssd):
            r = chunk_row(policy, 0.2, hit, hit, reclaim)
            r.update(layout="log", compression="none", ssd_bytes_written=written, hdd_bytes_read=1 << 20)
            out.append(r)
        return out

    def test_share_of_the_gain_and_the_goal(self):
        rows = self.rows("lru", (0.25, 0.75, 0.75), (100, 200, 150)) + \
            self.rows("arc", (0.25, 0.75, 0.625), (100, 200, 150)) + \
            self.rows("tinylfu", (0.25, 0.75, 0.875), (100, 200, 250))
        lines = gx.reinsert_lines(rows)
        self.assertIn("| 1.00 |", lines[2])
        self.assertTrue(lines[2].endswith("| met |"), lines[2])
        self.assertIn("| 0.75 |", lines[3])
        self.assertTrue(lines[3].endswith("| missed |"), lines[3])  # 75% of the gain
        self.assertTrue(lines[4].endswith("| missed |"), lines[4])  # more SSD bytes than clean
        self.assertTrue(lines[-1].endswith("met at 1 of 3 points."), lines[-1])

    def test_no_gain_to_keep(self):
        lines = gx.reinsert_lines(self.rows("lru", (0.5, 0.5, 0.5), (100, 100, 100)))
        self.assertIn("| - |", lines[2])
        self.assertTrue(lines[2].endswith("| met |"), lines[2])


class SharesOptionTests(unittest.TestCase):

    def test_percentages_sorted(self):
        self.assertEqual(gx.parse_args(["--shares", "80,10,40,20"]).shares, [0.1, 0.2, 0.4, 0.8])
        self.assertEqual(gx.parse_args([]).shares, gx.SHARES)

    def test_bad_shares_are_usage_errors(self):
        for bad in ("0", "101", "10,x", "20,20", "-5", ""):
            with self.assertRaises(SystemExit) as e:
                gx.parse_args(["--shares", bad])
            self.assertEqual(e.exception.code, 2, bad)


class ReclaimOptionTests(unittest.TestCase):

    def test_all_by_default_in_a_fixed_order(self):
        self.assertEqual(gx.parse_args([]).reclaim, ["evict", "clean", "reinsert"])
        self.assertEqual(gx.parse_args(["--reclaim", "clean,evict"]).reclaim, ["evict", "clean"])
        self.assertEqual(gx.parse_args(["--reclaim", "clean"]).reclaim, ["clean"])

    def test_bad_reclaims_are_usage_errors(self):
        for bad in ("", "evict,", "compact", "evict,evict", "Evict"):
            with self.assertRaises(SystemExit) as e:
                gx.parse_args(["--reclaim", bad])
            self.assertEqual(e.exception.code, 2, bad)


class RowTests(unittest.TestCase):

    CHUNK = {"hit_ratio": 0.5, "request_hit_ratio": 0.4, "byte_hit_ratio": 0.3, "ssd_bytes_written": 10,
             "hdd_reads": 1, "hdd_bytes_read": 2, "memory_bytes": 100, "cached_chunks": 4,
             "request_latency_model_ms_mean": 1.0, "mode": "simulate", "layout": "log", "evictions": 7,
             "write_amplification": 1.25, "log_dropped": 3,
             "chunk_log": {"capacity_bytes": 3 << 20, "cleaner_bytes_written": 9}}

    def test_log_rows_carry_their_reclaim_and_physical_bytes(self):
        r = gx.row("chunk", "lru", "chunk", 0.2, 1 << 20, self.CHUNK, "clean")
        self.assertEqual((r["reclaim"], r["ssd_physical_bytes"], r["cleaner_bytes_written"]), ("clean", 3 << 20, 9))
        self.assertEqual((r["write_amplification"], r["log_dropped"], r["evictions"]), (1.25, 3, 7))

    def test_rows_without_a_log_have_no_reclaim(self):
        buckets = dict(self.CHUNK, layout="buckets")
        del buckets["chunk_log"]
        r = gx.row("chunk", "austere", "chunk", 0.2, 1 << 20, buckets, None)
        self.assertEqual((r["reclaim"], r["ssd_physical_bytes"]), (None, 1 << 20))


@unittest.skipUnless(have_destor(), "destor not built")
class PolicyAndCodecOptionTests(unittest.TestCase):

    def test_all_by_default(self):
        a = gx.parse_args([])
        self.assertIsNone(a.policies)
        self.assertEqual(a.codecs, gx.CODECS)
        self.assertEqual(gx.parse_args(["--policies", "tinylfu,lru"]).policies, ["lru", "tinylfu"])
        self.assertEqual(gx.parse_args(["--codecs", "zstd,none"]).codecs, ["none", "zstd"])

    def test_bad_values_are_usage_errors(self):
        for opt, bad in (("--policies", "lru,lru"), ("--policies", "fifo"), ("--codecs", "gzip"), ("--codecs", "")):
            with self.assertRaises(SystemExit) as e:
                gx.parse_args([opt, bad])
            self.assertEqual(e.exception.code, 2, bad)


class GranularityRunTests(unittest.TestCase):

    def test_quick_run(self):
        tmp = tempfile.mkdtemp(prefix="trace-granularity-")
        try:
            out = os.path.join(tmp, "g")
            run([os.path.join(SCRIPTS, "experiment"), "granularity", "--quick", "--destor", DESTOR, "--out", out])
            with open(os.path.join(out, "granularity.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            chunk_points = len(gx.CHUNK_POLICIES) + len(gx.CONTAINER_FETCH_POLICIES)
            points = len(gx.CONTAINER_POLICIES) + chunk_points * len(gx.RECLAIMS)
            plain = [r for r in rows if r["compression"] == "none" and r["layout"] != "buckets"]
            self.assertEqual(len(plain), points * len(gx.SHARES))
            codecs = len(gx.CODECS)
            for reclaim in gx.RECLAIMS:  # every chunk-log point once per reclaim, the compressed lru's too
                self.assertEqual(len([r for r in rows if r["reclaim"] == reclaim and r["compression"] == "none"]),
                                 chunk_points * len(gx.SHARES))
                self.assertEqual(len([r for r in rows if r["reclaim"] == reclaim and r["compression"] != "none"]),
                                 (codecs - 1) * len(gx.SHARES))
            for r in rows:  # the log's SSD: evict and reinsert at least the cache, clean 2x the cache + 2 segments
                if r["reclaim"] in ("evict", "reinsert"):
                    self.assertGreaterEqual(int(r["ssd_physical_bytes"]), int(r["cache_bytes"]))
                elif r["reclaim"] == "clean":
                    self.assertGreaterEqual(int(r["ssd_physical_bytes"]), 2 * int(r["cache_bytes"]))
                else:
                    self.assertEqual((r["granularity"] == "container" or r["layout"] == "buckets"), True)
                    self.assertEqual(r["ssd_physical_bytes"], r["cache_bytes"])
            self.assertEqual(len([r for r in rows if r["granularity"] == "container" and r["compression"] != "none"]),
                             (codecs - 1) * len(gx.SHARES))
            chunk_log = [r for r in rows if r["layout"] == "log" and r["compression"] != "none"]
            self.assertEqual(len(chunk_log), (codecs - 1) * len(gx.SHARES) * len(gx.RECLAIMS))
            for r in chunk_log:  # simulation, each admitted chunk compressed once
                self.assertEqual((r["granularity"], r["policy"], r["mode"]), ("chunk", "lru", "simulate"))
                self.assertGreaterEqual(float(r["compression_ratio"]), 1.0)
            buckets = [r for r in rows if r["layout"] == "buckets"]
            self.assertEqual(len(buckets) % codecs, 0)
            for r in buckets:  # real mode, policy austere, only where a bucket fits
                self.assertEqual((r["policy"], r["mode"]), ("austere", "real"))
                self.assertGreaterEqual(int(r["cache_bytes"]), gx.BUCKET_BYTES)
            for share in gx.SHARES:
                at = [r for r in rows if float(r["share"]) == share]
                self.assertEqual(len({r["cache_bytes"] for r in at}), 1)  # the same SSD for both designs
                self.assertEqual({r["granularity"] for r in at}, {"container", "chunk"})
            for r in rows:
                self.assertGreaterEqual(float(r["request_hit_ratio"]), 0.0)
                self.assertLessEqual(float(r["request_hit_ratio"]), 1.0)
                self.assertEqual(r["byte_hit_ratio"] == "", r["granularity"] == "container")
            with open(os.path.join(out, "granularity.json")) as f:
                self.assertGreater(json.load(f)["working_set_bytes"], 0)
            self.assertTrue(os.path.isfile(os.path.join(out, "fig-granularity.png")))
            with open(os.path.join(out, "REPORT.md")) as f:
                text = f.read()
            for reclaim in gx.RECLAIMS:
                self.assertIn("With reclaim %s: CDAC over D-*" % reclaim, text)
        finally:
            shutil.rmtree(tmp)

    def test_quick_run_of_some_policies(self):
        """--policies lru,tinylfu --codecs none: those policies' points only, no compressed or bucket point."""
        tmp = tempfile.mkdtemp(prefix="trace-granularity-")
        try:
            out = os.path.join(tmp, "g")
            run([os.path.join(SCRIPTS, "experiment"), "granularity", "--quick", "--destor", DESTOR, "--out", out,
                 "--policies", "lru,tinylfu", "--codecs", "none", "--shares", "40"])
            with open(os.path.join(out, "granularity.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual({r["policy"] for r in rows}, {"lru", "tinylfu"})
            self.assertEqual({r["compression"] for r in rows}, {"none"})
            # container lru and tinylfu, chunk fetch and container fetch each at three reclaims
            self.assertEqual(len(rows), 2 + 2 * 2 * len(gx.RECLAIMS))
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
