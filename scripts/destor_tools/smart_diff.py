# SPDX-License-Identifier: GPL-3.0-or-later
"""smart_diff: the difference between two wear samples of one drive: bytes
written, write amplification, wear, write rate and projected lifetime, and
their printing (smart-diff, endurance-compare; docs/SMART.md).

Why it exists: this is the paper's measurement itself (section V.C.3 and
Table 1); smart-diff reports it for two samples and endurance-compare for
each cache policy's run, and both must compute it identically.

Standard library only.
"""

import math
from typing import Any, Sequence
from .errors import SmartError
from .formatting import smart_bytes
from .units import MIB, SECONDS_PER_DAY, unit_label, unit_step
from .wear import lifetime_days, waf, waf_from_pages, write_rate



def _delta(before, after, key, warnings, label):
    a, b = before.get(key), after.get(key)
    if a is None or b is None:
        return None
    if b < a:
        warnings.append("%s went backwards (%d -> %d): drive reset or "
                        "replaced, or the kernel counter restarted at boot; "
                        "ignored" % (label, a, b))
        return None
    return b - a


def check_same_drive(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Raise SmartError when the samples are of different drives; return
    warnings when it cannot be told for sure."""
    warnings = []
    sa, sb = before.get("serial"), after.get("serial")
    if sa and sb:
        if sa != sb:
            raise SmartError(
                "BEFORE and AFTER are from different drives: %s (serial %s) "
                "and %s (serial %s)" % (before.get("model") or
                                        before.get("device"), sa,
                                        after.get("model") or
                                        after.get("device"), sb))
    else:
        if before.get("device") != after.get("device"):
            raise SmartError("BEFORE is of %s and AFTER of %s, and there is "
                             "no serial number to show they are the same "
                             "drive" % (before.get("device"),
                                        after.get("device")))
        warnings.append("no serial number in both samples; trusting that "
                        "%s was the same drive both times"
                        % before.get("device"))
    return warnings


def diff_samples(before: dict[str, Any], after: dict[str, Any], tbw_bytes: int | None = None,
                 units: str = "binary", seconds: float | None = None) -> dict[str, Any]:
    """Everything smart-diff reports, as a dict (JSON-ready).

    `seconds` overrides the interval used for the write rate (e.g. the
    replay's run time); by default it is the time between the samples.
    """
    unit_step(units)
    warnings = check_same_drive(before, after)
    notes = []
    interval = after["epoch"] - before["epoch"]
    if interval < 0:
        raise SmartError("AFTER was taken before BEFORE (%s < %s); swap the "
                         "arguments" % (after.get("timestamp"),
                                        before.get("timestamp")))
    if interval == 0:
        warnings.append("the two samples have the same time; no rates")
    if seconds is None:
        seconds = interval
    res = {"device": after.get("device"), "model": after.get("model"),
           "serial": after.get("serial"),
           "before": before.get("timestamp"), "after": after.get("timestamp"),
           "interval_s": interval, "rate_seconds": seconds,
           "units": ("binary: 1 KiB = 1024 B, 1 GiB = 1024 MiB (the paper's "
                     "1 GB = 1024 MB)" if units == "binary" else
                     "decimal: 1 kB = 1000 B, 1 GB = 1000 MB")}
    boots = (before.get("boot_id"), after.get("boot_id"))
    same_boot = not (boots[0] and boots[1] and boots[0] != boots[1])
    host = _delta(before, after, "host_bytes_written", warnings,
                  "S.M.A.R.T. host bytes written")
    kern = None
    if same_boot:
        kern = _delta(before, after, "sysfs_bytes_written", warnings,
                      "kernel bytes written")
    elif before.get("sysfs_bytes_written") is not None:
        warnings.append("the machine rebooted between the samples; kernel "
                        "write counters are not comparable")
    res["smart_host_bytes_written"] = host
    res["kernel_bytes_written"] = kern
    if host is not None:
        res["host_bytes_written"], res["host_source"] = host, "smart"
    elif kern is not None:
        res["host_bytes_written"], res["host_source"] = kern, "kernel"
    else:
        res["host_bytes_written"], res["host_source"] = None, None
    res["host_bytes_read"] = _delta(before, after, "host_bytes_read",
                                    warnings, "S.M.A.R.T. host bytes read")
    nand = _delta(before, after, "nand_bytes_written", warnings,
                  "NAND bytes written")
    res["nand_bytes_written"] = nand
    hp = _delta(before, after, "host_program_pages", warnings,
                "host program pages")
    fp = _delta(before, after, "ftl_program_pages", warnings,
                "FTL program pages")
    res["host_program_pages"], res["ftl_program_pages"] = hp, fp
    res["waf"], res["waf_method"] = None, None
    res["nand_bytes_estimate"] = nand
    if nand is not None and host:
        res["waf"] = waf(nand, host)
        res["waf_method"] = "NAND bytes / host bytes"
    elif hp and fp is not None:
        res["waf"] = waf_from_pages(hp, fp)
        res["waf_method"] = "(host pages + FTL pages) / host pages"
        if host is not None:
            # The page size is not reported; host bytes x WAF estimates it.
            res["nand_bytes_estimate"] = int(round(host * res["waf"]))
    elif host == 0 and (nand is not None or hp is not None):
        warnings.append("no host writes in the interval; WAF undefined")
    # Counter resolution: a coarse counter (Intel counts 32 MiB and 1 GiB
    # steps) makes small deltas meaningless.
    for key, d in (("host_write_unit", host), ("nand_write_unit", nand)):
        unit = after.get(key)
        if unit and d is not None and d < 20 * unit:
            warnings.append("%s counter moves in steps of %s; %s over the "
                            "interval is within %d%% of one step (run "
                            "longer)" % ("host" if key.startswith("host")
                                         else "NAND",
                                         smart_bytes(unit, units),
                                         smart_bytes(d, units),
                                         100 if d == 0 else
                                         math.ceil(100.0 * unit / d)))
    lb: Any = before.get("life_used_pct")
    la: Any = after.get("life_used_pct")
    res["life_indicator"] = after.get("life_indicator")
    res["life_used_pct_before"], res["life_used_pct_after"] = lb, la
    res["life_used_pct_change"] = (la - lb) if la is not None and \
        lb is not None else None
    rate = write_rate(res["host_bytes_written"], seconds)
    res["write_rate_bytes_per_s"] = rate
    # both bases, named by their unit: MiB/s (2^20 B/s), MB/s (10^6 B/s)
    res["write_rate_mib_per_s"] = rate / MIB if rate is not None else None
    res["write_rate_mb_per_s"] = rate / 1e6 if rate is not None else None
    res["tbw_bytes"] = tbw_bytes
    res["lifetime_days_tbw"] = lifetime_days(tbw_bytes, rate)
    if tbw_bytes and rate == 0:
        warnings.append("no host writes in the interval; lifetime from TBW "
                        "is unbounded")
    res["lifetime_days_pct"] = res["remaining_days_pct"] = None
    change = res["life_used_pct_change"]
    if change is not None and change < 0:
        warnings.append("wear indicator went backwards (%g -> %g); ignored"
                        % (lb, la))
    elif change and interval > 0:
        days_per_pct = interval / SECONDS_PER_DAY / change
        res["lifetime_days_pct"] = 100 * days_per_pct
        res["remaining_days_pct"] = max(0.0, 100 - la) * days_per_pct
    elif change == 0:
        notes.append("wear indicator did not move over the interval; a "
                     "longer run is needed for a lifetime from it")
    for key, label in (("media_errors", "media errors"),
                       ("reallocated_sectors", "reallocated sectors")):
        d = _delta(before, after, key, warnings, label)
        res[key + "_change"] = d
        if d:
            warnings.append("%s grew by %d during the interval" % (label, d))
    res["missing"] = sorted(set(after.get("missing") or []) |
                            set(before.get("missing") or []))
    res["warnings"] = warnings
    res["notes"] = notes
    return res


def fmt_num(v: float | None, digits: int = 2) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, int):
        return "{:,}".format(v)
    if v != 0 and abs(v) < 0.5 * 10 ** -digits:
        return "%.2g" % v          # do not print a tiny figure as 0.0
    return "%.*f" % (digits, v)


def diff_table(res: dict[str, Any], units: str = "binary") -> list[tuple[str, str]]:
    """Rows (label, text) for printing a diff."""
    mb = unit_label(2, units)
    rows = [
        ("drive", "%s (serial %s)" % (res.get("model") or res["device"],
                                      res.get("serial") or "unknown")),
        ("interval", "%s -> %s (%.1f s)" % (res["before"], res["after"],
                                            res["interval_s"])),
        ("host bytes written", "%s [%s]" % (
            _bytes_text(res["host_bytes_written"], units),
            {"smart": "S.M.A.R.T.", "kernel": "kernel /sys/block",
             None: "no counter"}[res["host_source"]])),
    ]
    if res["host_source"] == "smart" and \
            res["kernel_bytes_written"] is not None:
        rows.append(("kernel bytes written",
                     _bytes_text(res["kernel_bytes_written"], units)))
    rows += [
        ("host bytes read", _bytes_text(res["host_bytes_read"], units)),
        ("NAND bytes written", _bytes_text(res["nand_bytes_written"], units)
         if res["nand_bytes_written"] is not None or
         res["nand_bytes_estimate"] is None else
         "about %s (host bytes x WAF)" % smart_bytes(res["nand_bytes_estimate"],
                                                   units, digits=2)),
        ("write amplification", "%s%s" % (
            fmt_num(res["waf"], 3),
            " (%s)" % res["waf_method"] if res["waf_method"] else "")),
        ("wear indicator", "n/a" if res["life_used_pct_change"] is None else
         "%g%% -> %g%% used (%s)" % (res["life_used_pct_before"],
                                     res["life_used_pct_after"],
                                     res["life_indicator"])),
        ("write rate", "%s %s" % (fmt_num(
            res["write_rate_mib_per_s" if units == "binary" else
                "write_rate_mb_per_s"], 2), mb + "/s")),
    ]
    if res["tbw_bytes"]:
        rows.append(("lifetime at this rate",
                     "%s days (TBW %s)" % (fmt_num(res["lifetime_days_tbw"],
                                                   1),
                                           smart_bytes(res["tbw_bytes"], units,
                                                     digits=2))))
    rows.append(("lifetime from wear",
                 "n/a" if res["lifetime_days_pct"] is None else
                 "%s days in all, %s days left" % (
                     fmt_num(res["lifetime_days_pct"], 1),
                     fmt_num(res["remaining_days_pct"], 1))))
    rows.append(("units", res["units"]))
    return rows


def _bytes_text(n, units):
    if n is None:
        return "n/a"
    return "%s (%s bytes)" % (smart_bytes(n, units, digits=2),
                              "{:,}".format(n))


def format_rows(rows: Sequence[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join("%-*s  %s" % (width, k, v) for k, v in rows)
