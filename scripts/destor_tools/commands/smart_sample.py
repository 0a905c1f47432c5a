# SPDX-License-Identifier: GPL-3.0-or-later
# smart-sample: record an SSD's wear counters (S.M.A.R.T. via smartctl, and
# the kernel's /sys/block sector counts) as CSV rows, once or every SEC
# seconds, so write amplification can be measured the way the paper did
# (section V.C.3).  Every row is flushed and fsynced as soon as it is taken.

import argparse
import json
import os
import signal
import sys
import time

from destor_tools.errors import SmartError
from destor_tools import smart_ctl
from destor_tools import smart_samples

PROG = "smart-sample"


def say(msg: str) -> None:
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Sample an SSD's wear counters into CSV rows: smartctl "
        "--json -a (smartmontools 7+) plus the kernel's /sys/block/DEV/stat "
        "sector counts, which work without root or S.M.A.R.T.",
        epilog="Bytes are exact byte counts; see docs/SMART.md.")
    p.add_argument("device", metavar="DEVICE",
                   help="block device, e.g. /dev/sda, /dev/nvme0n1 or sda")
    p.add_argument("--interval", type=float, metavar="SEC",
                   help="sample every SEC seconds until stopped (Ctrl-C)")
    p.add_argument("--count", type=int, metavar="N",
                   help="stop after N samples (with --interval)")
    p.add_argument("--out", metavar="FILE.csv",
                   help="append rows to FILE.csv (default: CSV on stdout)")
    p.add_argument("--smartctl", metavar="PATH",
                   help="smartctl to run (default: $SMARTCTL, PATH, "
                   "/usr/sbin)")
    p.add_argument("-d", "--type", dest="dev_type", metavar="TYPE",
                   help="smartctl device type, e.g. sat for USB bridges")
    p.add_argument("--no-smart", action="store_true",
                   help="kernel counters only (no smartctl)")
    p.add_argument("--no-sysfs", action="store_true",
                   help="S.M.A.R.T. only (no /sys/block counters)")
    p.add_argument("--json", action="store_true",
                   help="print each sample as one JSON object per line on "
                   "stdout and nothing else there (with --out the CSV rows "
                   "still go to the file); byte counts are in bytes")
    args = p.parse_args(argv)
    if args.interval is not None and (not args.interval > 0 or
                                      args.interval > 10 ** 7):
        p.error("--interval must be a positive number of seconds")
    if args.count is not None and args.count < 1:
        p.error("--count must be at least 1")
    if args.count and args.count > 1 and args.interval is None:
        p.error("--count above 1 needs --interval")
    if args.no_smart and args.no_sysfs:
        p.error("--no-smart and --no-sysfs leave nothing to sample")
    return args


def device_path(device: str) -> str:
    return device if device.startswith("/") else os.path.join("/dev", device)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    path = device_path(args.device)
    if not os.path.exists(path):
        say("%s: no such device" % path)
        return 2
    smartctl = None
    if not args.no_smart:
        smartctl = smart_ctl.find_tool("smartctl", args.smartctl, "SMARTCTL")
        if smartctl is None:
            where = args.smartctl or os.environ.get("SMARTCTL")
            say("smartctl %s; sampling the kernel counters only"
                % ("not found at %s" % where if where else
                   "not installed (apt install smartmontools)"))

    def sample():
        try:
            return smart_samples.take_sample(path, smartctl, args.dev_type,
                                             use_smart=not args.no_smart,
                                             use_sysfs=not args.no_sysfs)
        except Exception as e:    # keep the rows already taken
            s = smart_ctl.empty_sample()
            s["device"], s["source"] = path, "none"
            s["epoch"] = time.time()
            s["timestamp"] = smart_samples.now_iso(s["epoch"])
            s["missing"] = ["all"]
            s["messages"] = ["internal error while sampling: %r" % (e,)]
            return s

    first = sample()
    if args.out:
        try:
            smart_samples.check_csv_for_append(args.out,
                                               smart_samples.identity(first))
            out = smart_samples.CsvAppender(args.out)
        except SmartError as e:
            say(str(e))
            return 2
        except OSError as e:
            say("cannot write %s: %s" % (args.out, e.strerror or e))
            return 2
    elif not args.json:
        out = smart_samples.CsvAppender(sys.stdout)
    else:
        out = None

    # SIGTERM stops like Ctrl-C; the rows taken so far are already on disk.
    def on_term(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)

    said = set()
    taken = 0
    failed = 0
    status = 0
    s = first
    start = time.monotonic()
    try:
        while True:
            for m in s["messages"]:
                if m not in said:
                    said.add(m)
                    say(m)
            if not smart_samples.has_write_counter(s):
                failed += 1
            try:
                if out is not None:
                    out.append(s)
                if args.json:
                    print(json.dumps(s, sort_keys=True), flush=True)
            except OSError as e:
                say("cannot write %s: %s; stopping after %d samples"
                    % (args.out or "stdout", e.strerror or e, taken))
                return 1
            taken += 1
            if args.out and not args.json:
                print(smart_samples.summary_line(s), flush=True)
            if args.interval is None or (args.count and taken >= args.count):
                break
            # Sleep to the next tick of a fixed grid, so slow smartctl calls
            # do not make the interval drift.
            delay = start + taken * args.interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            s = sample()
    except KeyboardInterrupt:
        say("stopped after %d sample%s" % (taken, "" if taken == 1 else "s"))
    finally:
        if out is not None:
            out.close()
    if failed:
        say("%d of %d samples had no write counter at all" % (failed, taken))
        status = 1
    return status


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        say("interrupted")
        return 130
