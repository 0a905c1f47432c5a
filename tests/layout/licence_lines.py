#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""licence_lines.py: every source file says what licence it is under, as
COPYING and the README do: an SPDX-License-Identifier line in its first
lines (after a #! line). Covers C, Python, shell and make files under src/,
tests/, scripts/ and man/, and the build files at the top."""
import os
import sys

TAG = "SPDX-License-Identifier: GPL-3.0-or-later"
SKIP_DIRS = {"fixtures", "corpus", "regressions", "__pycache__"}
EXTS = (".c", ".h", ".py", ".sh", ".mk")


def sources(top):
    for name in ("Makefile.am", "configure.ac"):
        yield os.path.join(top, name)
    for sub in ("src", "tests", "scripts", "man"):
        for root, dirs, names in os.walk(os.path.join(top, sub)):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for name in names:
                path = os.path.join(root, name)
                if name.endswith(EXTS):
                    yield path
                elif "." not in name and os.path.isfile(path):
                    with open(path, "rb") as f:
                        if f.read(2) == b"#!":
                            yield path


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.environ["TOP_SRCDIR"]
    missing, seen = [], 0
    for path in sources(top):
        if not os.path.exists(path):
            continue
        seen += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(400)
        if TAG not in head:
            missing.append(os.path.relpath(path, top))
    for rel in sorted(missing):
        print("FAIL: %s has no '%s' line" % (rel, TAG))
    print("# %d source files, %d without the licence line" % (seen, len(missing)))
    return 1 if missing or seen == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
