# SPDX-License-Identifier: GPL-3.0-or-later
"""output_file: a command's output file written whole or not at all.

Why it exists: gen-trace and import-trace wrote OUT.tmp and renamed it onto
OUT; a symlink planted at OUT.tmp (or another run's OUT.tmp) was written
through, and OUT became that link.  Here the bytes go to a new file of a
unique name beside OUT, created exclusively (never an existing name, never
through a link), renamed onto OUT when complete and removed otherwise.
"""

import os
import tempfile
from typing import IO, Callable


def write_replacing(path: str, write: Callable[[IO[bytes]], object]) -> None:
    """Call write(f) on a new temporary file beside `path`, then rename it
    onto `path`; OSError when either fails (the temporary file removed)."""
    head, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix="." + name + ".", suffix=".tmp", dir=head or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask (mkstemp makes files 0600; an output file gets
    the mode open() would have given it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
