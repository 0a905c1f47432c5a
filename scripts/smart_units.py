"""smart_units: byte units, sizes and the wear arithmetic of the S.M.A.R.T.
tools (smart-sample, smart-diff, endurance-compare; docs/SMART.md).

Why it exists: the paper projected SSD lifetime from write speed and the
rated TBW (Table 1) and measured write amplification from S.M.A.R.T.
counters (section V.C.3).  All the tools must convert units and do that
arithmetic in exactly the same way, so it lives here, together with
SmartError, the one error type of all the smart_* modules.

Units used throughout:
  * Counters are kept in bytes internally.
  * Reports use the paper's binary units by default: 1 KB = 1024 B,
    1 MB = 1024 KB, 1 GB = 1024 MB, 1 TB = 1024 GB, printed as
    KiB/MiB/GiB/TiB.  "decimal" units (powers of 1000) are available.
  * A day is 86,400 seconds.

Standard library only.
"""

import math
import re

KIB = 1024
MIB = 1024 ** 2
GIB = 1024 ** 3
TIB = 1024 ** 4
SECONDS_PER_DAY = 86400

UNITS = {
    # name: (step between prefixes, labels for 1, k, M, G, T, P)
    "binary": (1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]),
    "decimal": (1000, ["B", "kB", "MB", "GB", "TB", "PB"]),
}


class SmartError(Exception):
    """A problem the user must fix; the message is meant to be printed."""


def unit_step(units):
    if units not in UNITS:
        raise SmartError("unknown units %r (use binary or decimal)" % units)
    return UNITS[units][0]


def unit_bytes(prefix, units="binary"):
    """Bytes in one unit with the given prefix index (0=B, 2=MB, 3=GB...)."""
    return unit_step(units) ** prefix


def unit_label(prefix, units="binary"):
    unit_step(units)
    return UNITS[units][1][prefix]


def fmt_bytes(n, units="binary", prefix=None, digits=1):
    """Human-readable byte count; None prints as 'n/a'."""
    if n is None:
        return "n/a"
    step = unit_step(units)
    if prefix is None:
        prefix = 0
        while prefix < 5 and abs(n) >= step ** (prefix + 1):
            prefix += 1
    value = n / step ** prefix
    if prefix == 0:
        return "%d %s" % (n, UNITS[units][1][0])
    return "%.*f %s" % (digits, value, UNITS[units][1][prefix])


_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*"
                      r"([kKmMgGtTpP]?)(i?)([bB]?)\s*$")


def parse_size(text, default_prefix="T"):
    """Parse '36500GB', '600TB', '0.6PiB', '150' (bare number = TB).

    The unit says its base, whatever --units prints: GB/TB are decimal
    (10^9, 10^12, as datasheets rate TBW), GiB/TiB binary (2^30, 2^40; the
    paper's "1 GB = 1024 MB" is GiB).  Returns bytes as an int.  Raises
    SmartError on bad input.
    """
    m = _SIZE_RE.match(str(text))
    if not m:
        raise SmartError("cannot read size %r; write e.g. 600TB or 36500GB"
                         % text)
    number, letter, binary, bee = m.groups()
    if not letter and (binary or bee):
        if binary:
            raise SmartError("cannot read size %r" % text)
    if not letter and not bee:
        letter = default_prefix
    value = float(number)
    if not math.isfinite(value) or value <= 0:
        raise SmartError("size %r must be positive" % text)
    prefix = " KMGTP".index(letter.upper()) if letter else 0
    step = 1024 if binary else 1000
    return int(round(value * step ** prefix))


def write_rate(nbytes, seconds):
    """Bytes per second, or None when either is unknown or seconds <= 0."""
    if nbytes is None or seconds is None or seconds <= 0:
        return None
    return nbytes / seconds


def lifetime_days(tbw_bytes, rate_bytes_per_s):
    """Days until `tbw_bytes` have been written at a constant rate.

    Table 1 of the paper: TBW 36,500 GB at 50.7 MB/s (1 GB = 1024 MB)
    gives 36500 * 1024 / 50.7 s = 8.5 days.
    """
    if tbw_bytes is None or not rate_bytes_per_s or rate_bytes_per_s <= 0:
        return None
    return tbw_bytes / rate_bytes_per_s / SECONDS_PER_DAY


def waf(nand_bytes, host_bytes):
    """Write amplification factor = NAND bytes / host bytes (None if
    unknown or host wrote nothing)."""
    if nand_bytes is None or host_bytes is None or host_bytes <= 0:
        return None
    return nand_bytes / host_bytes


def waf_from_pages(host_pages, ftl_pages):
    """WAF from Crucial/Micron page counters: (host + FTL) / host pages."""
    if host_pages is None or ftl_pages is None or host_pages <= 0:
        return None
    return (host_pages + ftl_pages) / host_pages

