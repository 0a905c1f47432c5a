# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of plot_style.py and the figures experiment writes.

Why: a figure misleads when a policy changes colour between figures, when
an absolute axis starts above zero, when HDD only is drawn as a zero bar
where it has no value, or when tick labels run into each other.  These are
checked on the style table and on the figures of a quick experiment
(matplotlib objects are inspected while the figure is drawn).
"""

import os
import shutil
import subprocess
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

from destor_tools.errors import UsageError  # noqa: E402
from destor_tools import plot_style

# The policies the palette names (a policy it does not name gets a hashed
# style: test_unknown_names_are_deterministic); no second list here.
NEW = list(plot_style.POLICY_STYLE)


class StyleTests(unittest.TestCase):

    def test_every_policy_has_its_own_style(self):
        styles = [plot_style.policy_style(p) for p in NEW]
        self.assertEqual(len(set(c for c, _ in styles)), len(NEW))  # one colour each
        for p in NEW:
            self.assertNotEqual(plot_style.policy_label(p), "")

    def test_unknown_names_are_deterministic(self):
        a = plot_style.policy_style("my-new-policy")
        self.assertEqual(a, plot_style.policy_style("my-new-policy"))
        # the same in another process (no per-run hash seed)
        p = subprocess.run(["/usr/bin/python3", "-c", "import sys; sys.path.insert(0, %r); from destor_tools import plot_style; "
                            "print(plot_style.policy_style('my-new-policy'))" % SCRIPTS],
                           stdout=subprocess.PIPE, env=dict(os.environ, PYTHONHASHSEED="123"))
        self.assertEqual(p.stdout.decode().strip(), str(a))

    def test_formats_and_precision(self):
        self.assertEqual(plot_style.parse_formats("png,pdf,svg,png"), ["png", "pdf", "svg"])
        for bad in ("", "jpg", "png,gif"):
            with self.assertRaises(UsageError):
                plot_style.parse_formats(bad)
        self.assertEqual(plot_style.decimals_for([31.1, 1.9]), 1)
        self.assertEqual(plot_style.decimals_for([120, 2]), 0)
        self.assertEqual(plot_style.decimals_for([0.45, 0.012]), 3)

    def test_crowded_ticks_are_slanted(self):
        plt = plot_style.pyplot()
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.bar(range(6), [1] * 6)
        plot_style.fit_category_ticks(ax, fig, ["LFU (in-cache)"] * 6)
        self.assertEqual(ax.get_xticklabels()[0].get_rotation(), 30)
        fig2, ax2 = plt.subplots(figsize=(6, 2))
        ax2.bar(range(2), [1] * 2)
        plot_style.fit_category_ticks(ax2, fig2, ["A", "B"])
        self.assertEqual(ax2.get_xticklabels()[0].get_rotation(), 0)
        plt.close("all")


@unittest.skipUnless(have_destor(), "destor not built")
class FigureTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trace-plots-")
        cls.out = os.path.join(cls.tmp, "overall")
        run([os.path.join(SCRIPTS, "experiment"), "overall", "--quick", "--destor", DESTOR, "--out", cls.out,
             "--format", "png,pdf,svg"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_formats_and_report(self):
        for stem in ("latency", "ssd-written", "hit-ratio", "quadrants"):
            for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF"), ("svg", b"<?xml")):
                with open(os.path.join(self.out, "fig-%s.%s" % (stem, ext)), "rb") as f:
                    self.assertEqual(f.read(len(magic)), magic, (stem, ext))
        with open(os.path.join(self.out, "REPORT.md")) as f:
            report = f.read()
        self.assertIn("![latency (paper Fig. 6)](fig-latency.png)", report)
        self.assertIn("![quadrants (paper Fig. 9)](fig-quadrants.png)", report)

    def svg(self, stem):
        with open(os.path.join(self.out, "fig-%s.svg" % stem)) as f:
            return f.read()

    def test_titles_name_the_quantity_and_hdd_only_where_it_has_a_value(self):
        lat, hit, ssd = self.svg("latency"), self.svg("hit-ratio"), self.svg("ssd-written")
        for doc in (lat, hit, ssd):
            self.assertNotIn("Fig.", doc)
        # matplotlib writes text as paths but keeps it in comments
        self.assertIn("HDD only", lat)
        self.assertNotIn("HDD only", hit)
        self.assertNotIn("HDD only", ssd)
        # policy colours, the same in every figure
        for doc in (lat, hit, ssd):
            self.assertIn(plot_style.policy_style("plc")[0], doc)


if __name__ == "__main__":
    unittest.main()
