# SPDX-License-Identifier: GPL-3.0-or-later
"""trace_import: reading the field's block and object traces and mapping them
onto a job's files as a destor read-file trace.

Why it exists: the PLC-Cache evaluation only had a synthetic Zipf workload;
researchers replay published traces (MSR Cambridge, FIU, the ARC paper's
.lis traces, the UMass/SPC traces, libCacheSim's csv and oracleGeneral
formats, plain lists of object ids).  scripts/import-trace
is the command line; the readers (one generator of Request per format), the
two mappings (volume: byte ranges over the job's files laid end to end;
object: each distinct id becomes one file by a seeded permutation) and the
header of the written trace live here so the tests can check each piece.

A Request is (op, key, offset, length, time): op "r" or "w"; key identifies
the object (block formats: (device, block number)); offset/length are bytes
of a block request (None for object formats); time is the request's time in
nanoseconds on the source's clock, or None for a format that has none (lis,
txt).  The written trace keeps the times (docs/FORMAT.md, '@SECONDS'), from
the source's first request on.
"""

import bisect
import bz2
import collections
import fractions
import gzip
import lzma
import random
import struct
from typing import IO, Any, Callable, Iterable, Iterator, Sequence

from .errors import ToolError, UsageError
from .formatting import format_bytes
from .trace_draw import trace_record

Request = collections.namedtuple("Request", "op key offset length time")
TIMED_FORMATS = ("msr", "fiu", "spc", "csv", "oracle-general")  # csv: with time-col


def _seconds_ns(fmt, n, text):
    """Decimal seconds (the SPC and csv traces' time) in nanoseconds."""
    try:
        value = fractions.Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise _bad(fmt, n, "time %r is not a number of seconds" % text)
    return int(value * 10 ** 9)

FORMATS = ("msr", "fiu", "lis", "spc", "csv", "oracle-general", "txt")
BLOCK_FORMATS = ("msr", "fiu", "lis", "spc")
SECTOR = 512  # FIU, lis and SPC traces count LBAs (lis: sizes too) in 512-byte sectors

# op column values of libCacheSim csv traces read as reads; any other value
# is a write (set, put, add, delete, ...)
READ_OPS = {"r", "read", "get", "gets"}


def _bad(fmt, lineno, why):
    return ToolError("%s trace, record %d: %s" % (fmt, lineno, why))


def read_msr(lines: Iterable[str], block_size: int) -> Iterator[Request]:
    """MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,
    ResponseTime; Timestamp in Windows filetime (100 ns ticks); Type Read or
    Write; Offset and Size in bytes."""
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        f = line.split(",")
        if len(f) != 7:
            raise _bad("msr", n, "expected 7 comma-separated fields, got %d" % len(f))
        kind = f[3].strip().lower()
        if kind not in ("read", "write"):
            raise _bad("msr", n, "type %r is neither Read nor Write" % f[3])
        ts, off, size = _ints("msr", n, (f[0], f[4], f[5]), "timestamp, offset and size")
        yield Request(kind[0], (f[1].strip(), f[2].strip(), off // block_size), off, size, ts * 100)


def read_fiu(lines: Iterable[str], block_size: int) -> Iterator[Request]:
    """FIU SRCMap/IODedup traces: ts pid process lba size op major minor md5,
    whitespace-separated; ts in nanoseconds; lba and size in 512-byte
    sectors; op R or W."""
    for n, line in enumerate(lines, 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 9:
            raise _bad("fiu", n, "expected 9 whitespace-separated fields, got %d" % len(f))
        op = f[5].upper()
        if op not in ("R", "W"):
            raise _bad("fiu", n, "op %r is neither R nor W" % f[5])
        ts, lba, sectors = _ints("fiu", n, (f[0], f[3], f[4]), "ts, lba and size")
        off = lba * SECTOR
        yield Request(op.lower(), (f[6], f[7], off // block_size), off, sectors * SECTOR, ts)


def _ints(fmt, n, fields, what):
    try:
        v = [int(x) for x in fields]
    except ValueError:
        raise _bad(fmt, n, "%s must be integers" % what)
    if any(x < 0 for x in v):
        raise _bad(fmt, n, "negative %s" % what)
    return v


def read_lis(lines: Iterable[str], block_size: int) -> Iterator[Request]:
    """The ARC paper's traces (Megiddo & Modha, FAST 2003; P1..P14, DS1,
    S1..S3, OLTP...): START COUNT IGNORED REQNO, whitespace-separated;
    COUNT 512-byte blocks from block START; every request a read."""
    for n, line in enumerate(lines, 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 4:
            raise _bad("lis", n, "expected 4 whitespace-separated fields, got %d" % len(f))
        start, count = _ints("lis", n, f[:2], "start and count")
        off = start * SECTOR
        yield Request("r", ("lis", off // block_size), off, count * SECTOR, None)


def read_spc(lines: Iterable[str], block_size: int) -> Iterator[Request]:
    """UMass Trace Repository / SPC format (Financial1, WebSearch1, ...):
    ASU,LBA,SIZE,OPCODE,TIMESTAMP and maybe more fields; LBA in 512-byte
    sectors of application-specific unit ASU, SIZE in bytes, OPCODE r or
    w (either case), TIMESTAMP in seconds (decimal)."""
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        f = [x.strip() for x in line.split(",")]
        if len(f) < 5:
            raise _bad("spc", n, "expected at least 5 comma-separated fields, got %d" % len(f))
        op = f[3].lower()
        if op not in ("r", "w"):
            raise _bad("spc", n, "opcode %r is neither r nor w" % f[3])
        asu, lba, size = _ints("spc", n, f[:3], "ASU, LBA and size")
        off = lba * SECTOR
        yield Request(op, ("spc", asu, off // block_size), off, size, _seconds_ns("spc", n, f[4]))


def parse_csv_spec(text: str | None) -> dict[str, Any]:
    """A libCacheSim/cachesim -t spec: 'obj-id-col=2,time-col=1,obj-size-col=3,
    op-col=4,delimiter=,,has-header=true' (columns 1-based; ';' also
    separates).  Returns {"obj-id-col": int, "op-col": int or None,
    "delimiter": str, "has-header": bool}."""
    spec: dict[str, Any] = {"obj-id-col": None, "op-col": None, "time-col": None, "obj-size-col": None,
            "delimiter": ",", "has-header": False}
    for item in _spec_items((text or "").strip()):
        if not item.startswith("delimiter="):
            item = item.strip()
        if not item:
            continue
        key, eq, val = item.partition("=")
        key = key.lower()
        if not eq:
            raise UsageError("csv spec: %r is not KEY=VALUE" % item)
        if key in ("has-header", "header"):
            spec["has-header"] = val.strip().lower() in ("true", "1", "yes")
        elif key in ("obj-id-is-num", "obj-id-is-num64"):
            pass  # ids are compared as text either way
        elif key in spec and key.endswith("-col"):
            try:
                spec[key] = int(val)
            except ValueError:
                raise UsageError("csv spec: %s needs a column number, got %r" % (key, val))
            if spec[key] < 1:
                raise UsageError("csv spec: columns count from 1 (%s=%s)" % (key, val))
        elif key == "delimiter":
            spec["delimiter"] = val.replace("\\t", "\t") or ","
        else:
            raise UsageError("csv spec: unknown key %r (obj-id-col, op-col, time-col, "
                             "obj-size-col, delimiter, has-header)" % key)
    if spec["obj-id-col"] is None:
        raise UsageError("csv spec needs obj-id-col=N (e.g. --csv-spec 'time-col=1,obj-id-col=2')")
    return spec


def _spec_items(text):
    """Split a spec on ',' or ';', except the one character that follows
    'delimiter=' (so 'delimiter=,' and 'delimiter=;' work; '\\t' is a TAB)."""
    items, i = [], 0
    while i < len(text):
        if text.startswith("delimiter=", i):
            j = i + len("delimiter=")
            n = 2 if text.startswith("\\t", j) else 1
            items.append(text[i:j + n])
            i = j + n + 1
            continue
        j = min([k for k in (text.find(",", i), text.find(";", i)) if k >= 0] or [len(text)])
        items.append(text[i:j])
        i = j + 1
    return items


def read_csv(lines: Iterable[str], spec: dict[str, Any]) -> Iterator[Request]:
    """libCacheSim csv: one request per line, columns chosen by the spec;
    time-col's values are seconds (decimal)."""
    idc, opc = spec["obj-id-col"] - 1, spec["op-col"] and spec["op-col"] - 1
    tc = spec["time-col"] and spec["time-col"] - 1
    for n, line in enumerate(lines, 1):
        if n == 1 and spec["has-header"]:
            continue
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        f = line.split(spec["delimiter"])
        need = max(idc, opc or 0, tc or 0)
        if len(f) <= need:
            raise _bad("csv", n, "%d fields, column %d wanted" % (len(f), need + 1))
        op = "r"
        if opc is not None and f[opc].strip().lower() not in READ_OPS:
            op = "w"
        yield Request(op, f[idc].strip(), None, None, None if tc is None else _seconds_ns("csv", n, f[tc]))


ORACLE_RECORD = struct.Struct("<IQIq")  # time, object id, object size, next access


def read_oracle_general(data: bytes) -> Iterator[Request]:
    """libCacheSim oracleGeneral: 24-byte little-endian records uint32 time,
    uint64 object id, uint32 object size, int64 next access (-1: never);
    time in seconds.  Records of size 0 are skipped, as libCacheSim does."""
    if len(data) % ORACLE_RECORD.size:
        raise ToolError("oracle-general trace: %d bytes is not a whole number of %d-byte records"
                        % (len(data), ORACLE_RECORD.size))
    for t, oid, size, _next in ORACLE_RECORD.iter_unpack(data):
        if size:
            yield Request("r", oid, None, None, t * 10 ** 9)


def read_txt(lines: Iterable[str]) -> Iterator[Request]:
    """Plain text: one object id per line (blank lines skipped)."""
    for line in lines:
        oid = line.strip()
        if oid:
            yield Request("r", oid, None, None, None)


def _streams(data: bytes, decompressor: Callable[[], Any], padding: int) -> bytes:
    """Every stream of data, one after another (xz and bzip2 files may hold
    several); the bytes after a stream must begin the next one (xz: after
    NUL padding of a multiple of `padding` bytes), else the file is
    damaged: never read as its first streams alone."""
    out = []
    while True:
        d = decompressor()
        out.append(d.decompress(data))
        if not d.eof:
            raise EOFError("compressed data ended before the end-of-stream marker was reached")
        data = d.unused_data
        rest = data.lstrip(b"\0")
        if padding and (len(data) - len(rest)) % padding:
            raise ValueError("stream padding of %d bytes" % (len(data) - len(rest)))
        data = rest if padding else data
        if not data:
            return b"".join(out)


# A compressed trace is read through its codec, known by its magic bytes.
_CODECS: tuple[tuple[bytes, Callable[[bytes], bytes]], ...] = (
    (b"\x1f\x8b", gzip.decompress), (b"\xfd7zXZ\x00", lambda d: _streams(d, lzma.LZMADecompressor, 4)),
    (b"BZh", lambda d: _streams(d, bz2.BZ2Decompressor, 0)))
# Codecs Python's standard library cannot read: an error naming them, never
# their bytes taken as a trace (libCacheSim ships its traces as .zst).
_UNREADABLE = ((b"\x28\xb5\x2f\xfd", "zstd", "zstd -d"), (b"\x04\x22\x4d\x18", "lz4", "lz4 -d"))


def _decompressed(path: str, data: bytes) -> bytes:
    """data itself, or its decompression when it starts as gzip, xz or
    bzip2 does; a damaged compressed file, or one compressed by a codec
    not read here, is an error, never a trace."""
    for magic, decompress in _CODECS:
        if data.startswith(magic):
            try:
                return decompress(data)
            except (OSError, EOFError, lzma.LZMAError, ValueError) as e:
                raise ToolError("%s: cannot decompress: %s" % (path, e))
    for magic, codec, command in _UNREADABLE:
        if data.startswith(magic):
            raise ToolError("%s is %s-compressed: decompress it first (%s); import-trace reads gzip, xz and "
                            "bzip2" % (path, codec, command))
    return data


def open_requests(path: str, fmt: str, csv_spec: str | None = None,
                  block_size: int = 4096) -> Iterator[Request]:
    """The requests of trace `path` in format `fmt`."""
    if fmt not in FORMATS:
        raise UsageError("unknown format %r (one of %s)" % (fmt, ", ".join(FORMATS)))
    try:
        with open(path, "rb") as f:
            data = _decompressed(path, f.read())
    except OSError as e:
        raise ToolError("cannot read %s: %s" % (path, e.strerror or e))
    if fmt == "oracle-general":
        return read_oracle_general(data)
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise ToolError("%s is not a %s trace: byte %d is not UTF-8 text (compressed other than by gzip, xz "
                        "or bzip2?)" % (path, fmt, e.start))
    if fmt == "msr":
        return read_msr(lines, block_size)
    if fmt == "fiu":
        return read_fiu(lines, block_size)
    if fmt == "lis":
        return read_lis(lines, block_size)
    if fmt == "spc":
        return read_spc(lines, block_size)
    if fmt == "csv":
        return read_csv(lines, parse_csv_spec(csv_spec))
    return read_txt(lines)


# ---------------------------------------------------------------- mappings

class VolumeMap:
    """The job's regular files end to end in path order as one volume.  A
    byte range [offset, offset + length) starts at offset modulo the volume
    size and wraps at the end; a range longer than the volume is cut to it.
    Yields (file index, offset in file, length) pieces."""

    def __init__(self, files: Sequence[tuple[bytes, int]]) -> None:
        self.files = files
        self.starts = []
        pos = 0
        for _, size in files:
            self.starts.append(pos)
            pos += size
        self.size = pos
        if self.size <= 0:
            raise ToolError("the job's regular files hold no bytes: nothing to map a volume onto")

    def pieces(self, offset: int, length: int) -> Iterator[tuple[int, int, int]]:
        left = min(length, self.size)
        pos = offset % self.size
        while left > 0:
            i = bisect.bisect_right(self.starts, pos) - 1
            while self.files[i][1] == 0:  # empty files hold no byte
                i += 1
            within = pos - self.starts[i]
            n = min(left, self.files[i][1] - within)
            yield i, within, n
            left -= n
            pos = (pos + n) % self.size


class ObjectMap:
    """Each distinct key, in order of first appearance, gets the next file
    of a permutation of the job's non-empty files (their indices in path
    order, shuffled with random.Random(seed).shuffle);
    after F distinct keys the permutation starts over (keys share files)."""

    def __init__(self, files: Sequence[tuple[bytes, int]], seed: int) -> None:
        self.perm = [i for i, (_, size) in enumerate(files) if size > 0]
        if not self.perm:
            raise ToolError("the job's regular files are all empty: nothing to map objects onto")
        random.Random(seed).shuffle(self.perm)
        self.assigned: dict[Any, int] = {}

    def file_of(self, key: Any) -> int:
        i = self.assigned.get(key)
        if i is None:
            i = self.perm[len(self.assigned) % len(self.perm)]
            self.assigned[key] = i
        return i


class TraceClock:
    """A request's time in the written trace: nanoseconds since the
    source's first request, never going back (a time before an earlier
    request's is held at the latest time, and counted); one a destor trace
    cannot hold (2^64 ns or more, about 584 years) is an error."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.latest = 0
        self.held = 0

    def time_of(self, t: int | None) -> int | None:
        if t is None:
            return None
        if self.first is None:
            self.first = t
        rel = t - self.first
        if rel >= 1 << 64:
            raise ToolError("a request %s s after the first one: past what a destor trace's time holds (2^64 ns, "
                            "about 584 years; --times drop leaves the times out)" % (rel // 10 ** 9))
        if rel < self.latest:
            self.held += 1
            return self.latest
        self.latest = rel
        return rel


def import_trace(requests: Iterable[Request], files: Sequence[tuple[bytes, int]], job: int, mapping: str,
                 seed: int = 1, writes: str = "skip", out: IO[bytes] | None = None,
                 end: bytes = b"\n", times: bool = True) -> dict[str, int]:
    """Map `requests` onto `files` ((path bytes, size), in path order) and
    write the records to the binary file `out`, each with its request's
    time when the source has times and `times` (every record a request
    maps to shares it).  Returns the counts."""
    if not files:
        raise ToolError("job %s has no regular file a trace can name" % job)
    counts = {"requests_in": 0, "reads": 0, "writes": 0, "writes_skipped": 0, "empty": 0,
              "records_out": 0, "bytes_out": 0, "distinct_keys": 0, "timed": 0, "times_held": 0}
    vmap = VolumeMap(files) if mapping == "volume" else None
    omap = ObjectMap(files, seed) if mapping == "object" else None
    clock = TraceClock()
    assert out is not None, "import_trace writes to a file"
    buf = []
    for r in requests:
        counts["requests_in"] += 1
        when = clock.time_of(r.time if times else None)
        if r.op == "w":
            counts["writes"] += 1
            if writes != "as-reads":
                counts["writes_skipped"] += 1
                continue
        else:
            counts["reads"] += 1
        if r.length == 0:
            counts["empty"] += 1
            continue
        if vmap is not None:
            if r.offset is None:
                raise UsageError("--map volume needs a block trace (%s); object traces take "
                                 "--map object" % ", ".join(BLOCK_FORMATS))
            for i, off, n in vmap.pieces(r.offset, r.length):
                buf.append(trace_record(job, files[i][0], end, off, n, when))
                counts["records_out"] += 1
                counts["bytes_out"] += n
        else:
            assert omap is not None
            i = omap.file_of(r.key)
            buf.append(trace_record(job, files[i][0], end, time_ns=when))
            counts["records_out"] += 1
            counts["bytes_out"] += files[i][1]
        if len(buf) >= 4096:
            out.write(b"".join(buf))
            buf = []
    out.write(b"".join(buf))
    if omap is not None:
        counts["distinct_keys"] = len(omap.assigned)
    counts["timed"] = int(clock.first is not None)
    counts["times_held"] = clock.held
    return counts


def header(source: str, fmt: str, mapping: str, seed: int, writes: str, job: int,
           files: Sequence[tuple[bytes, int]], counts: dict[str, int], csv_spec: str | None = None,
           block_size: int | None = None, end: str = "\n") -> bytes:
    """'#' comment records (docs/FORMAT.md) saying how the trace was made."""
    total = sum(s for _, s in files)
    lines = ["# destor read-file trace written by scripts/import-trace: one request per %s, "
             "JOB<TAB>PATH%s" % ("line" if end == "\n" else "NUL-terminated record",
                                  "<TAB>OFFSET<TAB>LENGTH (a byte range)" if mapping == "volume" else
                                  " (the whole file)"),
             "# source: %s" % source,
             "# format: %s%s" % (fmt, " (%s)" % csv_spec if csv_spec else ""),
             "# mapping: %s" % (
                 "volume: job %s's %d regular files end to end in path order, %d bytes (%s); "
                 "offsets past the end wrap" % (job, len(files), total, format_bytes(total))
                 if mapping == "volume" else
                 "object: each distinct %s becomes one of job %s's %d regular files, by a "
                 "permutation seeded with the seed below; whole-file reads"
                 % ("block of %s bytes" % block_size if fmt in BLOCK_FORMATS else "object id",
                    job, len(files))),
             "# seed: %d" % seed,
             "# writes: %s" % ("replayed as reads" if writes == "as-reads" else "skipped"),
             "# requests in: %d (%d reads, %d writes)" % (counts["requests_in"], counts["reads"],
                                                          counts["writes"]),
             "# requests skipped: %d writes, %d of zero length" % (counts["writes_skipped"],
                                                                   counts["empty"]),
             "# records out: %d, %d bytes" % (counts["records_out"], counts["bytes_out"])]
    if counts.get("timed"):
        lines.append("# times: '@SECONDS' first, seconds since the source's first request; %d held at an "
                     "earlier request's time where the source's went back" % counts["times_held"])
    if mapping == "object":
        lines.append("# distinct ids: %d" % counts["distinct_keys"])
    return (end.join(lines) + end).encode("utf-8")
