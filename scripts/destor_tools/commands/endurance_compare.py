# SPDX-License-Identifier: GPL-3.0-or-later
# endurance-compare: replay one trace through destor once per SSD cache
# policy (fifo, lru, lfu, lfu-incache, plc), reading the SSD's wear counters before and
# after each run, and report side by side what destor says it wrote, what
# the device saw, NAND writes and WAF where the drive tells, and projected
# lifetime for a TBW rating -- the paper's endurance comparison (section
# V.C.3, Table 1) as one command.  Output: Markdown table, CSV, bar chart.
# Running destor, the cache directory, the CSV and the progress bar are the
# destor_tools modules replay and experiment use.

import argparse
import json
import os
import re
import subprocess
import sys
import time
from typing import Any, Sequence

from destor_tools.errors import SmartError, ToolError, UsageError
from destor_tools.formatting import smart_bytes
from destor_tools.options import option_values
from destor_tools.sizes import parse_rated_size
from destor_tools.units import UNITS, unit_bytes, unit_label
from destor_tools.wear import lifetime_days, write_rate
from destor_tools import smart_ctl
from destor_tools import smart_sysfs
from destor_tools import smart_samples
from destor_tools import smart_diff
from destor_tools import destor_runner
from destor_tools import plot_style
from destor_tools import progress_bar
from destor_tools import policy_replay
from destor_tools import result_files
from destor_tools import trace_draw

PROG = "endurance-compare"
MARKER = ".endurance-compare-cache"
MISMATCH = 0.10           # warn when destor and device differ by more
RESULT_COLUMNS = [
    "rank", "policy", "status", "run_seconds", "destor_bytes_written",
    "device_bytes_written", "device_source", "smart_host_bytes_written",
    "kernel_bytes_written", "nand_bytes_written", "nand_bytes_estimate",
    "waf", "waf_method",
    "write_rate_bytes_per_s", "tbw_bytes", "lifetime_days",
    "life_used_pct_change", "fstrim", "warnings",
]


def say(msg: str) -> None:
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)


class Fatal(Exception):
    pass


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Replay TRACE through destor with each SSD cache policy "
        "and compare the writes the SSD saw (S.M.A.R.T. and kernel "
        "counters), WAF and projected lifetime.  See docs/SMART.md.",
        epilog="Units: binary by default, as the paper counts (1 GB = 1024 "
        "MB, shown as GiB/MiB); a day is 86,400 s.")
    p.add_argument("trace", metavar="TRACE", help="trace file to replay")
    p.add_argument("--device", required=True, metavar="DEV",
                   help="the SSD holding --cache-dir, e.g. /dev/nvme0n1")
    p.add_argument("--cache-dir", required=True, metavar="DIR",
                   help="SSD cache directory (emptied before each policy)")
    p.add_argument("--policies", default="fifo,lru,lfu,plc",
                   help="comma-separated policies (default fifo,lru,lfu,plc)")
    p.add_argument("--destor", default=destor_runner.default_destor(), metavar="PATH",
                   help=destor_runner.DESTOR_HELP)
    p.add_argument("--config", "-c", metavar="FILE",
                   help="destor configuration (default: destor's own)")
    p.add_argument("-p", dest="params", action="append", default=[],
                   metavar='"KEY VALUE"',
                   help="extra destor config line for every run (repeatable)")
    p.add_argument("--cache-size", default="20%",
                   help="ssd-cache-size: N containers, a size like 4G, or a "
                   "share of the stored containers like 20%% (default 20%%)")
    p.add_argument("--tbw", metavar="TB",
                   help="rated endurance for the lifetime column: a number "
                   "of TB, or with a unit; TB/GB are decimal (600TB), "
                   "TiB/GiB binary (600TiB)")
    p.add_argument("--units", choices=sorted(UNITS),
                   default="binary",
                   help="binary: 1 GB = 1024 MB as the paper counts "
                   "(default); decimal: powers of 1000")
    p.add_argument("--out-dir", metavar="DIR",
                   help="where results go (default ./endurance-YYYYmmdd-"
                   "HHMMSS)")
    p.add_argument("--settle", type=float, default=5.0, metavar="SEC",
                   help="wait after sync before each sample, for the drive "
                   "to update its counters (default 5)")
    p.add_argument("--buffered", action="store_true",
                   help="let the cache write through the page cache instead "
                   "of with O_DIRECT (the device then sees merged rewrites)")
    p.add_argument("--trim", action="store_true",
                   help="run fstrim on the filesystem holding --cache-dir "
                   "before each policy (and on no other filesystem)")
    p.add_argument("--wipe-cache-dir", action="store_true",
                   help="allow emptying a non-empty --cache-dir this tool "
                   "did not create")
    p.add_argument("--smartctl", metavar="PATH",
                   help="smartctl to run (default: $SMARTCTL, PATH, "
                   "/usr/sbin)")
    p.add_argument("-d", "--type", dest="dev_type", metavar="TYPE",
                   help="smartctl device type, e.g. sat")
    p.add_argument("--format", dest="formats", default="png",
                   help="chart formats, comma-separated from png, pdf, svg "
                   "(default png)")
    p.add_argument("--progress", dest="progress", action="store_true",
                   default=None, help="draw the progress bar even when "
                   "stderr is not a terminal")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never draw the progress bar")
    args = p.parse_args(option_values(p, argv))
    try:
        policy_replay.check_cache_size(args.cache_size)
        args.formats = plot_style.parse_formats(args.formats)
    except UsageError as e:
        p.error(str(e))
    args.policies = [x.strip() for x in args.policies.split(",") if x.strip()]
    if not args.policies:
        p.error("--policies is empty")
    for pol in args.policies:
        if not re.match(r"^[A-Za-z0-9_-]+$", pol):
            p.error("bad policy name %r" % pol)
    if len(set(args.policies)) != len(args.policies):
        p.error("a policy is listed twice in --policies")
    if not args.settle >= 0:
        p.error("--settle must be 0 or more seconds")
    return args


# ---------------------------------------------------------------------------
# The cache directory and its filesystem

def prepare_cache_dir(path: str, wipe_ok: bool) -> None:
    """Create or empty DIR (policy_replay's rules, with this tool's marker)."""
    try:
        policy_replay.prepare_cache_dir(
            path, MARKER, PROG, wipe_ok,
            "everything in it is deleted before each policy, so pass "
            "--wipe-cache-dir if that is intended")
    except ToolError as e:
        raise Fatal(str(e))


def mount_point(path: str) -> str:
    p = os.path.realpath(path)
    while not os.path.ismount(p):
        p = os.path.dirname(p)
    return p


def fstrim(path: str) -> str:
    """Trim the filesystem holding PATH (only it); a note for the report."""
    tool = smart_ctl.find_tool("fstrim")
    mnt = mount_point(path)
    if tool is None:
        return "skipped: fstrim not found"
    try:
        proc = subprocess.run([tool, mnt], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "skipped: %s" % e
    if proc.returncode != 0:
        text = proc.stdout.decode("utf-8", "replace").strip()
        text = text.splitlines()[-1] if text else "exit %d" % proc.returncode
        return "skipped: %s" % text
    return "trimmed %s" % mnt


# ---------------------------------------------------------------------------
# Running destor

def destor_prefix(args: argparse.Namespace, policy: str) -> list[str]:
    """destor [-c CONFIG] -p ... for one policy.  Unless --buffered, the
    cache writes with O_DIRECT: through the page cache, rewrites of the
    same slot merge before they reach the device, and a cache smaller than
    RAM shows the device a fraction of what the policy wrote."""
    params = list(args.params) + ["ssd-cache-policy %s" % policy,
                                  "ssd-cache-size %s" % args.cache_size,
                                  destor_runner.config_line("ssd-cache-directory", args.cache_dir)]
    if not args.buffered:
        params.append("ssd-cache-o-direct yes")
    return destor_runner.destor_base(args.destor, args.config, params)


def parse_destor_summary(text: str) -> tuple[int, dict[str, Any]]:
    """The JSON summary destor prints: the whole output, or its last line
    that is a JSON object.  The SSD cache's counters are in its "cache"
    object.  Returns cache.ssd_bytes_written and the document."""
    doc = None
    try:
        doc = json.loads(text)
    except ValueError:
        for line in reversed(text.strip().splitlines()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    doc = json.loads(line)
                    break
                except ValueError:
                    continue
    if not isinstance(doc, dict):
        raise Fatal("destor printed no JSON summary")
    cache = doc.get("cache")
    n = cache.get("ssd_bytes_written") if isinstance(cache, dict) else None
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise Fatal("destor's JSON summary has no ssd_bytes_written count "
                    "(got %r); is this destor built with the SSD cache?"
                    % (n,))
    return n, doc


# ---------------------------------------------------------------------------
# One policy

def run_policy(policy: str, args: argparse.Namespace, ctx: dict[str, Any]) -> tuple[dict[str, Any],
               list[dict[str, Any]], list[str]]:
    row: dict[str, Any] = {c: None for c in RESULT_COLUMNS}
    row["policy"] = policy
    warnings: list[str] = []
    try:
        prepare_cache_dir(args.cache_dir, True)
    except Fatal as e:
        row["status"] = "failed: %s" % e
        return row, [], warnings
    os.sync()
    row["fstrim"] = fstrim(args.cache_dir) if args.trim else "off"
    time.sleep(args.settle)
    before = ctx["sample"]()
    log_path = os.path.join(args.out_dir, "destor-%s.log" % policy)
    progress = ctx["progress"]
    progress.set_label("policy %s" % policy)
    base = progress.done
    t0 = time.monotonic()
    failure = None
    out_text = ""
    try:
        with open(log_path, "wb") as log:
            out = policy_replay.run_read_file(
                destor_prefix(args, policy), args.trace, False, progress, base,
                "destor read-file (policy %s)" % policy, log=log, raw=True)
        out_text = out.decode("utf-8", "replace")
    except ToolError as e:
        failure = str(e)
    progress.update(base + ctx["lines"])
    row["run_seconds"] = time.monotonic() - t0
    with open(os.path.join(args.out_dir, "destor-%s.json" % policy),
              "w") as f:
        f.write(out_text)
    os.sync()
    time.sleep(args.settle)
    after = ctx["sample"]()
    if failure:
        row["status"] = "failed: %s" % failure
        return row, [before, after], warnings
    try:
        row["destor_bytes_written"], _ = parse_destor_summary(out_text)
    except Fatal as e:
        row["status"] = "failed: %s" % e
        return row, [before, after], warnings
    try:
        d = smart_diff.diff_samples(before, after, ctx["tbw"], args.units,
                                    seconds=row["run_seconds"])
    except SmartError as e:
        row["status"] = "failed: %s" % e
        return row, [before, after], warnings
    warnings.extend(d["warnings"])
    row["status"] = "ok"
    row["device_bytes_written"] = d["host_bytes_written"]
    row["device_source"] = d["host_source"]
    row["smart_host_bytes_written"] = d["smart_host_bytes_written"]
    row["kernel_bytes_written"] = d["kernel_bytes_written"]
    row["nand_bytes_written"] = d["nand_bytes_written"]
    row["nand_bytes_estimate"] = d["nand_bytes_estimate"]
    row["waf"], row["waf_method"] = d["waf"], d["waf_method"]
    row["write_rate_bytes_per_s"] = d["write_rate_bytes_per_s"]
    row["tbw_bytes"] = ctx["tbw"]
    row["lifetime_days"] = d["lifetime_days_tbw"]
    row["life_used_pct_change"] = d["life_used_pct_change"]
    mismatch = compare_counts(row["destor_bytes_written"],
                              row["device_bytes_written"],
                              after.get("host_write_unit")
                              if d["host_source"] == "smart" else None,
                              args.units)
    if mismatch:
        warnings.append(mismatch)
    return row, [before, after], warnings


def compare_counts(destor: float | None, device: float | None, resolution: float | None,
                   units: str) -> str | None:
    """A warning when destor's count and the device's differ by more than
    10% (beyond one step of a coarse device counter)."""
    if destor is None or device is None:
        return None
    slack = max(MISMATCH * destor, resolution or 0)
    if abs(device - destor) <= slack:
        return None
    rel = ("%+.0f%%" % (100.0 * (device - destor) / destor)) if destor \
        else "destor wrote nothing"
    why = ("other writers on the device, or filesystem overhead" if device > destor
           else "rewrites merged in the page cache before reaching the device "
           "(a buffered run?), or a device counter that lags")
    return ("destor wrote %s but the device saw %s (%s): %s" % (
                smart_bytes(destor, units, digits=2),
                smart_bytes(device, units, digits=2), rel, why))


# ---------------------------------------------------------------------------
# Reports

def mib(n: float | None, units: str) -> float | None:
    return None if n is None else n / unit_bytes(2, units)


def markdown_table(rows: list[dict[str, Any]], units: str, tbw: int | None) -> str:
    mb = unit_label(2, units)
    head = ["Rank", "Policy", "destor wrote (%s)" % mb,
            "device host writes (%s)" % mb, "NAND writes (%s)" % mb, "WAF",
            "run time (s)", "write rate (%s/s)" % mb]
    if tbw:
        head.append("lifetime (days, TBW %s)" %
                    smart_bytes(tbw, units, digits=2))
    head.append("status")
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(head) - 2) + ["---"])
             + "|"]
    for r in rows:
        rate = r["write_rate_bytes_per_s"]
        cells = [str(r["rank"] or "-"), r["policy"],
                 smart_diff.fmt_num(mib(r["destor_bytes_written"], units), 1),
                 smart_diff.fmt_num(mib(r["device_bytes_written"], units), 1) +
                 (" (%s)" % r["device_source"] if r["device_source"] else ""),
                 nand_cell(r, units),
                 smart_diff.fmt_num(r["waf"], 3),
                 smart_diff.fmt_num(r["run_seconds"], 1),
                 smart_diff.fmt_num(mib(rate, units), 2)]
        if tbw:
            cells.append(smart_diff.fmt_num(r["lifetime_days"], 1))
        cells.append(r["status"] or "")
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells)
                     + " |")
    return "\n".join(lines)


def nand_cell(r: dict[str, Any], units: str) -> str:
    if r.get("nand_bytes_written") is not None:
        return smart_diff.fmt_num(mib(r["nand_bytes_written"], units), 1)
    if r.get("nand_bytes_estimate") is not None:
        return "~" + smart_diff.fmt_num(mib(r["nand_bytes_estimate"], units),
                                        1)
    return "n/a"


def inflated(row: dict[str, Any]) -> bool:
    """Did the device count more than 10% above what destor wrote?"""
    d, v = row.get("destor_bytes_written"), row.get("device_bytes_written")
    return d is not None and v is not None and v > (1 + MISMATCH) * d


def rank_rows(rows: list[dict[str, Any]]) -> str:
    """Rank the finished policies by bytes written, fewest first: by the
    device's count, unless it exceeds destor's by more than 10% for any
    policy (other writers on the device), then by destor's own count.
    Returns the basis ("device" or "destor")."""
    ok = [r for r in rows if r["status"] == "ok"]
    basis = "destor" if any(inflated(r) for r in ok) or \
        any(r.get("device_bytes_written") is None for r in ok) else "device"
    key = "%s_bytes_written" % basis
    for n, r in enumerate(sorted(ok, key=lambda r: r[key]), 1):
        r["rank"] = n
    rows.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0))
    return basis


def write_csv(path: str, rows: list[dict[str, Any]]) -> None:
    result_files.write_csv(path, [dict(r, warnings="; ".join(r["warnings"] or []))
                                 for r in rows], RESULT_COLUMNS)


def write_chart(outdir: str, rows: list[dict[str, Any]], units: str, tbw: int | None,
                formats: Sequence[str]) -> tuple[list[str], str | None]:
    """Bytes written per policy as destor, the device and the NAND counted
    them (and projected lifetime when TBW is given), in each policy's
    colour of plot_style.  Returns (paths, why skipped or None)."""
    try:
        plt = plot_style.pyplot()
        from matplotlib.patches import Patch
    except ImportError:
        return [], "chart skipped: matplotlib is not installed " \
            "(apt install python3-matplotlib)"
    rows = [r for r in rows if r["status"] == "ok"]
    if not rows:
        return [], "chart skipped: no policy finished"
    mb = unit_label(2, units)
    names = [plot_style.policy_label(r["policy"]) for r in rows]
    colours = [plot_style.policy_style(r["policy"])[0] for r in rows]
    series = [("destor wrote", "destor_bytes_written", ""),
              ("device host writes", "device_bytes_written", "//"),
              ("NAND writes (estimate)", "nand_bytes_estimate", "..")]
    series = [s for s in series if any(r.get(s[1]) is not None for r in rows)]
    panels = 2 if tbw and any(r["lifetime_days"] for r in rows) else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels + 1, 4.5),
                             squeeze=False)
    ax = axes[0][0]
    width = 0.8 / max(1, len(series))
    values = [mib(r.get(key), units) for _, key, _ in series for r in rows]
    decimals = plot_style.decimals_for(values)
    for i, (label, key, hatch) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width
              for j in range(len(names))]
        ys = [mib(r.get(key), units) for r in rows]
        bars = ax.bar(xs, [y or 0 for y in ys], width, color=colours,
                      hatch=hatch, edgecolor="#ffffff")
        plot_style.label_bars(ax, bars, ys, decimals)
    ax.set_ylim(0, max([v for v in values if v] + [1e-9]) * 1.15)
    plot_style.fit_category_ticks(ax, fig, names)
    ax.set_xlabel("SSD cache policy")
    ax.set_ylabel("bytes written to the SSD (%s)" % mb)
    ax.set_title("Bytes written to the SSD per policy")
    ax.legend(handles=[Patch(facecolor="#9a9a9a", hatch=h, edgecolor="#ffffff",
                             label=l) for l, _, h in series], fontsize=8)
    if panels == 2:
        ax2 = axes[0][1]
        days = [r["lifetime_days"] for r in rows]
        bars = ax2.bar(range(len(names)), [d or 0 for d in days], 0.6,
                       color=colours)
        plot_style.label_bars(ax2, bars, days, plot_style.decimals_for(days))
        ax2.set_ylim(0, max([d for d in days if d] + [1e-9]) * 1.15)
        plot_style.fit_category_ticks(ax2, fig, names)
        ax2.set_xlabel("SSD cache policy")
        ax2.set_ylabel("projected lifetime (days)")
        ax2.set_title("Projected SSD lifetime at TBW %s" %
                      smart_bytes(tbw, units, digits=2))
    fig.tight_layout()
    return plot_style.save(fig, outdir, "results", formats), None


def write_reports(args: argparse.Namespace, rows: list[dict[str, Any]], tbw: int | None,
                  notes: list[str]) -> str:
    table = markdown_table(rows, args.units, tbw)
    with open(os.path.join(args.out_dir, "results.md"), "w") as f:
        f.write("# Endurance comparison\n\n")
        f.write("Trace: `%s`; device: `%s`; cache directory: `%s`.\n\n"
                % (args.trace, args.device, args.cache_dir))
        f.write(table + "\n\n")
        f.write("Units: %s; a day is 86,400 s.  Lifetime = TBW / write "
                "rate, the write rate being the device's host writes (or "
                "destor's count when the device has none) over the run "
                "time.\n" % (
                    "1 GiB = 1024 MiB = 2^30 bytes (the paper's 1 GB = 1024 "
                    "MB)" if args.units == "binary" else
                    "1 GB = 1000 MB = 10^9 bytes"))
        if notes:
            f.write("\nNotes:\n\n" + "".join("- %s\n" % n for n in notes))
    write_csv(os.path.join(args.out_dir, "results.csv"), rows)
    return table


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    if argv is None:
        argv = sys.argv[1:]
    args = parse_args(argv)
    try:
        return run(args)
    except Fatal as e:
        say(str(e))
        return 2
    except SmartError as e:
        say(str(e))
        return 2


def run(args: argparse.Namespace) -> int:
    tbw = parse_rated_size(args.tbw) if args.tbw else None
    if not os.path.isfile(args.trace) or not os.access(args.trace, os.R_OK):
        raise Fatal("cannot read trace %s" % args.trace)
    if args.config and not os.path.isfile(args.config):
        raise Fatal("destor configuration %s not found" % args.config)
    try:
        destor_runner.check_destor(args.destor)
        args.policies = destor_runner.resolve_policies(args.destor, args.policies, allow_none=False)
    except ToolError as e:
        raise Fatal(str(e))
    dev = args.device if args.device.startswith("/") else \
        os.path.join("/dev", args.device)
    if not os.path.exists(dev):
        raise Fatal("%s: no such device" % dev)
    args.device = dev
    # destor gets absolute paths: its working directory is ours, but the
    # report should say exactly what was used.
    args.trace = os.path.abspath(args.trace)
    args.config = args.config and os.path.abspath(args.config)
    args.cache_dir = os.path.abspath(args.cache_dir)
    prepare_cache_dir(args.cache_dir, args.wipe_cache_dir)
    if not args.out_dir:
        args.out_dir = time.strftime("endurance-%Y%m%d-%H%M%S")
    try:
        os.makedirs(args.out_dir, exist_ok=True)
    except OSError as e:
        raise Fatal("cannot create %s: %s" % (args.out_dir, e.strerror or e))
    smartctl = smart_ctl.find_tool("smartctl", args.smartctl, "SMARTCTL")
    notes = []
    if smartctl is None:
        where = args.smartctl or os.environ.get("SMARTCTL")
        notes.append("smartctl %s: device writes come from the kernel "
                     "counters only, no NAND writes or WAF"
                     % ("not found at %s" % where if where else
                        "not installed (apt install smartmontools)"))

    def sample():
        return smart_samples.take_sample(dev, smartctl, args.dev_type,
                                         use_smart=smartctl is not None)
    probe = sample()
    for m in probe["messages"]:
        notes.append(m)
    if not smart_samples.has_write_counter(probe):
        raise Fatal("no write counter readable on %s (%s)" % (
            dev, "; ".join(probe["messages"]) or "unknown reason"))
    on_dev = smart_sysfs.path_is_on_device(args.cache_dir, dev)
    if on_dev is False:
        notes.append("%s does not look like it is on %s: the device will "
                     "not see destor's cache writes" % (args.cache_dir, dev))
    elif on_dev is None:
        notes.append("could not check that %s is on %s" % (args.cache_dir,
                                                          dev))
    if smart_sysfs.path_is_on_device("/", dev):
        notes.append("warning: %s also holds the root filesystem: the "
                     "system's own writes add to its count" % dev)
    if tbw:
        notes.append("TBW %s = %d bytes" % (args.tbw, tbw))
    for n in notes:
        say(n)

    lines = trace_draw.trace_lines(args.trace)
    ctx: dict[str, Any] = {"sample": sample, "tbw": tbw, "lines": lines,
           "progress": progress_bar.Progress(lines * len(args.policies),
                                             enabled=args.progress)}
    rows = []
    failed = False
    samples_path = os.path.join(args.out_dir, "samples.csv")
    if os.path.exists(samples_path):
        os.unlink(samples_path)
    appender = smart_samples.CsvAppender(samples_path)
    try:
        for pol in args.policies:
            say("policy %s: running destor" % pol)
            row, samples, warnings = run_policy(pol, args, ctx)
            for s in samples:
                appender.append(s)
            row["warnings"] = warnings
            for w in warnings:
                say("policy %s: warning: %s" % (pol, w))
            if row["status"] != "ok":
                failed = True
                say("policy %s: %s" % (pol, row["status"]))
            rows.append(row)
            write_reports(args, rows, tbw, notes)
    except KeyboardInterrupt:
        ctx["progress"].close()
        destor_runner.stop_children()
        say("interrupted; results so far are in %s" % args.out_dir)
        rank_rows(rows)
        write_reports(args, rows, tbw, notes + ["interrupted"])
        return 130
    finally:
        appender.close()
    ctx["progress"].close()
    # Projected lifetime needs a rate: fall back to destor's own count when
    # the device gave none.
    for r in rows:
        if r["status"] == "ok" and r["write_rate_bytes_per_s"] is None and \
                r["destor_bytes_written"] is not None:
            r["write_rate_bytes_per_s"] = write_rate(
                r["destor_bytes_written"], r["run_seconds"])
            r["lifetime_days"] = lifetime_days(
                tbw, r["write_rate_bytes_per_s"])
            r["device_source"] = r["device_source"] or "none"
    trims = sorted({r["fstrim"] for r in rows
                    if (r["fstrim"] or "").startswith("skipped")})
    for t in trims:
        notes.append("fstrim %s" % t)
        say("fstrim %s" % t)
    for r in rows:
        for w in r["warnings"]:
            notes.append("%s: %s" % (r["policy"], w))
    if rank_rows(rows) == "destor":
        over = [r["policy"] for r in rows if inflated(r)]
        msg = ("the device counted more than 10%% above destor's bytes for "
               "%s: policies are ranked by destor's bytes, the device's "
               "count beside" % ", ".join(over)) if over else \
            "no device count for every policy: ranked by destor's bytes"
        notes.append(msg)
        say(msg)
    table = write_reports(args, rows, tbw, notes)
    charts, why = write_chart(args.out_dir, rows, args.units, tbw,
                              args.formats)
    if why:
        say(why)
    print(table)
    print("\nresults in %s (results.md, results.csv, %s, samples.csv)"
          % (args.out_dir, ", ".join(os.path.basename(c) for c in charts)
             or "no chart"))
    return 1 if failed else 0
