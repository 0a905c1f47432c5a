# SPDX-License-Identifier: GPL-3.0-or-later
"""Which destor the scripts run without --destor (destor_runner.default_destor).

Why: the scripts once looked only in build/, so after the autotools habit of
an in-tree ./configure && make, import-trace and the others failed until
given --destor.  A copy of scripts/ in a scratch source tree runs gen-trace
and import-trace with the real binary placed as ./destor (in-tree build),
as build/destor (scripts/setup.sh's build; it wins when both are there),
and with neither (a clear error, exit 1).
"""

import os
import shutil
import subprocess
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

COMMANDS = ("gen-trace", "import-trace")


@unittest.skipUnless(have_destor(), "destor not built")
class DestorLookupTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="destor-lookup-")
        cls.tree = os.path.join(cls.tmp, "tree")
        os.makedirs(os.path.join(cls.tree, "scripts"))
        for name in COMMANDS:
            shutil.copy2(os.path.join(SCRIPTS, name), os.path.join(cls.tree, "scripts", name))
        shutil.copytree(os.path.join(SCRIPTS, "destor_tools"), os.path.join(cls.tree, "scripts", "destor_tools"),
                        ignore=shutil.ignore_patterns("installed.py", "__pycache__"))
        data = os.path.join(cls.tmp, "data")
        os.makedirs(data)
        for i in range(3):
            with open(os.path.join(data, "f%d" % i), "wb") as f:
                f.write(os.urandom(5000 + i))
        cls.ids = os.path.join(cls.tmp, "ids.txt")
        with open(cls.ids, "w") as f:
            f.write("a\nb\na\n")
        cls.config = os.path.join(cls.tmp, "destor.config")
        with open(cls.config, "w") as f:
            f.write('working-directory "%s"\n' % os.path.join(cls.tmp, "w"))
        subprocess.run([DESTOR, "-c", cls.config, "backup", data], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def place(self, *where):
        """The real destor at each of `where` (paths in the tree), nothing at
        the other candidate."""
        for rel in ("destor", os.path.join("build", "destor")):
            path = os.path.join(self.tree, rel)
            if os.path.lexists(path):
                os.unlink(path)
            if rel in where:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                os.symlink(os.path.abspath(DESTOR), path)

    def commands(self, check=True):
        out = os.path.join(self.tmp, "out.trace")
        script = os.path.join(self.tree, "scripts")
        return [run([os.path.join(script, "gen-trace"), "-c", self.config, "--requests", "4", "-q", "-o", out],
                    check=check),
                run([os.path.join(script, "import-trace"), self.ids, "-f", "txt", "-c", self.config, "-q",
                     "-o", out], check=check)]

    def default(self):
        p = run(["-c", "import sys; sys.path.insert(0, sys.argv[1]); from destor_tools import destor_runner; "
                 "print(destor_runner.default_destor())", os.path.join(self.tree, "scripts")])
        return p.stdout.decode().strip()

    def test_in_tree_build(self):
        self.place("destor")
        self.commands()
        self.assertEqual(self.default(), os.path.join(self.tree, "destor"))

    def test_build_dir_first(self):
        self.place("destor", os.path.join("build", "destor"))
        self.commands()
        self.assertEqual(self.default(), os.path.join(self.tree, "build", "destor"))

    def test_none_is_a_clear_error(self):
        self.place()
        for p in self.commands(check=False):
            self.assertEqual(p.returncode, 1)
            err = p.stderr.decode()
            self.assertIn("%s not found" % os.path.join(self.tree, "build", "destor"), err)
            self.assertIn("--destor", err)
            self.assertEqual(len(err.splitlines()), 1, err)


if __name__ == "__main__":
    unittest.main()
