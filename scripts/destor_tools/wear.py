# SPDX-License-Identifier: GPL-3.0-or-later
"""wear: the write-rate, lifetime and write-amplification arithmetic of the
S.M.A.R.T. tools (smart-diff, endurance-compare; docs/SMART.md).

Why it exists: the paper projected SSD lifetime from write speed and the
rated TBW (Table 1) and measured write amplification from S.M.A.R.T.
counters (section V.C.3); every tool must do that arithmetic the same way.
Counters are bytes; a day is 86,400 seconds.
"""

from .units import SECONDS_PER_DAY


def write_rate(nbytes: float | None, seconds: float | None) -> float | None:
    """Bytes per second, or None when either is unknown or seconds <= 0."""
    if nbytes is None or seconds is None or seconds <= 0:
        return None
    return nbytes / seconds


def lifetime_days(tbw_bytes: float | None, rate_bytes_per_s: float | None) -> float | None:
    """Days until `tbw_bytes` have been written at a constant rate.

    Table 1 of the paper: TBW 36,500 GB at 50.7 MB/s (1 GB = 1024 MB)
    gives 36500 * 1024 / 50.7 s = 8.5 days.
    """
    if tbw_bytes is None or not rate_bytes_per_s or rate_bytes_per_s <= 0:
        return None
    return tbw_bytes / rate_bytes_per_s / SECONDS_PER_DAY


def waf(nand_bytes: float | None, host_bytes: float | None) -> float | None:
    """Write amplification factor = NAND bytes / host bytes (None if
    unknown or host wrote nothing)."""
    if nand_bytes is None or host_bytes is None or host_bytes <= 0:
        return None
    return nand_bytes / host_bytes


def waf_from_pages(host_pages: float | None, ftl_pages: float | None) -> float | None:
    """WAF from Crucial/Micron page counters: (host + FTL) / host pages."""
    if host_pages is None or ftl_pages is None or host_pages <= 0:
        return None
    return (host_pages + ftl_pages) / host_pages
