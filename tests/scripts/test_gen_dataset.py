# SPDX-License-Identifier: GPL-3.0-or-later
# Tests of scripts/gen-dataset: determinism, seeds, sharing between versions,
# odd names, the non-empty directory refusal and the tiny preset's size.
# Run: /usr/bin/python3 -m unittest discover -s tests/scripts -p test_gen_dataset.py
# (or tests/scripts/run-gen-dataset-tests.sh, which make check runs).

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

MIB = 1024 * 1024


def find_script():
    if os.environ.get("GEN_DATASET"):
        return os.environ["GEN_DATASET"]
    top = os.environ.get("TOP_SRCDIR")
    if not top:
        top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    return os.path.join(top, "scripts", "gen-dataset")


SCRIPT = find_script()


def run(out, *args, check=True):
    proc = subprocess.run([sys.executable, SCRIPT, "--out", out, *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and proc.returncode != 0:
        raise AssertionError(f"gen-dataset {args} failed ({proc.returncode}): "
                             f"{proc.stderr.decode(errors='replace')}")
    return proc


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def snapshot(root):
    """Relative path (bytes) -> ('file', sha256) | ('link', target) | ('dir',)."""
    root = os.fsencode(root)
    entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                entries[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                entries[rel] = ("dir",)
            else:
                entries[rel] = ("file", sha256(full))
    return entries


def files_of(tree):
    return {p: e[1] for p, e in tree.items() if e[0] == "file"}


def tree_bytes(root):
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                total += os.path.getsize(full)
    return total


class GenDatasetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gen-dataset-test.")
        cls.a = os.path.join(cls.tmp, "a")
        cls.b = os.path.join(cls.tmp, "b")
        cls.c = os.path.join(cls.tmp, "c")
        cls.odd = os.path.join(cls.tmp, "odd")
        cls.summary = run(cls.a, "--preset", "tiny", "--seed", "7").stdout
        run(cls.b, "--preset", "tiny", "--seed", "7")
        run(cls.c, "--preset", "tiny", "--seed", "8")
        run(cls.odd, "--preset", "tiny", "--seed", "7", "--odd-names",
            "--versions", "2")
        cls.snap_a = {v: snapshot(os.path.join(cls.a, v)) for v in ("v1", "v2", "v3")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_layout_and_summary(self):
        self.assertEqual(sorted(os.listdir(self.a)), ["v1", "v2", "v3"])
        lines = self.summary.decode().strip().splitlines()
        self.assertEqual(len(lines), 1, lines)
        for word in ("3 versions", "files", "bytes", " s"):
            self.assertIn(word, lines[0])

    def test_same_seed_same_bytes(self):
        for v in ("v1", "v2", "v3"):
            snap_b = snapshot(os.path.join(self.b, v))
            self.assertEqual(sorted(self.snap_a[v]), sorted(snap_b), v)
            self.assertEqual(self.snap_a[v], snap_b, v)

    def test_different_seed_different_bytes(self):
        ha = set(files_of(self.snap_a["v1"]).values())
        hc = set(files_of(snapshot(os.path.join(self.c, "v1"))).values())
        self.assertTrue(ha and hc)
        # Only trivial contents (e.g. an empty file) may coincide.
        self.assertLess(len(ha & hc), 2)

    def test_versions_share_most_content(self):
        v1 = files_of(self.snap_a["v1"])
        v2 = files_of(self.snap_a["v2"])
        same = sum(1 for p, h in v1.items() if v2.get(p) == h)
        self.assertGreater(same, 0.7 * len(v1), f"{same}/{len(v1)} unchanged")
        # ...but the versions are not identical: files changed, added, gone.
        self.assertTrue(any(p in v2 and v2[p] != h for p, h in v1.items()),
                        "no file modified in place")
        self.assertTrue(set(v2) - set(v1), "no file added or renamed")
        self.assertTrue(set(v1) - set(v2), "no file deleted or renamed")
        # Renamed/moved: some v2 content under a new path already existed in v1.
        old_hashes = set(v1.values())
        self.assertTrue(any(v2[p] in old_hashes for p in set(v2) - set(v1)),
                        "no file renamed or moved")

    def test_duplicates_within_version(self):
        hashes = list(files_of(self.snap_a["v1"]).values())
        self.assertGreater(len(hashes) - len(set(hashes)), 0)

    def test_tiny_preset_size(self):
        v1 = tree_bytes(os.path.join(self.a, "v1"))
        self.assertGreater(v1, 6 * MIB)
        self.assertLess(v1, 11 * MIB)
        total = tree_bytes(self.a)
        self.assertLess(total, 40 * MIB)

    def test_odd_names(self):
        root = os.fsencode(os.path.join(self.odd, "v1"))
        snap = snapshot(root)
        names = [os.path.basename(p) for p in snap]
        self.assertTrue(any(b" " in n for n in names), "name with a space")
        self.assertTrue(any(b"\n" in n for n in names), "name with a newline")
        self.assertTrue(any(any(c >= 0x80 for c in n) for n in names),
                        "non-ASCII name")
        for n in names:
            if any(c >= 0x80 for c in n):
                n.decode("utf-8")  # valid UTF-8
        self.assertTrue(any(n.startswith(b"-") for n in names), "leading dash")
        empty_files = [p for p, e in snap.items() if e[0] == "file"
                       and os.path.getsize(os.path.join(root, p)) == 0]
        self.assertTrue(empty_files, "empty file")
        empty_dirs = [p for p, e in snap.items() if e[0] == "dir"
                      and not os.listdir(os.path.join(root, p))]
        self.assertTrue(empty_dirs, "empty directory")
        links = [p for p, e in snap.items() if e[0] == "link"]
        good = [p for p in links if os.path.isfile(os.path.join(root, p))]
        dangling = [p for p in links if not os.path.exists(os.path.join(root, p))]
        self.assertTrue(good, "symlink to a file")
        self.assertTrue(dangling, "dangling symlink")
        real_root = os.path.realpath(root)
        for p in good:
            target = os.path.realpath(os.path.join(root, p))
            self.assertTrue(target.startswith(real_root + b"/"), target)
        # The odd entries survive into later versions.
        snap2 = snapshot(os.path.join(self.odd, "v2"))
        for p in empty_dirs + links:
            self.assertEqual(snap[p], snap2.get(p), p)
        # Apart from the odd entries, the trees are those of the same seed
        # without --odd-names.
        for v, s in (("v1", snap), ("v2", snap2)):
            plain = {p: e for p, e in s.items()
                     if not p.startswith((b"odd names", b"-dash"))}
            self.assertEqual(plain, self.snap_a[v], v)

    def test_refuses_non_empty_dir(self):
        out = os.path.join(self.tmp, "nonempty")
        os.makedirs(out)
        with open(os.path.join(out, "keep"), "w") as f:
            f.write("x")
        proc = run(out, "--preset", "tiny", check=False)
        self.assertEqual(proc.returncode, 2)
        err = proc.stderr.decode().strip()
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("not empty", err)
        self.assertEqual(os.listdir(out), ["keep"])
        # --force writes the trees and leaves unrelated files alone.
        run(out, "--preset", "tiny", "--versions", "1", "--force")
        self.assertEqual(sorted(os.listdir(out)), ["keep", "v1"])

    def test_size_and_files_options(self):
        out = os.path.join(self.tmp, "opts")
        run(out, "--size", "2M", "--files", "50", "--versions", "1")
        v1 = files_of(snapshot(os.path.join(out, "v1")))
        self.assertGreaterEqual(len(v1), 50)
        self.assertLess(len(v1), 60)  # 50 plus a few duplicates
        size = tree_bytes(os.path.join(out, "v1"))
        self.assertGreaterEqual(size, 2 * MIB)
        self.assertLess(size, 4 * MIB)  # plus duplicated files
        proc = run(os.path.join(self.tmp, "bad"), "--size", "12Q", check=False)
        self.assertEqual(proc.returncode, 2)

    def test_source_shape(self):
        out = os.path.join(self.tmp, "source")
        run(out, "--shape", "source", "--files", "400", "--size", "5M", "--versions", "1")
        root = os.path.join(out, "v1")
        sizes = sorted(os.path.getsize(os.path.join(d, f))
                       for d, _dirs, files in os.walk(root) for f in files)
        self.assertGreaterEqual(len(sizes), 400)
        median = sizes[len(sizes) // 2]
        self.assertGreater(median, 4 * 1024)
        self.assertLess(median, 16 * 1024)
        self.assertLessEqual(sizes[-1], 512 * 1024)


if __name__ == "__main__":
    unittest.main()
