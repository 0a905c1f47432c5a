# SPDX-License-Identifier: GPL-3.0-or-later
"""Numeric options given a negative or otherwise bad value (destor_tools.options.
option_values, parse_size and each script's checks).

Why: `import-trace --block-size -4096` said "argument --block-size: expected
one argument" (argparse takes a value starting with '-' for an option when
the parser has an option like -0), and values like -5%, -4K or -2x did the
same in every script; some bad values were only noticed after a store was
listed or a dataset made.  Each case below must fail at once with exit 2 and
one error line that names the option and says what is wrong with the value.
"""

import argparse
import os
import shutil
import tempfile
import unittest

from test_trace_tools import SCRIPTS, run
from destor_tools.options import option_values  # noqa: E402


CASES = [
    ("import-trace", ["T", "-f", "msr", "--map", "object", "--block-size", "-4096"],
     "--block-size: a size cannot be negative: '-4096'"),
    ("import-trace", ["T", "-f", "msr", "--map", "object", "--block-size", "-4K"],
     "--block-size: a size cannot be negative"),
    ("import-trace", ["T", "-f", "msr", "--map", "object", "--block-size", "0.5"],
     "--block-size must be at least 1 byte, got '0.5'"),
    ("import-trace", ["T", "-f", "txt", "--job", "-1"], "--job must not be negative"),
    ("gen-trace", ["--requests", "-5"], "--requests must not be negative"),
    ("gen-trace", ["--requests", "5", "--job", "-1"], "--job must not be negative"),
    ("gen-trace", ["--requests", "5", "--alpha", "-0.5"], "--alpha must be in [0, 1]"),
    ("gen-trace", ["--requests", "5", "--shift-every", "-3"], "--shift-every must be positive"),
    ("gen-trace", ["--bytes", "-5"], "--bytes: a size cannot be negative"),
    ("gen-trace", ["--bytes", "-2x"], "--bytes: budget multiple must be above 0"),
    ("replay", ["T", "--cache-size", "-5%"], "invalid cache size '-5%'"),
    ("replay", ["T", "-j", "-2"], "--jobs must be at least 1"),
    ("replay", ["T", "--seeds", "-1-3"], "invalid seed list '-1-3'"),
    ("experiment", ["overall", "--requests", "-1"], "--requests must not be negative"),
    ("experiment", ["overall", "--shift-every", "-1"], "--shift-every must be positive"),
    ("experiment", ["overall", "--job", "-1"], "--job must be a job id"),
    ("experiment", ["overall", "--bytes", "-1"], "a size cannot be negative"),
    ("experiment", ["overall", "--container-size", "-4K"], "--container-size: a size cannot be negative"),
    ("endurance-compare", ["--device", "D", "--cache-dir", "C", "--cache-size", "-5%", "T"],
     "invalid cache size '-5%'"),
    ("gen-dataset", ["--size", "-4K"], "bad size '-4K'"),
]


class OptionValueTests(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="trace-options-")
        self.trace = os.path.join(self.tmp, "t.trace")
        with open(self.trace, "w") as f:
            f.write("0\tx\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_bad_values_are_named(self):
        out = os.path.join(self.tmp, "out")
        for script, args, want in CASES:
            args = [self.trace if a == "T" else a for a in args]
            extra = {"gen-dataset": ["--out", out], "experiment": ["--quick", "--out", out],
                     "endurance-compare": []}.get(script, ["-o", out] if "trace" in script else [])
            config = [] if script == "gen-dataset" else ["-c", "/nonexistent/destor.config"]
            p = run([os.path.join(SCRIPTS, script)] + config + args + extra, check=False)
            err = p.stderr.decode()
            self.assertEqual(p.returncode, 2, (script, args, err))
            last = err.splitlines()[-1]
            self.assertTrue(last.startswith("%s: error: " % script), (script, args, err))
            self.assertIn(want, last, (script, args))
            self.assertFalse(os.path.exists(out), (script, args))

    def test_option_values(self):
        ap = argparse.ArgumentParser()
        ap.add_argument("--size")
        ap.add_argument("-j", type=int)
        ap.add_argument("--null", "-0", action="store_true")
        ap.add_argument("rest", nargs="*")
        ov = option_values
        self.assertEqual(ov(ap, ["--size", "-4K", "-j", "-2"]), ["--size=-4K", "-j-2"])
        self.assertEqual(ap.parse_args(ov(ap, ["--size", "-4K", "-j", "-2"])).j, -2)
        self.assertEqual(ov(ap, ["--size", "-0"]), ["--size", "-0"])        # -0 is an option
        self.assertEqual(ov(ap, ["--size", "-x"]), ["--size", "-x"])        # not a value
        self.assertEqual(ov(ap, ["--null", "-1"]), ["--null", "-1"])        # takes no value
        self.assertEqual(ov(ap, ["--", "--size", "-1"]), ["--", "--size", "-1"])
        self.assertEqual(ov(ap, ["--size"]), ["--size"])


if __name__ == "__main__":
    unittest.main()
