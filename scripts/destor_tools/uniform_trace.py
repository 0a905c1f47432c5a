# SPDX-License-Identifier: GPL-3.0-or-later
"""uniform_trace: N whole-file reads drawn uniformly (random.Random(1))
from the regular files of a `destor list JOB --null` listing on standard
input, as a read-file trace on standard output.

Why it exists: bench-store.sh and bench-rados.sh read a store back through
the same small trace; they run `python3 -m destor_tools.uniform_trace N`
with scripts/ on PYTHONPATH.
"""

import random
import sys

from .trace_draw import trace_record


def main(argv: list[str] | None = None) -> int:
    """Write the trace of int(argv[0]) reads (the process's arguments when None)."""
    count = int((sys.argv[1:] if argv is None else argv)[0])
    files = [r.split(b"\t", 2) for r in sys.stdin.buffer.read().split(b"\0")[:-1]]
    paths = [p for k, _s, p in files if k == b"f" and b"\n" not in p and b"\r" not in p]
    rng = random.Random(1)
    for p in rng.choices(paths, k=count):
        sys.stdout.buffer.write(trace_record(0, p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
