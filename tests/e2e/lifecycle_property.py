#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""lifecycle_property.py: random sequences of backup, delete, gc (at
gc-live-threshold 0, 0.5 and 1), restore and read-file over generated trees
that share data, checked against the trees themselves: every live job
restores and reads as the tree it was made from, a deleted job is refused
(exit 2), verify --deep passes after every gc, and repair at the end leaves
a store that verifies. Seeded, so a failure names the seed and step that
repeat it. Runs on the store kind DESTOR_TEST_CONTAINER_STORE names."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

DESTOR = os.environ["DESTOR_BIN"]
SEEDS = (1, 3, 4, 5)
STEPS = 16


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


class Store:
    def __init__(self, scratch, kind):
        self.work = os.path.join(scratch, "w")
        self.config = os.path.join(scratch, "destor.config")
        with open(self.config, "w") as f:
            f.write('working-directory "%s"\ncontainer-size 128K\ncontainer-store %s\n' % (self.work, kind))

    def run(self, *args, want=0, where=""):
        p = subprocess.run([DESTOR, "-c", self.config] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != want:
            fail("%s: destor %s exited %d, expected %d: %s" % (where, " ".join(args), p.returncode, want,
                                                                p.stderr.decode("utf-8", "replace").strip()))
        return p.stdout


def new_tree(rng, blobs, old=None):
    """A tree of files made of shared blobs: a fresh one, or `old` with
    some files changed, added and removed (a next version)."""
    tree = dict(old) if old else {}
    for path in list(tree):
        if rng.random() < 0.3:
            del tree[path]
    for _ in range(rng.randint(1, 6)):
        path = "d%d/f%d.bin" % (rng.randint(0, 2), rng.randint(0, 40))
        tree[path] = b"".join(rng.choice(blobs) for _ in range(rng.randint(0, 5)))
    return tree


def write_tree(root, tree):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for path, data in tree.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


def read_tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for name in files:
            full = os.path.join(d, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, root)] = f.read()
    return out


def check_restore(store, scratch, job, tree, where):
    target = os.path.join(scratch, "restored")
    shutil.rmtree(target, ignore_errors=True)
    store.run("restore", str(job), target, where=where)
    if read_tree(target) != tree:
        fail("%s: job %d does not restore as its tree" % (where, job))
    shutil.rmtree(target)


def one_seed(seed, kind):
    rng = random.Random(seed)
    scratch = tempfile.mkdtemp(prefix="destor-lifecycle.")
    store = Store(scratch, kind)
    blobs = [rng.randbytes(rng.randint(1, 90000)) for _ in range(24)]
    live, deleted, next_job, last, gcs = {}, set(), 0, None, 0
    for step in range(STEPS):
        where = "seed %d step %d" % (seed, step)
        op = rng.choice(["backup", "backup", "delete", "gc", "restore", "read"]) if live else "backup"
        if op == "backup":
            last = new_tree(rng, blobs, last if rng.random() < 0.7 else None)
            src = os.path.join(scratch, "src")
            write_tree(src, last)
            store.run("backup", src, where=where)
            live[next_job] = last
            next_job += 1
        elif op == "delete":
            victims = rng.sample(sorted(live), rng.randint(1, min(2, len(live))))
            store.run("delete", *map(str, victims), where=where)
            for v in victims:
                deleted.add(v)
                del live[v]
            v = rng.choice(sorted(deleted))
            store.run("list", str(v), want=2, where=where)
        elif op == "gc":
            threshold = rng.choice(["0", "0.5", "1"])
            store.run("-p", "gc-live-threshold " + threshold, "gc", where=where)
            store.run("verify", "--deep", where=where + " (after gc)")
            gcs += 1
        elif op == "restore":
            job = rng.choice(sorted(live))
            check_restore(store, scratch, job, live[job], where)
        else:
            job = rng.choice(sorted(live))
            if live[job]:
                path = rng.choice(sorted(live[job]))
                if store.run("read-file", str(job), path, where=where) != live[job][path]:
                    fail("%s: read-file %d %s gave other bytes" % (where, job, path))
    where = "seed %d end" % seed
    store.run("gc", where=where)
    for job, tree in live.items():
        check_restore(store, scratch, job, tree, where)
    for job in deleted:
        store.run("restore", str(job), os.path.join(scratch, "x"), want=2, where=where)
    store.run("verify", "--deep", where=where)
    store.run("repair", where=where)
    store.run("verify", "--deep", where=where + " (after repair)")
    shutil.rmtree(scratch)
    if not deleted or not gcs:
        fail("seed %d drew no delete or no gc: pick another seed" % seed)
    return len(live), len(deleted), gcs


def main():
    kind = os.environ.get("DESTOR_TEST_CONTAINER_STORE", "pool")
    for seed in SEEDS:
        n_live, n_deleted, gcs = one_seed(seed, kind)
        print("# seed %d (%s store): %d steps, %d gc runs, %d jobs live, %d deleted; every check held"
              % (seed, kind, STEPS, gcs, n_live, n_deleted))


if __name__ == "__main__":
    main()
