# SPDX-License-Identifier: GPL-3.0-or-later
"""smart_samples: takes wear samples of a drive and reads and writes them as
CSV files (smart-sample, smart-diff, endurance-compare; docs/SMART.md).

Why it exists: a sample combines smartctl's counters (smart_ctl) with the
kernel's (smart_sysfs) at one moment, and the tools exchange samples as
CSV rows, so taking them and storing them must be done the same way
everywhere.

Standard library only.
"""

import csv
import datetime
import json
import math
import os
import time
from typing import Any, Callable, Iterable, TextIO

from .errors import SmartError
from .formatting import smart_bytes
from .smart_ctl import (COLUMNS, EXPECTED, FLOAT_COLUMNS, INT_COLUMNS,
                       empty_sample, has_smart_data, parse_smartctl,
                       run_smartctl, smartctl_problems)
from .smart_sysfs import boot_id, sysfs_counters


# ---------------------------------------------------------------------------
# Sampling

def now_iso(epoch: float) -> str:
    t = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond //
                                                         1000)


def take_sample(device: str, smartctl: str | None = None, dev_type: str | None = None, use_smart: bool = True,
                use_sysfs: bool = True, sysfs: str = "/sys",
                clock: Callable[[], float] = time.time) -> dict[str, Any]:
    """One sample of DEVICE.  Never raises for device or tool problems:
    whatever cannot be read is listed in 'missing' and explained in
    'messages'."""
    s = empty_sample()
    s["device"] = device
    sources = []
    if use_smart:
        if smartctl is None:
            s["messages"].append("smartctl not found (install smartmontools "
                                 "7 or later); S.M.A.R.T. counters skipped")
        else:
            data, problems = run_smartctl(device, smartctl, dev_type)
            s["messages"].extend(problems)
            if data is not None:
                parsed = parse_smartctl(data, device)
                s["messages"].extend(parsed.pop("messages"))
                parsed.pop("missing")
                parsed.pop("epoch")
                parsed["device"] = device
                for k, v in parsed.items():
                    if v is not None and v != {}:
                        s[k] = v
                if has_smart_data(data):
                    sources.append("smartctl")
    if use_sysfs:
        fields, problems = sysfs_counters(device, sysfs)
        s["messages"].extend(problems)
        model = fields.pop("_sysfs_model", None)
        serial = fields.pop("_sysfs_serial", None)
        s.update(fields)
        if "sysfs_bytes_written" in fields:
            sources.append("sysfs")
            if s["model"] is None and model:
                s["model"] = model
            if s["serial"] is None and serial:
                s["serial"] = serial
        s["boot_id"] = boot_id()
    s["source"] = "+".join(sources) or "none"
    if "smartctl" in sources:
        expected = EXPECTED.get(s["protocol"], ["host_bytes_written"])
        s["missing"] = [k for k in expected if s[k] is None]
    elif use_smart:
        s["missing"] = ["smart"]
    if use_sysfs and "sysfs" not in sources:
        s["missing"].append("sysfs_bytes_written")
    if s["protocol"] == "NVMe" and s["nand_bytes_written"] is None:
        s["messages"].append("the NVMe standard health log has no NAND "
                             "write counter; WAF needs a vendor log")
    epoch = clock()
    s["epoch"] = epoch
    s["timestamp"] = now_iso(epoch)
    return s


def has_write_counter(s: dict[str, Any]) -> bool:
    return s.get("host_bytes_written") is not None or \
        s.get("sysfs_bytes_written") is not None


def summary_line(s: dict[str, Any], units: str = "binary") -> str:
    parts = [s["timestamp"], s["device"], "source=" + s["source"]]
    if s.get("host_bytes_written") is not None:
        parts.append("host_written=" + smart_bytes(s["host_bytes_written"],
                                                 units))
    if s.get("nand_bytes_written") is not None:
        parts.append("nand_written=" + smart_bytes(s["nand_bytes_written"],
                                                 units))
    if s.get("sysfs_bytes_written") is not None:
        parts.append("kernel_written=" + smart_bytes(s["sysfs_bytes_written"],
                                                   units))
    if s.get("life_used_pct") is not None:
        parts.append("life_used=%g%%" % s["life_used_pct"])
    if s.get("missing"):
        parts.append("missing=" + ",".join(s["missing"]))
    return " ".join(parts)



# ---------------------------------------------------------------------------
# CSV files of samples

def sample_to_row(s: dict[str, Any]) -> dict[str, str]:
    row = {}
    for c in COLUMNS:
        v = s.get(c)
        if c in ("missing", "messages"):
            row[c] = ";".join(v or [])
        elif c == "raw":
            row[c] = json.dumps(v or {}, sort_keys=True,
                                separators=(",", ":"))
        elif v is None:
            row[c] = ""
        elif isinstance(v, float):
            row[c] = repr(v)
        else:
            row[c] = str(v)
    return row


def row_to_sample(row: dict[str, str], where: str = "row") -> dict[str, Any]:
    s = empty_sample()
    for c in COLUMNS:
        v = row.get(c)
        if v is None or v == "":
            continue
        try:
            if c in INT_COLUMNS:
                s[c] = int(v)
            elif c in FLOAT_COLUMNS:
                s[c] = float(v)
                if not math.isfinite(s[c]):
                    raise ValueError(v)
            elif c in ("missing", "messages"):
                s[c] = [x for x in v.split(";") if x]
            elif c == "raw":
                s[c] = json.loads(v)
            else:
                s[c] = v
        except ValueError:
            raise SmartError("%s: column %s has a bad value %r"
                             % (where, c, v[:40]))
    if s["epoch"] is None:
        raise SmartError("%s: no epoch timestamp" % where)
    return s


def identity(s: dict[str, Any]) -> str | None:
    """What tells drives apart: the serial number, else the device name."""
    return s.get("serial") or s.get("device")


def read_csv_samples(path: str) -> list[dict[str, Any]]:
    try:
        f = open(path, newline="")
    except OSError as e:
        raise SmartError("cannot read %s: %s" % (path, e.strerror or e))
    with f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        if "epoch" not in header or "device" not in header:
            raise SmartError("%s is not a smart-sample CSV file (no epoch/"
                             "device columns)" % path)
        samples = []
        try:
            for i, row in enumerate(reader, start=2):
                samples.append(row_to_sample(row, "%s line %d" % (path, i)))
        except csv.Error as e:
            raise SmartError("%s: %s" % (path, e))
    if not samples:
        raise SmartError("%s holds no samples" % path)
    return samples


def read_samples(path: str) -> list[dict[str, Any]]:
    """Samples from a smart-sample CSV or a saved `smartctl --json -a`
    document (its local_time gives the time)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError as e:
        raise SmartError("cannot read %s: %s" % (path, e.strerror or e))
    if head.startswith(b"{"):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise SmartError("%s: not valid JSON: %s" % (path, e))
        if not isinstance(data, dict):
            raise SmartError("%s: not a smartctl JSON document" % path)
        s = parse_smartctl(data)
        s["source"] = "smartctl"
        if s["epoch"] is None:
            raise SmartError("%s: smartctl JSON without local_time.time_t"
                             % path)
        s["timestamp"] = now_iso(s["epoch"])
        if not has_smart_data(data):
            problems = smartctl_problems(data, s["device"] or path)
            raise SmartError("%s holds no S.M.A.R.T. data%s" %
                             (path, ": " + "; ".join(problems)
                              if problems else ""))
        return [s]
    return read_csv_samples(path)


def check_csv_for_append(path: str, device_identity: str | None = None) -> str | None:
    """Before appending to PATH: header must match, rows must be of the same
    drive.  Returns the identity found in the file (or None)."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header: list[str] = next(reader, [])
            if header != COLUMNS:
                raise SmartError(
                    "%s exists with different columns (another tool, or an "
                    "older version); use a new --out file" % path)
            seen = set()
            for row in reader:
                if len(row) == len(COLUMNS):
                    rec = dict(zip(COLUMNS, row))
                    seen.add(rec["serial"] or rec["device"])
    except (OSError, csv.Error) as e:
        raise SmartError("cannot read %s: %s" % (path, e))
    if device_identity and seen and device_identity not in seen:
        raise SmartError("%s holds samples from another drive (%s), not %s; "
                         "use a different --out file"
                         % (path, ", ".join(sorted(seen)), device_identity))
    return next(iter(seen)) if len(seen) == 1 else None


class CsvAppender:
    """Appends samples to a CSV file, flushing and fsyncing every row so an
    interrupted run keeps all rows already taken."""

    def __init__(self, path_or_file: str | TextIO) -> None:
        self.f: Any
        if hasattr(path_or_file, "write"):
            self.f = path_or_file
            self.close_f = False
            need_header = True
        else:
            need_header = (not os.path.exists(path_or_file) or
                           os.path.getsize(path_or_file) == 0)
            self.f = open(path_or_file, "a", newline="")
            self.close_f = True
        self.w = csv.DictWriter(self.f, fieldnames=COLUMNS)
        if need_header:
            self.w.writeheader()
            self._sync()

    def _sync(self):
        self.f.flush()
        try:
            os.fsync(self.f.fileno())
        except (OSError, ValueError, AttributeError):
            pass            # pipes and terminals cannot be fsynced

    def append(self, s: dict[str, Any]) -> None:
        self.w.writerow(sample_to_row(s))
        self._sync()

    def close(self) -> None:
        if self.close_f:
            self.f.close()


def write_samples(path: str | TextIO, samples: Iterable[dict[str, Any]]) -> None:
    app = CsvAppender(path)
    try:
        for s in samples:
            app.append(s)
    finally:
        app.close()

