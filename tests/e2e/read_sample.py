#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""read_sample.py: read a seeded random sample of a backed-up tree's files
back through `destor read-file` and compare the bytes with the originals.

usage: read_sample.py DESTOR CONFIG JOB ROOT COUNT SEED
Checks stdout output, -o OUT with --verify, and exits 1 on the first
mismatch. Paths may hold spaces, newlines or non-UTF-8 bytes."""
import os
import random
import subprocess
import sys
import tempfile


def main():
    destor, config, job, root, count, seed = sys.argv[1:7]
    root_b = os.fsencode(root)
    files = []
    for dirpath, _dirs, names in os.walk(root_b):
        for n in names:
            full = os.path.join(dirpath, n)
            if os.path.isfile(full) and not os.path.islink(full):
                files.append(os.path.relpath(full, root_b))
    files.sort()
    rng = random.Random(int(seed))
    sample = rng.sample(files, min(int(count), len(files)))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        for i, rel in enumerate(sample):
            want = open(os.path.join(root_b, rel), "rb").read()
            if i % 2 == 0:
                got = subprocess.run([destor, "-c", config, "read-file", job, rel],
                                     check=True, stdout=subprocess.PIPE).stdout
            else:
                subprocess.run([destor, "-c", config, "read-file", job, rel, "-o", out, "--verify"],
                               check=True)
                got = open(out, "rb").read()
            if got != want:
                print("mismatch: %r (%d bytes read, %d expected)" % (rel, len(got), len(want)))
                return 1
    print("read back %d of %d files, all identical" % (len(sample), len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
