# SPDX-License-Identifier: GPL-3.0-or-later
"""units: byte units and the day, as every script counts them.

Why it exists: the trace tools, gen-dataset and the S.M.A.R.T. tools all
convert between bytes and KiB/MiB/GiB/TiB, and the S.M.A.R.T. reports can
also print decimal units; one table serves them all.

Bytes are bytes; "KiB".."PiB" are powers of 1024, "kB".."PB" powers of
1000; the paper's "1 GB = 1024 MB" is GiB.  A day is 86,400 seconds.  The
device model's MB/s are 10^6 bytes a second, as in destor
(src/cache/common/device_model.h).
"""

from .errors import SmartError

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB
SECONDS_PER_DAY = 86400

UNITS = {
    # name: (step between prefixes, labels for 1, k, M, G, T, P)
    "binary": (1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]),
    "decimal": (1000, ["B", "kB", "MB", "GB", "TB", "PB"]),
}


def unit_step(units: str) -> int:
    if units not in UNITS:
        raise SmartError("unknown units %r (use binary or decimal)" % units)
    return UNITS[units][0]


def unit_bytes(prefix: int, units: str = "binary") -> int:
    """Bytes in one unit with the given prefix index (0=B, 2=MB, 3=GB...)."""
    return unit_step(units) ** prefix


def unit_label(prefix: int, units: str = "binary") -> str:
    unit_step(units)
    return UNITS[units][1][prefix]
