# SPDX-License-Identifier: GPL-3.0-or-later
"""options: what the commands do to argv before argparse reads it.

Why it exists: every command takes numeric options, and a negative value
('--block-size -4096') must reach the option's own check, which says what
is wrong with it, instead of argparse's "expected one argument".
"""

import argparse
import re


def option_values(ap: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """argv with an option that takes one value joined to a following value
    that starts with '-' and a digit or dot ('--block-size -4096' becomes
    '--block-size=-4096'), unless that is an option of `ap` ('-0').
    argparse would take such a value for an option and say only "expected
    one argument"; joined, it reaches the option's own check, which says
    what is wrong with it.  Everything after '--' is left alone."""
    one_value = {s for act in ap._actions if act.nargs is None for s in act.option_strings}
    out = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out += argv[i:]
            break
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if (arg in one_value and nxt is not None and re.match(r"-[0-9.]", nxt)
                and nxt not in ap._option_string_actions):
            out.append(arg + ("=" if arg.startswith("--") else "") + nxt)
            i += 2
            continue
        out.append(arg)
        i += 1
    return out
