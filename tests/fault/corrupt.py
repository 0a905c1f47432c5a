#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""corrupt.py: corruption sweeps. Flip bytes at seeded random offsets in
every on-disk structure of a store with two committed jobs, and in the SSD
cache's files, one case at a time, restoring the original bytes after each.

Store files (containers.pool, jobs/*/job_meta_data, recipe_index.db,
manifest, refcount): every read must return exactly the right bytes or fail
with exit status 3 (integrity), never wrong bytes and never a crash:
  - restore of the job(s) involved: exit 0 and the exact tree, or exit 3
    and nothing written that is not a prefix of the right bytes;
  - read-file --trace --verify over every file of the job, resumed after
    each failing line, so every file is read once: each exit 0 or 3;
  - read-file JOB PATH (no --verify, bytes compared) of the files the flip
    touches (found by parsing job_meta_data and the pool here) and a few
    others; for recipe_index.db flips, of 30 files of the job.
`destor verify --deep` must exit 3 for every flip in containers,
job_meta_data, manifests and the current refcount. A flip in the Berkeley
DB recipe index may land in unused page space: such cases are counted as
harmless when no read and no verify notices and every read is right. An
older job's refcount is a superseded copy nothing reads; flips there are
counted separately. store.meta flips must fail verify and every read.
index/fingerprints.db is derived data: after a flip there, a new backup
must fail with exit 3 or store a job that restores byte for byte (never
deduplicate against a wrong location) and verifies; verify reads the whole
index, so damage the backup never met (and so did not rebuild) is reported
as the index's only, and `destor repair` then makes the store verify.

Cache files (slots.dat, cache.meta of a warm LRU cache holding every
container of job 1): read-file --trace --verify --json through the cache
must succeed; a damaged slot is dropped and counted (ssd_corrupt_dropped),
a damaged cache.meta gives an empty cache with a warning (the trace then
hits exactly as often as from an empty cache); read-file -o of a
file in the damaged container returns exactly the right bytes.
"""
import json
import os
import random
import re
import shutil
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

CSIZE = 128 * 1024
SLOT_HEADER = 4096       # before each container in slots.dat (docs/FORMAT.md)
# cache.meta's header and entry sizes by version (docs/FORMAT.md)
CACHE_META_HEADER = {1: 64, 2: 80, 3: 80, 4: 88, 5: 96, 6: 104}
SEED = int(os.environ.get("FAULT_SEED", "20240607"))


def parse_job_meta(path):
    """[(offset, length, path bytes, type, [container ids])] of a job_meta_data."""
    data = open(path, "rb").read()
    out, off = [], 32
    while off + 88 <= len(data):
        magic, length = struct.unpack_from("<II", data, off)
        if magic != 0x31434552 or length < 92:
            break
        kind = data[off + 8]
        plen, = struct.unpack_from("<I", data, off + 28)
        nchunks, = struct.unpack_from("<Q", data, off + 40)
        tlen, = struct.unpack_from("<I", data, off + 80)
        p = data[off + 88:off + 88 + plen]
        refs = off + 88 + plen + tlen
        conts = [struct.unpack_from("<I", data, refs + 44 * i + 32)[0] for i in range(nchunks)]
        out.append((off, length, p, kind, conts))
        off += length
    return out


def parse_cache_meta(path):
    """{slot: container id} from cache.meta (layout in src/cache/container/cache_meta.h)."""
    data = open(path, "rb").read()
    version, = struct.unpack_from("<I", data, 8)
    n_entries, = struct.unpack_from("<I", data, 28)
    header, entry = CACHE_META_HEADER[version], 28 if version >= 6 else 24
    slots = {}
    for i in range(n_entries):
        cid, slot = struct.unpack_from("<II", data, header + entry * i)
        slots[slot] = cid
    return slots


def flip(path, rng):
    """Flip 1 byte (3 cases in 4) or a burst of 2..8; return (offset, original bytes)."""
    size = os.path.getsize(path)
    off = rng.randrange(size)
    width = 1 if rng.random() < 0.75 else min(rng.randint(2, 8), size - off)
    with open(path, "r+b") as f:
        f.seek(off)
        orig = f.read(width)
        f.seek(off)
        f.write(bytes(b ^ rng.randint(1, 255) for b in orig))
    return off, orig


def unflip(path, off, orig):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(orig)


class Store:
    """The base store and what the test knows about it."""

    def __init__(self, scratch):
        self.scratch = scratch
        data = scratch.path("data")
        fl.gen_data(data, "--preset", "tiny", "--size", "4M", "--versions", "2", "--odd-names", "--seed", "64")
        self.src = {0: os.path.join(data, "v1"), 1: os.path.join(data, "v2")}
        self.want = {j: fl.tree(p) for j, p in self.src.items()}
        self.base = scratch.path("base")
        cfg = fl.write_config(scratch.path("base.config"), self.base, "container-size 128K")
        for j in (0, 1):
            r = fl.destor(cfg, "backup", self.src[j])
            if r.rc != 0:
                fl.die(r.describe())
        self.digest = fl.store_digest(self.base)
        self.records = {j: parse_job_meta(os.path.join(self.base, "jobs", "%08d" % j, "job_meta_data"))
                        for j in (0, 1)}
        for j in (0, 1):
            if sum(1 for r in self.records[j] if r[3] == 1) != len(fl.list_files(cfg, j)):
                fl.die("parsing job_meta_data of job %d here disagrees with destor list" % j)
        # Regular files readable by path in a trace (no newline in the name).
        self.files = {j: [r[2] for r in self.records[j] if r[3] == 1 and b"\n" not in r[2] and b"\r" not in r[2]]
                      for j in (0, 1)}
        self.bytes = {j: {p: open(os.path.join(self.src[j].encode(), p), "rb").read() for p in self.files[j]}
                      for j in (0, 1)}
        self.pool_containers = os.path.getsize(os.path.join(self.base, "containers.pool")) // CSIZE
        # A warm cache holding every container job 1 reads.
        self.warm = scratch.path("cache.warm")
        wcfg = cache_config(scratch.path("warm.config"), self.base, self.warm, self.pool_containers)
        trace = scratch.path("trace1")
        write_trace(trace, 1, self.files[1])
        r = fl.destor(wcfg, "read-file", "--trace", trace, "--json")
        if r.rc != 0:
            fl.die(r.describe())
        self.slots = parse_cache_meta(os.path.join(self.warm, "cache.meta"))
        c = json.loads(r.out)["cache"]
        self.cold_hits = c["hits"]  # what the same trace gets from an empty cache
        print("# store: 2 jobs, %d containers of 128 KiB; warm cache: %d containers of job 1"
              % (self.pool_containers, c["cached_containers"]))

    def files_in_container(self, job, cid):
        return [r[2] for r in self.records[job] if r[3] == 1 and cid in r[4] and r[2] in self.bytes[job]]


def cache_config(path, work, cache, size):
    return fl.write_config(path, work, "container-size 128K", "ssd-cache-policy lru",
                           'ssd-cache-directory "%s"' % cache, "ssd-cache-size %d" % size)


def write_trace(path, job, paths):
    with open(path, "wb") as f:
        for p in paths:
            f.write(b"%d\t%s\n" % (job, p))


class Worker:
    """A private copy of the store per thread: cases flip and restore in it."""
    local = threading.local()
    lock = threading.Lock()
    all_workers = []

    @classmethod
    def get(cls, store):
        w = getattr(cls.local, "w", None)
        if w is None:
            with cls.lock:
                w = cls.local.w = Worker(store, len(cls.all_workers) + 1)
                cls.all_workers.append(w)
        return w

    def __init__(self, store, n):
        self.dir = store.scratch.path("worker%d" % n)
        os.mkdir(self.dir)
        self.work = os.path.join(self.dir, "w")
        fl.copy_tree(store.base, self.work)
        self.cfg = fl.write_config(os.path.join(self.dir, "destor.config"), self.work, "container-size 128K")
        self.cache = os.path.join(self.dir, "cache")
        self.cache_cfg = cache_config(os.path.join(self.dir, "cache.config"), self.work, self.cache,
                                      store.pool_containers)


def trace_every_file(w, cfg, job, paths):
    """read-file --trace --verify over paths, resumed after each failing line.
    Returns (files that failed with exit 3, files not reached)."""
    remaining, failed = list(paths), []
    trace = os.path.join(w.dir, "trace")
    for _ in range(12):
        if not remaining:
            break
        write_trace(trace, job, remaining)
        r = fl.destor(cfg, "read-file", "--trace", trace, "--verify")
        if r.rc == 0:
            return failed, []
        fl.expect_clean_failure(r, allowed=(3,))
        m = re.search(re.escape(trace) + r":(\d+): ", r.last_destor_line())
        if m is None:  # the job as a whole cannot be read (e.g. its manifest)
            return failed + remaining, []
        k = int(m.group(1))
        failed.append(remaining[k - 1])
        remaining = remaining[k:]
    return failed, remaining


def read_single(w, cfg, job, path, want):
    """read-file JOB PATH to stdout: the right bytes (True) or exit 3 (False)."""
    r = fl.destor(cfg, "read-file", str(job), "--", path.decode("utf-8", "surrogateescape"))
    fl.check(not r.crashed and not r.bad_stderr(), "read-file crashed: " + r.describe())
    if r.rc == 0:
        fl.check(r.out == want, "read-file %d %r returned WRONG BYTES" % (job, path))
        return True
    fl.expect_clean_failure(r, allowed=(3,))
    return False


def restore_job(w, cfg, store, job):
    out = os.path.join(w.dir, "restore%d" % job)
    shutil.rmtree(out, ignore_errors=True)
    r = fl.destor(cfg, "restore", str(job), out)
    fl.check(not r.crashed and not r.bad_stderr(), "restore crashed: " + r.describe())
    if r.rc == 0:
        problems = fl.tree_diff(store.want[job], out)
        fl.check(not problems, "restore %d exited 0 with a wrong tree: %s" % (job, problems[:5]))
        ok = True
    else:
        fl.expect_clean_failure(r, allowed=(3,))
        problems = fl.partial_tree_problems(store.want[job], out)
        fl.check(not problems, "a failed restore %d wrote wrong data: %s" % (job, problems[:5]))
        ok = False
    shutil.rmtree(out, ignore_errors=True)
    return ok


def store_case(store, cls, job, rel, seed):
    w = Worker.get(store)
    rng = random.Random(seed)
    path = os.path.join(w.work, rel)
    off, orig = flip(path, rng)
    try:
        return store_checks(store, w, cls, job, rel, off, len(orig), rng)
    except fl.CaseFailure as e:
        raise fl.CaseFailure("%s at offset %d (+%d bytes, seed %d): %s" % (rel, off, len(orig), seed, e))
    finally:
        unflip(path, off, orig)


def index_case(store, seed):
    """A flip in the fingerprint index (derived data nothing reads back but
    backup): a new backup must fail with exit 3 or store a job that
    verifies and restores byte for byte; never dedup against a wrong place."""
    w = Worker.get(store)
    rng = random.Random(seed)
    work = os.path.join(w.dir, "idx")
    shutil.rmtree(work, ignore_errors=True)
    fl.copy_tree(store.base, work)
    cfg = fl.write_config(os.path.join(w.dir, "idx.config"), work, "container-size 128K")
    off, orig = flip(os.path.join(work, "index", "fingerprints.db"), rng)
    where = "index/fingerprints.db at offset %d (+%d bytes, seed %d)" % (off, len(orig), seed)
    r = fl.destor(cfg, "backup", store.src[1])
    fl.check(not r.crashed and not r.bad_stderr(), "%s: backup crashed: %s" % (where, r.describe()))
    if r.rc != 0:
        fl.expect_clean_failure(r, allowed=(3,))
        outcome = "backup refused (exit 3)"
    else:
        v = fl.destor(cfg, "verify", "--deep")
        repaired = False
        if v.rc == 3:
            problems = [l for l in v.out.decode("utf-8", "replace").splitlines() if l.startswith("PROBLEM")]
            fl.check(problems and all("fingerprint index" in l for l in problems),
                     "%s: the job backed up over a damaged index does not verify: %s" % (where, v.describe()))
            rp = fl.destor(cfg, "repair")
            fl.check(rp.rc == 0, "%s: repair failed: %s" % (where, rp.describe()))
            v = fl.destor(cfg, "verify", "--deep")
            repaired = True
        fl.check(v.rc == 0, "%s: the job backed up over a damaged index does not verify: %s" % (where, v.describe()))
        fl.check(restore_job(w, cfg, store, 1), "%s: the new job does not restore" % where)
        out = os.path.join(w.dir, "restore-new")
        rr = fl.destor(cfg, "restore", "2", out)
        fl.check(rr.rc == 0, "%s: the new job does not restore: %s" % (where, rr.describe()))
        problems = fl.tree_diff(store.want[1], out)
        fl.check(not problems, "%s: the new job restores WRONG: %s" % (where, problems[:5]))
        shutil.rmtree(out)
        outcome = ("backup right, verify named the index, repair mended it" if repaired
                   else "backup right (flip harmless or index rebuilt)")
    shutil.rmtree(work)
    return outcome


def store_checks(store, w, cls, job, rel, off, width, rng):
    v = fl.destor(w.cfg, "verify", "--deep")
    fl.check(not v.crashed and not v.bad_stderr(), "verify crashed: " + v.describe())
    fl.check(v.rc in (0, 3), "verify exited %d: %s" % (v.rc, v.describe()))
    by_verify = v.rc == 3
    if cls == "store.meta":
        fl.check(by_verify, "verify --deep did not detect the flip (exit 0)")
        r = fl.destor(w.cfg, "read-file", "0", "--", store.files[0][0].decode("utf-8", "surrogateescape"))
        fl.check(r.rc == 3 and not r.crashed, "read-file over a damaged store.meta: " + r.describe())
        return "detected by verify and reads"
    jobs = [job] if job is not None else [0, 1]
    read_failures = 0
    if cls == "refcount":
        # read-file through the SSD cache reads the current refcount.
        p = rng.choice(store.files[1])
        if not read_single(w, w.cache_cfg, 1, p, store.bytes[1][p]):
            read_failures += 1
    for j in jobs:
        if not restore_job(w, w.cfg, store, j):
            read_failures += 1
        failed, unread = trace_every_file(w, w.cfg, j, store.files[j])
        read_failures += len(failed)
        # Single reads, bytes compared: the files the flip touches, a few others.
        if cls == "recipe_index.db":
            # Lookups go through the damaged B-tree: a wide sample (the
            # --verify trace above already looked every path up).
            picks = rng.sample(store.files[j], min(len(store.files[j]), 30))
        else:
            picks = []
            if cls == "containers.pool":
                for cid in range(off // CSIZE, (off + width - 1) // CSIZE + 1):
                    picks += store.files_in_container(j, cid)[:3]
            elif cls == "job_meta_data":
                picks += [r[2] for r in store.records[j] if r[0] <= off + width - 1 and off < r[0] + r[1]
                          and r[2] in store.bytes[j]][:3]
            picks += rng.sample(store.files[j], 2)
        for p in dict.fromkeys(picks):
            if not read_single(w, w.cfg, j, p, store.bytes[j][p]):
                read_failures += 1
    # Which structures verify must catch.
    superseded_refcount = cls == "refcount" and job == 0
    if cls in ("containers.pool", "job_meta_data", "manifest") or (cls == "refcount" and not superseded_refcount):
        fl.check(by_verify, "verify --deep did not detect the flip (exit 0)")
    if by_verify:
        return "detected by verify" + (" and reads" if read_failures else "")
    if read_failures:
        return "detected by reads only"
    if superseded_refcount:
        return "harmless: superseded refcount copy, not read"
    return "harmless: no read or verify affected, all bytes right"


def cache_case(store, cls, seed):
    w = Worker.get(store)
    rng = random.Random(seed)
    shutil.rmtree(w.cache, ignore_errors=True)
    fl.copy_tree(store.warm, w.cache)
    target = os.path.join(w.cache, cls)
    off, orig = flip(target, rng)
    where = "%s at offset %d (+%d bytes, seed %d)" % (cls, off, len(orig), seed)
    # Keep a copy of the damaged directory for the second read.
    damaged = w.cache + ".damaged"
    shutil.rmtree(damaged, ignore_errors=True)
    fl.copy_tree(w.cache, damaged)
    trace = os.path.join(w.dir, "cache.trace")
    write_trace(trace, 1, store.files[1])
    r = fl.destor(w.cache_cfg, "read-file", "--trace", trace, "--verify", "--json")
    fl.check(not r.crashed and not r.bad_stderr(), "%s: crashed: %s" % (where, r.describe()))
    fl.check(r.rc == 0, "%s: a damaged cache failed the read: %s" % (where, r.describe()))
    c = json.loads(r.out)["cache"]
    if cls == "slots.dat":
        fl.check(c["ssd_corrupt_dropped"] >= 1, "%s: the damaged slot was not dropped: %s"
                 % (where, {k: c[k] for k in ("hits", "misses", "ssd_corrupt_dropped")}))
        outcome = "slot dropped and counted, read right"
        # The container in the damaged slot, read without --verify: exact bytes.
        cid = store.slots.get(off // (SLOT_HEADER + CSIZE))
        files = store.files_in_container(1, cid) if cid is not None else []
        if files:
            shutil.rmtree(w.cache)
            os.rename(damaged, w.cache)
            out = os.path.join(w.dir, "out")
            r = fl.destor(w.cache_cfg, "read-file", "1", "-o", out, "--", files[0].decode("utf-8", "surrogateescape"))
            fl.check(r.rc == 0, "%s: read-file -o through the damaged cache failed: %s" % (where, r.describe()))
            fl.check(open(out, "rb").read() == store.bytes[1][files[0]],
                     "%s: read-file -o through the damaged cache returned WRONG BYTES" % where)
            os.unlink(out)
    else:
        fl.check(c["hits"] == store.cold_hits, "%s: a damaged cache.meta was trusted (%d hits, %d from an empty "
                 "cache)" % (where, c["hits"], store.cold_hits))
        fl.check("cache.meta" in r.err_text(), "%s: no warning names the damaged cache.meta" % where)
        outcome = "cache.meta damage detected, empty cache, read right"
    shutil.rmtree(damaged, ignore_errors=True)
    return outcome


def main():
    fl.require_env()
    scratch = fl.Scratch("corrupt")
    fl.suppress_bdb_leaks(scratch)
    store = Store(scratch)
    plan = [("containers.pool", None, "containers.pool", 130), ("store.meta", None, "store.meta", 10)]
    for j in (0, 1):
        d = "jobs/%08d/" % j
        plan += [("job_meta_data", j, d + "job_meta_data", 30), ("recipe_index.db", j, d + "recipe_index.db", 30),
                 ("manifest", j, d + "manifest", 20), ("refcount", j, d + "refcount", 20)]
    cases = []
    n = 0
    for cls, job, rel, count in plan:
        category = "%s%s" % (cls, "" if job is None else " (job %d)" % job)
        for i in range(fl.scale(count)):
            n += 1
            seed = SEED + n
            desc = "%s FAULT_SEED=%d case %d" % (rel, SEED, n)
            cases.append((category, desc, lambda a=(store, cls, job, rel, seed): store_case(*a)))
    for i in range(fl.scale(20)):
        n += 1
        seed = SEED + n
        cases.append(("fingerprints.db (then a backup)", "index/fingerprints.db FAULT_SEED=%d case %d" % (SEED, n),
                      lambda a=(store, seed): index_case(*a)))
    for cls, count in (("slots.dat", 40), ("cache.meta", 30)):
        for i in range(fl.scale(count)):
            n += 1
            seed = SEED + n
            cases.append(("cache " + cls, "%s FAULT_SEED=%d case %d" % (cls, SEED, n),
                          lambda a=(store, cls, seed): cache_case(*a)))
    sweep = fl.Sweep("corruption")
    sweep.run(cases)
    # Every flip was undone: the stores are as they were, and verify passes.
    for w in Worker.all_workers:
        if fl.store_digest(w.work) != store.digest:
            sweep.fail("store", w.work, "a worker's store differs from the original after the sweep")
        r = fl.destor(w.cfg, "verify", "--deep")
        if r.rc != 0:
            sweep.fail("store", w.work, "verify --deep after the sweep: " + r.describe())
    ok = sweep.summary()
    scratch.finish(ok)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
