# SPDX-License-Identifier: GPL-3.0-or-later
"""child_command: how one command runs another (experiment runs
gen-dataset) in a child Python.

Why it exists: the package runs from the source tree, from pkgdatadir
after `make install` or from site-packages after `pip install`, and the
child must load the same copy; so the child runs the command module's
main() with this package's folder first on PYTHONPATH.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command_line(name: str) -> tuple[list[str], dict[str, str]]:
    """(argv, environment) that run command NAME (e.g. gen-dataset);
    append its arguments to argv."""
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=ROOT + (os.pathsep + path if path else ""))
    run = "import sys; from destor_tools.commands.%s import main; sys.exit(main())" % name.replace("-", "_")
    return [sys.executable, "-B", "-c", run], env
