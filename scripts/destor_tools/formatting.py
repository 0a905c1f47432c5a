# SPDX-License-Identifier: GPL-3.0-or-later
"""formatting: bytes as people read them.

Why it exists: every report prints sizes; one formatter, with the trace
tools' form ('1.50 GiB', '-' when unknown) as its default and the
S.M.A.R.T. reports' form (one decimal, 'n/a', up to PiB, binary or
decimal units) in smart_bytes().
"""

from .units import GIB, KIB, MIB, UNITS, unit_step


def format_bytes(n: float | None, units: str = "binary", prefix: int | None = None, digits: int = 2,
                 missing: str = "-", largest: int = 4) -> str:
    """Human-readable size: '1.50 GiB'; `missing` for None.  The prefix
    (0=B .. 5=P) is the largest that leaves at least 1, at most `largest`,
    unless given."""
    if n is None:
        return missing
    step = unit_step(units)
    if prefix is None:
        prefix = 0
        while prefix < largest and abs(n) >= step ** (prefix + 1):
            prefix += 1
    if prefix == 0:
        return "%d %s" % (n, UNITS[units][1][0])
    return "%.*f %s" % (digits, n / step ** prefix, UNITS[units][1][prefix])


def smart_bytes(n: float | None, units: str = "binary", prefix: int | None = None, digits: int = 1) -> str:
    """The S.M.A.R.T. reports' form: '1.5 GiB', 'n/a' for None."""
    return format_bytes(n, units, prefix, digits, "n/a", 5)


def size_label(n: int) -> str:
    """Compact container-size label: 131072 -> '128K', 2097152 -> '2M'."""
    for unit, scale in (("G", GIB), ("M", MIB), ("K", KIB)):
        if n >= scale and n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return str(n)
