# SPDX-License-Identifier: GPL-3.0-or-later
"""sizes: reading sizes given on a command line.

Why it exists: the trace tools read cache and block sizes ('512K', '1.5G',
powers of 1024), and the S.M.A.R.T. tools read a drive's rated endurance
('600TB', '0.6PiB', where the unit says its base).  Both read the same
shape of text, "number, optional prefix, optional i, optional B", with one
pattern here; they differ only in which of those they accept.
"""

import math
import re

from .errors import SmartError, UsageError
from .units import UNITS

_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*"
                      r"([kKmMgGtTpP]?)(i?)([bB]?)\s*$")
_PREFIXES = " KMGTP"


def _binary_size(text):
    """(number, prefix letter) of a size the trace tools accept: no P, and
    an 'i' only before a 'B'; None for any other text."""
    m = _SIZE_RE.match(text)
    if not m or m.group(2).upper() == "P" or (m.group(3) and not m.group(4)):
        return None
    return m.group(1), m.group(2)


def parse_size(text: str) -> int:
    """'4096', '512K', '1.5G', '2M' -> bytes (powers of 1024)."""
    found = _binary_size(text or "")
    if not found and _binary_size((text or "").replace("-", "", 1)):
        raise UsageError("a size cannot be negative: %r" % text)
    if not found:
        raise UsageError("invalid size %r (expected a number with an optional K/M/G/T suffix)" % text)
    number, letter = found
    step = UNITS["binary"][0]
    return int(float(number) * step ** _PREFIXES.index(letter.upper() or " "))


def parse_budget(text: str, job_bytes: int) -> int:
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


def parse_rated_size(text: str, default_prefix: str = "T") -> int:
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
    if not letter and binary:
        raise SmartError("cannot read size %r" % text)
    if not letter and not bee:
        letter = default_prefix
    value = float(number)
    if not math.isfinite(value) or value <= 0:
        raise SmartError("size %r must be positive" % text)
    prefix = _PREFIXES.index(letter.upper()) if letter else 0
    step = 1024 if binary else 1000
    return int(round(value * step ** prefix))
