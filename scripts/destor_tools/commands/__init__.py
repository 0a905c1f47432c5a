# SPDX-License-Identifier: GPL-3.0-or-later
"""commands: one module a command, each with main(argv=None) -> int, the
console entry point pyproject.toml names.  scripts/NAME runs the same main
from the source tree; `make install` and `pip install scripts/` install it.
"""
