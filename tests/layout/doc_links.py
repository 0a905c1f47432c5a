#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""doc_links.py: every relative link in README.md and docs/ resolves to a
file, and every docs/....md path named anywhere in the tree (code comments,
help texts, man pages, the sample config, the docs) exists. The pages move
as they are reorganised; a link left behind is caught here."""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
NAMED = re.compile(r"\bdocs/[A-Za-z0-9_/.-]*[A-Za-z0-9_]\.md\b")
WHERE = ("README.md", "destor.config", "docs", "man", "scripts", "src", "tests")
SKIP_DIRS = {"fixtures", "corpus", "__pycache__"}


def files(top):
    for w in WHERE:
        path = os.path.join(top, w)
        if os.path.isfile(path):
            yield path
        for root, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for n in names:
                yield os.path.join(root, n)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.environ["TOP_SRCDIR"]
    bad = []
    for path in files(top):
        rel = os.path.relpath(path, top)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if rel.endswith(".md"):
            for m in LINK.finditer(text):
                target = m.group(1).split("#")[0]
                if not target or re.match(r"[a-z]+:", target):
                    continue
                if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                    bad.append("%s: link to %s" % (rel, m.group(1)))
        for m in NAMED.finditer(text):
            if not os.path.exists(os.path.join(top, m.group(0))):
                bad.append("%s: names %s" % (rel, m.group(0)))
    for b in bad:
        print("FAIL: " + b)
    print("# %d broken" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
