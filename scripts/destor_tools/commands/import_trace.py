# SPDX-License-Identifier: GPL-3.0-or-later
# import-trace: turn a published block or object trace into a destor
# read-file trace over one job's files.  It exists because the synthetic
# Zipf workload of gen-trace is not what the field measures policies on:
# MSR Cambridge and FIU block traces, libCacheSim csv and oracleGeneral
# object traces and plain lists of object ids can be replayed against our
# store this way.  The readers and mappings are in trace_import.py.

import argparse
import os
import shutil
import sys
import tempfile

from destor_tools.errors import ToolError, UsageError, main_wrapper
from destor_tools.options import option_values
from destor_tools.sizes import parse_size
from destor_tools import destor_runner
from destor_tools import output_file
from destor_tools import trace_import

PROG = "import-trace"


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Map the requests of a block or object trace onto the regular files of job JOB "
                    "of a destor store and write a trace destor read-file --trace replays.",
        epilog="Formats: msr (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime; bytes), "
               "fiu (ts pid process lba size op major minor md5; 512-byte sectors), lis (the ARC "
               "paper's traces: START COUNT IGNORED REQNO, 512-byte blocks, all reads), spc "
               "(UMass/SPC: ASU,LBA,SIZE,OPCODE,TIMESTAMP; LBA in 512-byte sectors, SIZE in bytes), "
               "csv (libCacheSim "
               "csv; --csv-spec names the columns as cachesim's -t does), oracle-general "
               "(libCacheSim's 24-byte binary records) and txt (one object id per line).  "
               "--map volume lays the job's files end to end in path order and turns each request's "
               "byte range into range reads (JOB<TAB>PATH<TAB>OFFSET<TAB>LENGTH) of the files it "
               "covers, wrapping past the end; --map object gives each distinct object id (block "
               "formats: each distinct block of --block-size bytes) one file by a seeded "
               "permutation and reads it whole.  The output starts with '#' header lines that "
               "record source, format, mapping, seed and counts.")
    ap.add_argument("source", help="the trace to import (gzip, xz or bzip2 compressed too)")
    ap.add_argument("--format", "-f", required=True, choices=trace_import.FORMATS, help="its format")
    ap.add_argument("--map", dest="mapping", choices=("volume", "object"),
                    help="volume (block formats' default) or object (the only mapping of the "
                         "object formats)")
    ap.add_argument("--csv-spec", "-t", metavar="SPEC",
                    help="csv columns, 1-based, as cachesim -t: 'time-col=1,obj-id-col=2,"
                         "obj-size-col=3,op-col=4,delimiter=,,has-header=true' (obj-id-col needed)")
    ap.add_argument("--writes", choices=("skip", "as-reads"), default="skip",
                    help="writes in the trace: skipped (default) or replayed as reads")
    ap.add_argument("--times", choices=("keep", "drop"), default="keep",
                    help="the requests' times, where the format has them (msr, fiu, spc, oracle-general, csv "
                         "with time-col): kept as '@SECONDS' before each record, seconds since the first "
                         "request (default), or dropped")
    ap.add_argument("--seed", type=int, default=1, help="seed of --map object's permutation (default 1)")
    ap.add_argument("--block-size", default="4K",
                    help="block of a block trace that --map object turns into one file (default 4K)")
    ap.add_argument("--job", type=int, default=0, help="job whose files are read (default 0)")
    ap.add_argument("--config", "-c", metavar="FILE", help="destor config file")
    ap.add_argument("-p", dest="params", action="append", default=[], metavar='"KEY VALUE"',
                    help="destor config override (repeatable)")
    ap.add_argument("--destor", default=destor_runner.default_destor(),
                    help=destor_runner.DESTOR_HELP)
    ap.add_argument("--out", "-o", metavar="FILE", help="output file (default standard output)")
    ap.add_argument("--null", "-0", action="store_true",
                    help="end records with NUL (read-file --trace --null), keeping paths with newlines")
    ap.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    a = ap.parse_args(option_values(ap, argv))
    block = a.format in trace_import.BLOCK_FORMATS
    if a.mapping is None:
        a.mapping = "volume" if block else "object"
    if a.mapping == "volume" and not block:
        ap.error("--map volume needs byte ranges: use it with %s (object traces take --map object)"
                 % ", ".join(trace_import.BLOCK_FORMATS))
    if a.format == "csv" and not a.csv_spec:
        ap.error("--format csv needs --csv-spec (at least obj-id-col=N)")
    if a.csv_spec and a.format != "csv":
        ap.error("--csv-spec applies to --format csv only")
    if a.job < 0:
        ap.error("--job must not be negative")
    text = a.block_size
    try:
        a.block_size = parse_size(text)
    except UsageError as e:
        ap.error("--block-size: %s" % e)
    if a.block_size <= 0:
        ap.error("--block-size must be at least 1 byte, got %r" % text)
    try:
        if a.csv_spec:
            trace_import.parse_csv_spec(a.csv_spec)
    except UsageError as e:
        ap.error(str(e))
    return a


def run(argv: list[str]) -> int:
    a = parse_args(argv)
    # a pipe too (import-trace -f msr <(zcat ...)): only a name that is no
    # file at all, or a directory, is refused here
    if not os.path.exists(a.source):
        raise ToolError("trace %s not found" % a.source)
    if os.path.isdir(a.source):
        raise ToolError("trace %s is a directory" % a.source)
    destor_runner.check_destor(a.destor)
    files, skipped = destor_runner.list_job_files(a.destor, a.job, a.config, a.params, a.null)
    requests = trace_import.open_requests(a.source, a.format, a.csv_spec, a.block_size)
    end = b"\0" if a.null else b"\n"
    # the header holds the counts, so the records wait in a temporary file
    try:
        with tempfile.TemporaryFile() as body:
            counts = trace_import.import_trace(requests, files, a.job, a.mapping, a.seed, a.writes, body, end,
                                               a.times == "keep")
            head = trace_import.header(os.path.basename(a.source), a.format, a.mapping, a.seed, a.writes,
                                     a.job, files, counts, a.csv_spec, a.block_size, end.decode())

            def write(out):
                body.seek(0)
                out.write(head)
                shutil.copyfileobj(body, out, 1 << 20)
            if a.out:
                output_file.write_replacing(a.out, write)
            else:
                with open(sys.stdout.fileno(), "wb", closefd=False) as out:
                    write(out)
    except OSError as e:
        raise ToolError("cannot write %s: %s" % (a.out or "standard output", e.strerror or e))
    if skipped:
        print("%s: %d file(s) of job %d whose path holds a newline or CR left out (--null keeps them)"
              % (PROG, skipped, a.job), file=sys.stderr)
    if not a.quiet:
        print("%s: %d requests in (%d reads, %d writes %s), %d records out over %d files of job %d "
              "(--map %s%s)" % (PROG, counts["requests_in"], counts["reads"], counts["writes"],
                                "as reads" if a.writes == "as-reads" else "skipped",
                                counts["records_out"], len(files), a.job, a.mapping,
                                ", timed" if counts["timed"] else ""), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command: argv, or the process's arguments when None."""
    return main_wrapper(PROG, lambda: run(sys.argv[1:] if argv is None else argv))
