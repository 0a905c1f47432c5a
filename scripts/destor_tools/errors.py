# SPDX-License-Identifier: GPL-3.0-or-later
"""errors: the one error root of the scripts, and how a command turns an
error into one line on stderr and an exit status.

Why it exists: every command reports a problem the user must fix as one
line "PROG: message" and must agree on what each kind of error exits with.
"""

import sys
from typing import Callable


class ToolError(Exception):
    """A failure to report as one line "PROG: message" (exit status 1)."""


class UsageError(ToolError):
    """A bad argument (exit status 2)."""


class SmartError(ToolError):
    """A problem of the S.M.A.R.T. tools (smart-sample, smart-diff,
    endurance-compare) the user must fix; they print it and exit 2."""


def main_wrapper(prog: str, fn: Callable[[], int | None]) -> int:
    """Run fn(); print ToolError as one line and map it to an exit status."""
    try:
        return fn() or 0
    except UsageError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    except ToolError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 1
    except MemoryError:
        print("%s: out of memory" % prog, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("%s: interrupted" % prog, file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
