# SPDX-License-Identifier: GPL-3.0-or-later
# gen-trace: write a trace of file reads over one job of a destor store, in
# the format `destor read-file --trace` replays.  It exists because the
# PLC-Cache paper's evaluation (section V) drives the cache with a synthetic
# trace that reads the stored files at random under a Zipf distribution,
# equation (1): P(i) proportional to 1/i^(1-alpha) over the job's F regular
# files, with the file of rank i chosen by a seeded random permutation.  A
# uniform distribution, a byte budget instead of a request count (the paper
# read 520 GB over a 200 GB set) and a moving popular set (working-set
# shift) are there to test the policies beyond the paper's one workload.
# --versions draws the multi-version workload instead (issue 39): reads
# spread over the newest jobs of a store holding versions of one tree,
# newer versions read more, a path as popular in every version.
# The same seed and store give the same trace, byte for byte.

import argparse
import sys

from destor_tools.errors import ToolError, UsageError, main_wrapper
from destor_tools.formatting import format_bytes
from destor_tools.options import option_values
from destor_tools.sizes import parse_budget
from destor_tools import destor_runner
from destor_tools import output_file
from destor_tools import trace_draw

PROG = "gen-trace"


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Write a Zipf or uniform trace of file reads over job JOB of a destor store, or over "
                    "its newest K jobs with --versions (one 'JOB<TAB>PATH' line per request, '#' header "
                    "comments).",
        epilog="Files are listed with 'destor list JOB --null'; only regular files are requested, "
               "and paths holding a newline or CR are skipped unless --null (a trace line cannot "
               "hold them; the count is printed on stderr).  Sizes: K/M/G/T are powers of 1024.")
    ap.add_argument("--job", type=int, help="job id whose files are read (default 0)")
    ap.add_argument("--versions", type=int, metavar="K",
                    help="multi-version workload over the K newest live jobs instead of one job: the version "
                         "of age rank i (the newest is 1) is drawn with P(i) ~ 1/i^(1-VERSION_ALPHA), then a "
                         "file of it by equation (1) at --alpha, its paths ranked by one seeded permutation of "
                         "every version's paths, so a path is as popular in every version that has it; "
                         "--bytes multiples are of all K versions' file bytes")
    ap.add_argument("--version-alpha", type=float, metavar="VERSION_ALPHA",
                    help="with --versions: equation (1)'s parameter over version ages (default 0, classic "
                         "Zipf: the k-th newest version is read 1/k as often as the newest)")
    ap.add_argument("--dist", choices=trace_draw.DISTRIBUTIONS, default="zipf",
                    help="popularity distribution (default zipf; recency: the LRU stack model, "
                         "the rank of equation (1) counted in files requested since)")
    ap.add_argument("--alpha", type=float, default=0.47,
                    help="Zipf parameter in [0, 1] of equation (1): P(i) ~ 1/i^(1-alpha); "
                         "0 is classic Zipf, 1 is uniform (default 0.47, the paper's)")
    ap.add_argument("--requests", type=int, metavar="N", help="number of requests")
    ap.add_argument("--bytes", metavar="BUDGET",
                    help="stop before the bytes read would exceed BUDGET: a size (520G) or a "
                         "multiple of the job's file bytes (2.6x); with --requests, whichever "
                         "comes first")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--rate", metavar="R",
                    help="give each request a time ('@SECONDS' first), R requests a second evenly spaced from "
                         "0: request k at k/R seconds, to the nanosecond below (the clock a DWPD write budget, "
                         "ssd-cache-write-budget-dwpd, is credited by); default: no times")
    ap.add_argument("--shift-every", type=int, metavar="K",
                    help="working-set shift: draw a new rank->file permutation every K requests, "
                         "so the popular set moves")
    ap.add_argument("--config", "-c", metavar="FILE", help="destor config file")
    ap.add_argument("-p", dest="params", action="append", default=[], metavar='"KEY VALUE"',
                    help="destor config override (repeatable)")
    ap.add_argument("--destor", default=destor_runner.default_destor(),
                    help=destor_runner.DESTOR_HELP)
    ap.add_argument("--out", "-o", metavar="FILE", help="output file (default standard output)")
    ap.add_argument("--ranks", metavar="FILE",
                    help="also write which file got which rank: FIRST_REQUEST<TAB>RANK<TAB>SIZE<TAB>PATH "
                         "per file, for the first permutation and after every shift")
    ap.add_argument("--null", "-0", action="store_true",
                    help="end records with NUL instead of newline, so paths holding newlines are kept "
                         "(destor read-file --trace --null reads it; replay detects it)")
    ap.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    a = ap.parse_args(option_values(ap, argv))
    if a.requests is None and a.bytes is None:
        ap.error("give --requests N or --bytes BUDGET (or both)")
    if not 0.0 <= a.alpha <= 1.0:
        ap.error("--alpha must be in [0, 1]")
    if a.requests is not None and a.requests < 0:
        ap.error("--requests must not be negative")
    try:
        if a.bytes is not None:
            parse_budget(a.bytes, 1)
    except UsageError as e:
        ap.error("--bytes: %s" % e)
    try:
        if a.rate is not None:
            trace_draw.parse_rate(a.rate)
    except UsageError as e:
        ap.error("--rate: %s" % e)
    if a.shift_every is not None and a.shift_every <= 0:
        ap.error("--shift-every must be positive")
    if a.versions is None:
        if a.version_alpha is not None:
            ap.error("--version-alpha applies only with --versions")
        a.job = 0 if a.job is None else a.job
        if a.job < 0:
            ap.error("--job must not be negative")
        return a
    if a.versions <= 0:
        ap.error("--versions must be positive")
    a.version_alpha = 0.0 if a.version_alpha is None else a.version_alpha
    if not 0.0 <= a.version_alpha <= 1.0:
        ap.error("--version-alpha must be in [0, 1]")
    for given, name in ((a.job is not None, "--job"), (a.dist != "zipf", "--dist"),
                        (a.shift_every is not None, "--shift-every"), (a.ranks is not None, "--ranks")):
        if given:
            ap.error("%s does not apply with --versions" % name)
    return a


def run(argv: list[str]) -> int:
    a = parse_args(argv)
    destor_runner.check_destor(a.destor)
    if a.versions is not None:
        data, info = trace_draw.make_multiversion_trace(a.destor, a.versions, a.alpha, a.version_alpha, a.seed,
                                                        a.requests, a.bytes, a.config, a.params, a.null, a.rate)
    else:
        data, info = trace_draw.make_trace(a.destor, a.job, a.dist, a.alpha, a.seed, a.requests, a.bytes,
                                          a.shift_every, a.config, a.params, want_ranks=bool(a.ranks),
                                          null=a.null, rate=a.rate)
    if a.out:
        try:
            output_file.write_replacing(a.out, lambda f: f.write(data))
        except OSError as e:
            raise ToolError("cannot write %s: %s" % (a.out, e))
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    if a.ranks:
        try:
            with open(a.ranks, "wb") as f:
                f.write(info["ranks"])
        except OSError as e:
            raise ToolError("cannot write %s: %s" % (a.ranks, e))
    what = "job %d" % a.job if a.versions is None else "jobs %s" % ",".join(str(j) for j in info["jobs"])
    if info["skipped_files"]:
        print("%s: skipped %d file(s) of %s whose path holds a newline or CR (--null keeps them)"
              % (PROG, info["skipped_files"], what), file=sys.stderr)
    if a.versions is not None:
        if not a.quiet:
            print("%s: %d requests, %s, over %d of %d files of %s (multi-version, version alpha %g, alpha %g; "
                  "requests per job, oldest first: %s)"
                  % (PROG, info["requests"], format_bytes(info["bytes"]), info["distinct_files"], info["files"],
                     what, a.version_alpha, a.alpha, " ".join(str(n) for n in info["requests_per_job"])),
                  file=sys.stderr)
        return 0
    if not a.quiet:
        print("%s: %d requests, %s, over %d of %d files of job %d (%s%s)"
              % (PROG, info["requests"], format_bytes(info["bytes"]), info["distinct_files"],
                 info["files"], a.job,
                 "uniform" if a.dist == "uniform" else "%s alpha %g" % (a.dist, a.alpha),
                 ", %d shifts" % info["shifts"] if info["shifts"] else ""), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    return main_wrapper(PROG, lambda: run(sys.argv[1:] if argv is None else argv))
