#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test_package.py: scripts/ as a Python package (scripts/pyproject.toml).
The type checker (Debian's mypy, settings in pyproject.toml) passes; every
public function and method of destor_tools is annotated; the commands
pyproject.toml installs are the Python commands in scripts/ and
man/local.mk's PLC_COMMANDS, each scripts/NAME only runs its module's
main(); and pip installs the package offline into a venv whose entry
points print the same --help as the commands run in place."""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest

TOP = os.environ.get("TOP_SRCDIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("TOP_BUILDDIR") or os.path.join(TOP, "build")
SCRIPTS = os.path.join(TOP, "scripts")
PYTHON = "/usr/bin/python3"
THIN = """#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# {name}: the command's code is destor_tools/commands/{module}.py (its --help and
# man page say what it does); this file runs it from the source tree.
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from destor_tools.commands.{module} import main  # noqa: E402

sys.exit(main())
"""


def entry_points():
    with open(os.path.join(SCRIPTS, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]["scripts"]


def help_text(argv, env=None):
    p = subprocess.run(argv + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tempfile.gettempdir(),
                       env=dict(env or os.environ, COLUMNS="100", PYTHONDONTWRITEBYTECODE="1"))
    if p.returncode != 0:
        raise AssertionError("%s --help: %s" % (argv[-1], p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8")


class Package(unittest.TestCase):
    def test_type_checker_passes(self):
        if subprocess.run([PYTHON, "-c", "import mypy"], stderr=subprocess.DEVNULL).returncode != 0:
            self.fail("mypy is not installed: scripts/setup.sh installs Debian's mypy package")
        p = subprocess.run([PYTHON, "-m", "mypy", "--config-file", "pyproject.toml",
                            "--cache-dir", os.path.join(BUILD, "mypy-cache"), "-p", "destor_tools"],
                           cwd=SCRIPTS, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        self.assertEqual(p.returncode, 0, p.stdout.decode("utf-8", "replace"))

    def test_public_functions_are_annotated(self):
        bare = []
        for root, dirs, names in os.walk(os.path.join(SCRIPTS, "destor_tools")):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in sorted(n for n in names if n.endswith(".py")):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                bare += self.unannotated(tree.body, os.path.relpath(path, SCRIPTS), False)
        self.assertEqual(bare, [], "public functions without type hints")

    def unannotated(self, body, where, method):
        out = []
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                out += self.unannotated(node.body, "%s %s." % (where, node.name), True)
            elif isinstance(node, ast.FunctionDef) and (node.name == "__init__" or not node.name.startswith("_")):
                a = node.args
                args = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
                if method:
                    args = args[1:]
                if any(x.annotation is None for x in args) or node.returns is None:
                    out.append("%s:%d %s" % (where, node.lineno, node.name))
        return out

    def test_commands_agree(self):
        eps = entry_points()
        with open(os.path.join(TOP, "man", "local.mk")) as f:
            mk = f.read().replace("\\\n", " ")
        listed = re.search(r"^PLC_COMMANDS = (.*)$", mk, re.M).group(1).split()
        in_place = []
        for name in os.listdir(SCRIPTS):
            path = os.path.join(SCRIPTS, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                with open(path, "rb") as f:
                    if f.readline().startswith(b"#!/usr/bin/python3"):
                        in_place.append(name)
        self.assertEqual(sorted(eps), sorted(listed), "pyproject.toml against man/local.mk's PLC_COMMANDS")
        self.assertEqual(sorted(eps), sorted(in_place), "pyproject.toml against the Python commands in scripts/")
        for name, target in eps.items():
            module = name.replace("-", "_")
            self.assertEqual(target, "destor_tools.commands.%s:main" % module)
            with open(os.path.join(SCRIPTS, name)) as f:
                self.assertEqual(f.read(), THIN.format(name=name, module=module), "scripts/%s is not thin" % name)

    def test_pip_installs_offline(self):
        tmp = tempfile.mkdtemp(prefix="destor-package.")
        try:
            src = os.path.join(tmp, "src")
            os.mkdir(src)
            shutil.copy(os.path.join(SCRIPTS, "pyproject.toml"), src)
            shutil.copytree(os.path.join(SCRIPTS, "destor_tools"), os.path.join(src, "destor_tools"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            venv = os.path.join(tmp, "venv")
            subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", "--without-pip", venv], check=True)
            p = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--quiet",
                                "--no-build-isolation", "--no-index", "--no-deps", src],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(p.returncode, 0, p.stdout.decode("utf-8", "replace"))
            env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
            env.pop("PYTHONPATH", None)
            for name in entry_points():
                installed = os.path.join(venv, "bin", name)
                self.assertTrue(os.access(installed, os.X_OK), "pip installed no %s" % name)
                self.assertEqual(help_text([installed], env), help_text([PYTHON, os.path.join(SCRIPTS, name)]),
                                 "%s --help installed against in place" % name)
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main(verbosity=2)
