"""plc_common: the errors, size parsing and size formatting every trace tool
shares.

Why it exists: gen-trace, replay and experiment reproduce the PLC-Cache
paper's evaluation (section V) on a store built by destor, and must fail,
read sizes and print sizes the same way.  Their shared code is split by
purpose: this file (errors and sizes), plc_progress (the progress bar),
plc_destor (running destor, its settings), plc_trace (drawing a trace),
plc_replay (one replay and its result rows) and plc_results (CSV, JSON and
Markdown output).  The scripts are thin command lines over them and the
tests import them by path.

Units: bytes are bytes; "MiB"/"GiB" are powers of 1024; latencies in rows
are milliseconds; lifetimes are days of 86,400 s.  The device model's MB/s
are 10^6 bytes a second, as in destor (src/cache/core/device_model.h).

Standard library only, as are all the plc_* modules (experiment imports
matplotlib itself).
"""

import re
import sys

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB


class ToolError(Exception):
    """A failure to report as one line "PROG: message" (exit status 1)."""


class UsageError(ToolError):
    """A bad argument (exit status 2)."""


def main_wrapper(prog, fn):
    """Run fn(); print ToolError as one line and map it to an exit status."""
    try:
        return fn() or 0
    except UsageError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    except ToolError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("%s: interrupted" % prog, file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


def option_values(ap, argv):
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


# ---------------------------------------------------------------- sizes

_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([kmgtKMGT]?)(?:i?[bB])?\s*$")
_UNITS = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": TIB}


def parse_size(text):
    """'4096', '512K', '1.5G', '2M' -> bytes (powers of 1024)."""
    m = _SIZE_RE.match(text or "")
    if not m and _SIZE_RE.match((text or "").replace("-", "", 1)):
        raise UsageError("a size cannot be negative: %r" % text)
    if not m:
        raise UsageError("invalid size %r (expected a number with an optional K/M/G/T suffix)" % text)
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def parse_budget(text, job_bytes):
    """--bytes: a size, or 'Nx' meaning N times the job's file bytes (the
    paper read 520 GB over a 200 GB set, i.e. 2.6x)."""
    t = (text or "").strip()
    if t.lower().endswith("x"):
        try:
            factor = float(t[:-1])
        except ValueError:
            raise UsageError("invalid budget %r (expected a size like 6G or a multiple like 2.6x)" % text)
        if not factor > 0:
            raise UsageError("budget multiple must be above 0: %r" % text)
        return int(factor * job_bytes)
    return parse_size(t)


def format_bytes(n):
    """Human-readable binary size: '1.50 GiB'."""
    if n is None:
        return "-"
    n = float(n)
    for unit, scale in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if abs(n) >= scale:
            return "%.2f %s" % (n / scale, unit)
    return "%d B" % n


def size_label(n):
    """Compact container-size label: 131072 -> '128K', 2097152 -> '2M'."""
    for unit, scale in (("G", GIB), ("M", MIB), ("K", KIB)):
        if n >= scale and n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return str(n)
