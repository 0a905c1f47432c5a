#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test_manifest.py: tests/manifest.mk declares every test exactly once.
Each entry names a file that exists (a CUnit program by its tests/unit/*.c),
no test is in two groups, and every test file in the tree is in a group:
each tests/unit/test_*.c, and each executable file under tests/ that is not
one of the helpers named below."""
import os
import re
import sys

GROUP = re.compile(r"^(QUICK|SLOW)_(UNIT|STORE|C|PLAIN)_TESTS = ")
# Executable files that tests run, not tests themselves.
HELPERS = {
    "tests/e2e/lib.sh", "tests/e2e/read_sample.py",
    "tests/rados/lib.sh", "tests/rados/cluster.sh",
    "tests/scripts/fake-destor", "tests/scripts/fake-smartctl",
    "tests/fuzz/make-corpus.sh",
    "tests/policy_ref/check_reference.py", "tests/policy_ref/check_chunk_reference.py",
    "tests/harness/driver.sh",
}


def groups(path):
    """{group name: [entries]} of the manifest's group variables."""
    out, name = {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = GROUP.match(line)
            if m:
                name = line.split(" =")[0]
                out[name] = []
                line = line.split("=", 1)[1]
            elif name is None or not line.startswith("\t"):
                name = None
                continue
            cont = line.endswith("\\")
            out[name] += line.rstrip("\\").split()
            if not cont:
                name = None
    return out


def test_files(top):
    found = set()
    for root, dirs, names in os.walk(os.path.join(top, "tests")):
        dirs[:] = [d for d in dirs if d not in ("fixtures", "corpus", "regressions", "__pycache__")]
        for name in names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, top)
            if rel.startswith("tests/unit/") and re.fullmatch(r"test_\w+\.c", name):
                found.add(rel[:-2])
            elif os.access(path, os.X_OK) and rel not in HELPERS:
                found.add(rel)
    return found


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.environ["TOP_SRCDIR"]
    declared = groups(os.path.join(top, "tests", "manifest.mk"))
    problems = []
    if len(declared) != 7:
        problems.append("expected 7 groups, found %s" % sorted(declared))
    where = {}
    for name, entries in declared.items():
        for t in entries:
            if t in where:
                problems.append("%s is in %s and %s" % (t, where[t], name))
            where[t] = name
            src = t + ".c" if name.endswith("_UNIT_TESTS") else t
            if not os.path.isfile(os.path.join(top, src)):
                problems.append("%s (%s) names no file %s" % (t, name, src))
    for t in sorted(test_files(top) - set(where)):
        problems.append("%s is a test file in no group of tests/manifest.mk" % t)
    for p in problems:
        print("FAIL: " + p)
    print("# %d tests in %d groups" % (len(where), len(declared)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
