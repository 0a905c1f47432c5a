# SPDX-License-Identifier: GPL-3.0-or-later
# smart-diff: compare two wear samples of one SSD (smart-sample CSV files or
# saved `smartctl --json -a` output) and report host and NAND bytes written,
# write amplification, wear, write rate and projected lifetime, as the paper
# did from S.M.A.R.T. readings (section V.C.3) and its Table 1.

import argparse
import json
import sys

from destor_tools.errors import SmartError
from destor_tools.sizes import parse_rated_size
from destor_tools.units import UNITS
from destor_tools import smart_samples
from destor_tools import smart_diff

PROG = "smart-diff"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Difference between two wear samples of one drive. "
        "BEFORE's first sample is compared with AFTER's last (give the same "
        "CSV twice to span a whole smart-sample run).",
        epilog="Units: binary by default, as the paper counts (1 GB = 1024 "
        "MB, shown as GiB/MiB); a day is 86,400 s.")
    p.add_argument("before", metavar="BEFORE",
                   help="smart-sample CSV or smartctl --json -a output")
    p.add_argument("after", metavar="AFTER",
                   help="smart-sample CSV or smartctl --json -a output")
    p.add_argument("--tbw", metavar="TB",
                   help="rated endurance: a number of TB, or with a unit; "
                   "TB/GB are decimal (600TB = 600 x 10^12 bytes, as "
                   "datasheets rate it), TiB/GiB binary (150TiB, 36500GiB)")
    p.add_argument("--units", choices=sorted(UNITS),
                   default="binary",
                   help="how the table prints bytes: binary (GiB, MiB/s; "
                   "the paper's 1 GB = 1024 MB; default) or decimal (GB, "
                   "MB/s)")
    p.add_argument("--format", choices=["both", "table", "json"],
                   default="both",
                   help="print a table, JSON, or the table then JSON "
                   "(default)")
    p.add_argument("--json", dest="format", action="store_const",
                   const="json", help="print the JSON document alone "
                   "(same as --format json)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    if argv is None:
        argv = sys.argv[1:]
    args = parse_args(argv)
    try:
        tbw = (parse_rated_size(args.tbw)
               if args.tbw is not None else None)
        before = smart_samples.read_samples(args.before)
        after = smart_samples.read_samples(args.after)
        for name, samples in ((args.before, before), (args.after, after)):
            ids = {smart_samples.identity(s) for s in samples}
            if len(ids) > 1:
                raise SmartError(
                    "%s mixes samples of several drives (%s)"
                    % (name, ", ".join(sorted(str(i) for i in ids))))
        res = smart_diff.diff_samples(before[0], after[-1], tbw, args.units)
    except SmartError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if args.format in ("both", "table"):
        print(smart_diff.format_rows(smart_diff.diff_table(res, args.units)))
        if res["missing"]:
            print("not available: %s" % ", ".join(res["missing"]))
        for w in res["warnings"]:
            print("warning: %s" % w)
        for n in res["notes"]:
            print("note: %s" % n)
    if args.format == "both":
        print()
    if args.format in ("both", "json"):
        print(json.dumps(res, indent=2, sort_keys=True))
    for w in res["warnings"]:
        if args.format == "json":
            print("%s: warning: %s" % (PROG, w), file=sys.stderr)
    return 0
