#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""mutate_recipes.py: structure-aware mutants of a job's job_meta_data and
recipe index. corrupt.py flips bytes, which the record CRC-32 catches
first; here the mutator knows the record layout (docs/FORMAT.md): it
changes a field (type, mode, mtime, path and its length, size, chunk count,
a chunk reference's fingerprint, container, offset or length, the record
length, the SHA-256: the store is made with file-digest sha256), swaps in
another file's chunk reference, shuffles a file's references, plants a path that leaves the target ('..', absolute,
below a symlink that points out), duplicates, drops or swaps records, cuts
the file, and then, mostly, makes the record CRC right again so the
mutation reaches the checks behind it. The recipe index is either left as
it was (stale once a record moves) or rebuilt by `destor repair` from the
mutant and then made to lie by putting the original records back under it.

Each mutant (a fixed seed: the same ones every run) goes through restore,
read-file (whole, --verify, a byte range), list, stat, verify and verify
--deep on a copy of the store, and repair when it rebuilds the index (exit
0, or 3 naming the damage). Every run must exit 0-3 with a `destor:`
line when it fails, never crash, hang or trip a sanitizer, and:
  - a file read with exit 0 holds exactly the bytes its record's chunks
    name (each checked against the container it names), and with --verify
    those bytes match the record's SHA-256: the record CRC-32 is not a
    seal, so a record forged with a right CRC restores what it names;
  - a restore with exit 0 holds every file of the job with those bytes
    and its record's mode and mtime;
  - nothing is written outside the restore target (a watched directory a
    planted symlink or absolute path aims at stays empty), and the store's
    containers are never changed;
  - verify passes only a job whose records decode and whose paths restore
    takes, and verify --deep one whose every file's chunks hash to its
    SHA-256.
MUTANTS=N runs more (default 26, each kind twice; the seed is fixed, so a
failure repeats).
"""
import collections
import hashlib
import os
import random
import shutil
import stat
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

CS = 128 * 1024
HEADER = 32
REC_HEADER = 88
REF = 44
RANGE = (100, 70100)


def crc(b):
    return zlib.crc32(bytes(b)) & 0xFFFFFFFF


def records(data):
    """The records a sequential reader gets from job_meta_data bytes."""
    out, o = [], HEADER
    while o + 8 <= len(data):
        n = struct.unpack_from("<I", data, o + 4)[0]
        if n < REC_HEADER + 4 or o + n > len(data):
            break
        out.append(bytearray(data[o:o + n]))
        o += n
    return out


def fields(r):
    plen = struct.unpack_from("<I", r, 28)[0]
    size, nch = struct.unpack_from("<QQ", r, 32)
    llen = struct.unpack_from("<I", r, 80)[0]
    return r[8], plen, size, nch, llen


def path_of(r):
    return bytes(r[REC_HEADER:REC_HEADER + fields(r)[1]])


def ref_offsets(r):
    _, plen, _, nch, llen = fields(r)
    q = REC_HEADER + plen + llen
    return [q + REF * i for i in range(nch)]


def seal(r):
    struct.pack_into("<I", r, len(r) - 4, crc(r[:-4]))
    return r


def set_path(r, path):
    _, plen, _, _, _ = fields(r)
    out = bytearray(r[:REC_HEADER]) + path + r[REC_HEADER + plen:]
    struct.pack_into("<I", out, 28, len(path))
    struct.pack_into("<I", out, 4, len(out))
    return out


def plain(path):
    """Restore takes the path (docs/FORMAT.md: relative, '/'-separated, no '.' or '..')."""
    return not path.startswith(b"/") and all(c not in (b"", b".", b"..") for c in path.split(b"/"))


def decode(r):
    """What destor's decoder accepts: (type, path, refs, sha256, mode, mtime ns), else None."""
    try:
        if struct.unpack_from("<II", r, 0) != (0x31434552, len(r)) or crc(r[:-4]) != struct.unpack_from("<I", r, len(r) - 4)[0]:
            return None
        typ, plen, size, nch, llen = fields(r)
        if typ not in (1, 2, 3) or plen == 0 or nch > len(r) // REF or REC_HEADER + plen + llen + REF * nch + 4 != len(r):
            return None
        path = path_of(r)
        refs = [(bytes(r[q:q + 32]),) + struct.unpack_from("<III", r, q + 32) for q in ref_offsets(r)]
        if b"\0" in path or sum(x[3] for x in refs) != (size if typ == 1 else 0):
            return None
        mode, sec, nsec = struct.unpack_from("<Iq I", r, 12)
        if mode & ~0o7777 or nsec >= 10 ** 9:
            return None
        return typ, path, refs, bytes(r[48:80]), mode, sec * 10 ** 9 + nsec
    except struct.error:
        return None


class Pool:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        self.n = len(self.data) // CS

    def chunk(self, ref):
        """The chunk's bytes if its container holds that fingerprint and length at that offset."""
        fp, c, off, ln = ref
        if c >= self.n or off < 64 or off + ln > CS:
            return None
        base = c * CS
        for k in range(struct.unpack_from("<I", self.data, base + 20)[0]):
            e = base + CS - 40 * (k + 1)
            if struct.unpack_from("<I", self.data, e + 32)[0] == off:
                if self.data[e:e + 32] != fp or struct.unpack_from("<I", self.data, e + 36)[0] != ln:
                    return None
                return self.data[base + off:base + off + ln]
        return None

    def content(self, refs, lo=0, hi=None):
        """Bytes [lo, hi) of what the references name, or None if a chunk there is wrong."""
        out, pos = [], 0
        for ref in refs:
            a, b = pos, pos + ref[3]
            pos = b
            if hi is not None and (b <= lo or a >= hi):
                continue
            data = self.chunk(ref)
            if data is None:
                return None
            out.append(data[max(0, lo - a):(hi - a) if hi is not None else None])
        return b"".join(out)


KINDS = ["field", "mode", "ref", "foreign-ref", "shuffle", "path", "symlink-escape", "reclen", "records", "cut",
         "sha", "type", "nchunks"]
# None: absolute; "same": '..' over the path's first bytes, the record's length kept
EVIL_PATHS = ["same", None, b"../escape", b"x/../../escape", b"a//b", b".", b"..", b"x/./y", b"x/"]


def mutate(rng, n, recs, pool_n, watch):
    """Mutant n (every kind in turn, the details from rng): the mutated
    records, where to cut them (or None) and a description."""
    recs = [bytearray(r) for r in recs]
    files = [i for i, r in enumerate(recs) if r[8] == 1 and fields(r)[3] > 0]
    links = [i for i, r in enumerate(recs) if r[8] == 3]
    i = rng.choice(files)
    r = recs[i]
    kind = KINDS[n % len(KINDS)]
    sealed = n < len(KINDS) or rng.random() < 0.85  # the first round reaches past the CRC
    if kind == "field":  # the first: nanoseconds no timespec holds
        off, fm = (24, "<I") if n == 0 else rng.choice([(16, "<q"), (24, "<I"), (28, "<I"), (32, "<Q"), (80, "<I"), (84, "<I")])
        cur = struct.unpack_from(fm, r, off)[0]
        v = 10 ** 9 if n == 0 else rng.choice([0, 1, cur + 1, cur - 1, 2 ** 31 - 1])
        struct.pack_into(fm, r, off, v if fm == "<q" else v & (2 ** (8 * struct.calcsize(fm)) - 1))
    elif kind == "mode":
        struct.pack_into("<I", r, 12, rng.choice([0o4755, 0o7777, 0xFFFFFFFF, 0]))
    elif kind == "ref":
        q = rng.choice(ref_offsets(r))
        what = rng.choice(["container", "offset", "length", "fingerprint"])
        if what == "container":
            struct.pack_into("<I", r, q + 32, rng.choice([pool_n, pool_n - 1, 0, 0xFFFFFFFF, rng.randrange(pool_n)]))
        elif what == "offset":
            struct.pack_into("<I", r, q + 36, (struct.unpack_from("<I", r, q + 36)[0] + rng.choice([1, -1, 64, CS])) & 0xFFFFFFFF)
        elif what == "length":  # the file size follows, so only the chunk check is left
            d = rng.choice([1, -1, 1000])
            struct.pack_into("<I", r, q + 40, (struct.unpack_from("<I", r, q + 40)[0] + d) & 0xFFFFFFFF)
            struct.pack_into("<Q", r, 32, fields(r)[2] + d)
        else:
            r[q + rng.randrange(20)] ^= 1 << rng.randrange(8)
        kind += "-" + what
    elif kind == "foreign-ref":  # another file's chunk, the size made to match
        other = recs[rng.choice(files)]
        q, q2 = rng.choice(ref_offsets(r)), rng.choice(ref_offsets(other))
        old = struct.unpack_from("<I", r, q + 40)[0]
        r[q:q + REF] = other[q2:q2 + REF]
        struct.pack_into("<Q", r, 32, fields(r)[2] - old + struct.unpack_from("<I", r, q + 40)[0])
    elif kind == "shuffle":
        qs = ref_offsets(r)
        refs = [bytes(r[q:q + REF]) for q in qs]
        rng.shuffle(refs)
        for q, b in zip(qs, refs):
            r[q:q + REF] = b
    elif kind == "path":
        evil = EVIL_PATHS[(n // len(KINDS)) % len(EVIL_PATHS)] or watch + b"/abs"
        if evil == "same":
            evil = b"../" + path_of(r)[3:] if fields(r)[1] > 3 else b".."
        recs[i] = r = set_path(r, evil)
        kind += " " + evil.decode()
    elif kind == "symlink-escape":  # a symlink aimed at the watched directory, then files below it
        link = recs[rng.choice(links)]
        trap = bytearray(link[:REC_HEADER]) + b"trap" + watch + b"\0\0\0\0"
        struct.pack_into("<I", trap, 28, 4)
        struct.pack_into("<I", trap, 80, len(watch))
        struct.pack_into("<I", trap, 4, len(trap))
        below = seal(set_path(r, b"trap/evil"))
        recs[1:1] = [seal(trap), below]
        recs.append(bytearray(below))
        sealed = False
    elif kind == "reclen":
        struct.pack_into("<I", r, 4, rng.choice([len(r) + REF, len(r) - REF, REC_HEADER + 4, 0xFFFFFFFF]))
    elif kind == "records":
        op = rng.randrange(3)
        if op == 0:
            recs.insert(rng.randrange(len(recs)), bytearray(recs[rng.randrange(len(recs))]))
        elif op == 1:
            del recs[rng.randrange(len(recs))]
        else:
            a, b = rng.randrange(len(recs)), rng.randrange(len(recs))
            recs[a], recs[b] = recs[b], recs[a]
        kind += ("-dup", "-drop", "-swap")[op]
        sealed = False
    elif kind == "cut":
        return recs, rng.randrange(HEADER, HEADER + sum(len(x) for x in recs)), kind
    elif kind == "sha":
        r[48 + rng.randrange(32)] ^= 1
    elif kind == "type":
        r[8] = rng.choice([0, 2, 3, 4, 255])
    elif kind == "nchunks":
        struct.pack_into("<Q", r, 40, (fields(r)[3] + rng.choice([1, -1, 2 ** 60])) & (2 ** 64 - 1))
    if sealed:
        seal(recs[i])
    return recs, None, kind + ("" if sealed else " (CRC left)")


def main():
    fl.require_env()
    scratch = fl.Scratch("mutate-recipes")
    ok = False
    try:
        # SHA-256 file digests: the model checks them with hashlib
        _, work, _, _ = fl.two_version_store(scratch, 29, "--odd-names", config_lines=("file-digest sha256",))
        ok = run(scratch, work)
    finally:
        scratch.finish(ok)
    sys.exit(0 if ok else 1)


def run(scratch, work):
    jdir = os.path.join(work, "jobs", "00000001")
    with open(os.path.join(jdir, "job_meta_data"), "rb") as f:
        original = f.read()
    recs0 = records(original)
    pool = Pool(os.path.join(work, "containers.pool"))
    pool_digest = hashlib.sha256(pool.data).hexdigest()
    store = scratch.path("m")
    cfg = fl.write_config(scratch.path("m.config"), store, "container-size 128K")
    watch = scratch.path("watch").encode()
    sand = scratch.path("sand")
    rng = random.Random(28)
    count = int(os.environ.get("MUTANTS", "26"))
    outcomes = collections.Counter()
    problems = []
    for n in range(count):
        recs, cut, desc = mutate(rng, n, recs0, pool.n, watch)
        data = original[:HEADER] + b"".join(bytes(r) for r in recs)
        if cut is not None:
            data = data[:cut]
        shutil.rmtree(store, ignore_errors=True)
        os.makedirs(os.path.join(store, "jobs"))
        for name in ("store.meta", "LOCK"):
            shutil.copy(os.path.join(work, name), store)
        # A copy: destor refuses to write a pool that another hard link names.
        shutil.copy(os.path.join(work, "containers.pool"), store)
        shutil.copytree(os.path.join(work, "index"), os.path.join(store, "index"))
        for j in ("00000000", "00000001"):
            shutil.copytree(os.path.join(work, "jobs", j), os.path.join(store, "jobs", j))
        mjmd = os.path.join(store, "jobs", "00000001", "job_meta_data")
        os.unlink(mjmd)  # never write through to the original
        with open(mjmd, "wb") as f:
            f.write(data)
        index = "stale"
        if n < len(KINDS) or rng.random() < 0.5:
            # an index made from the mutant (always in the first round, so
            # lookups reach the mutated record); then, half the time after the
            # first round, the original records under it, so its offsets point
            # into other records
            r = fl.destor(cfg, "repair")
            index = "repaired" if r.rc == 0 else "stale"
            outcomes[("repair", r.rc)] += 1
            if r.crashed or r.bad_stderr() or r.rc not in (0, 3) or (r.rc and r.last_destor_line() is None):
                problems.append("mutant %d (%s), repair: %s" % (n, desc, r.describe()))
            if r.rc == 0 and n >= len(KINDS) and rng.random() < 0.5 and data != original:
                os.unlink(mjmd)
                with open(mjmd, "wb") as f:
                    f.write(original)
                data, index = original, "lying"
        desc += ", index " + index
        # what any reader may serve: the records a sequential reader finds
        # and any record the index could point at
        whole = collections.defaultdict(list)
        ranged = collections.defaultdict(list)
        attrs = collections.defaultdict(set)
        decoded = [decode(r) for r in records(data)]
        for o in range(HEADER, len(data) - REC_HEADER):
            if data[o:o + 4] == b"REC1":
                n_ = struct.unpack_from("<I", data, o + 4)[0]
                if o + n_ <= len(data):
                    decoded.append(decode(bytearray(data[o:o + n_])))
        for d in decoded:
            if d and d[0] == 1:
                c = pool.content(d[2])
                if c is not None:
                    whole[d[1]].append((c, hashlib.sha256(c).digest() == d[3]))
                    attrs[d[1]].add((d[4], d[5]))
                c = pool.content(d[2], *RANGE)
                if c is not None:
                    ranged[d[1]].append(c)
        target_rec = recs[rng.randrange(len(recs))]
        tpath = path_of(target_rec) if len(target_rec) >= REC_HEADER else b"x"
        tpath = tpath.split(b"\0")[0] or b"x"  # an argument holds no NUL
        shutil.rmtree(watch, ignore_errors=True)
        os.makedirs(watch)
        shutil.rmtree(sand, ignore_errors=True)
        os.makedirs(os.path.join(sand, "in"))
        out = os.path.join(sand, "out")
        name = os.fsdecode(tpath)
        commands = [("restore", ["restore", "1", os.path.join(sand, "in", "t")]),
                    ("read", ["read-file", "1", "-o", out, "--", name]),
                    ("read --verify", ["read-file", "1", "-o", out, "--verify", "--", name]),
                    ("range", ["read-file", "1", "-o", out, "--offset", str(RANGE[0]),
                               "--length", str(RANGE[1] - RANGE[0]), "--", name]),
                    ("list", ["list", "1", "--json"]), ("stat", ["stat", "--json"]),
                    ("verify", ["verify", "1"]), ("verify --deep", ["verify", "1", "--deep"])]
        for what, args in commands:
            if os.path.lexists(out):
                os.unlink(out)
            r = fl.destor(cfg, *args, timeout=60)
            outcomes[(what, r.rc)] += 1
            bad = []
            if r.crashed or r.bad_stderr() or r.rc not in (0, 1, 2, 3):
                bad.append(r.describe())
            elif r.rc != 0 and r.last_destor_line() is None:
                bad.append("no destor: line: " + r.describe())
            elif r.rc == 0 and what in ("read", "read --verify", "range"):
                with open(out, "rb") as f:
                    got = f.read()
                if what == "range":
                    right = got in ranged.get(tpath, [])
                else:
                    right = any(got == c and (sha_ok or what == "read") for c, sha_ok in whole.get(tpath, []))
                if not right:
                    bad.append("%s exited 0 with %d bytes its record does not name" % (what, len(got)))
            elif r.rc == 0 and what == "restore":
                t = os.path.join(sand, "in", "t")
                for d in decoded:
                    if d and d[0] == 1 and not os.path.lexists(os.path.join(t, os.fsdecode(d[1]))):
                        bad.append("restore exited 0 without %r" % d[1])
                for dirpath, _, names in os.walk(t):
                    for f in names:
                        full = os.path.join(dirpath, f)
                        if os.path.islink(full):
                            continue
                        with open(full, "rb") as fh:
                            got = fh.read()
                        rel = os.fsencode(os.path.relpath(full, t))
                        if not any(got == c for c, _ in whole.get(rel, [])):
                            bad.append("restore exited 0 with wrong bytes in %r" % rel)
                        st = os.lstat(full)
                        if (stat.S_IMODE(st.st_mode), st.st_mtime_ns) not in attrs.get(rel, ()):
                            bad.append("restore exited 0 with a mode or mtime of %r no record holds" % rel)
            elif r.rc == 0 and what.startswith("verify"):
                for d in decoded:
                    if d is None or not plain(d[1]):
                        bad.append("%s passed a job with a damaged record or an unsafe path" % what)
                        break
                    if what == "verify --deep" and d[0] == 1 and (pool.content(d[2]) is None or
                                                                   hashlib.sha256(pool.content(d[2])).digest() != d[3]):
                        bad.append("verify --deep passed a job whose records do not match their data")
                        break
            stray = [os.path.join(watch, x) for x in os.listdir(watch)] + \
                [os.path.join(sand, x) for x in set(os.listdir(sand)) - {"in", "out"}] + \
                [os.path.join(sand, "in", x) for x in set(os.listdir(os.path.join(sand, "in"))) - {"t"}]
            if stray:
                bad.append("wrote outside the target: %s" % stray)
                for x in stray:
                    shutil.rmtree(x) if os.path.isdir(x) and not os.path.islink(x) else os.unlink(x)
            shutil.rmtree(os.path.join(sand, "in", "t"), ignore_errors=True)
            for b in bad:
                problems.append("mutant %d (%s), %s: %s" % (n, desc, what, b))
    with open(os.path.join(work, "containers.pool"), "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != pool_digest:
            problems.append("the containers changed")
    by_cmd = collections.defaultdict(dict)
    for (what, rc), v in sorted(outcomes.items()):
        by_cmd[what]["exit %d" % rc] = v
    print("# %d mutants of job 1's job_meta_data and recipe index" % count)
    for what, v in by_cmd.items():
        print("#   %-14s %s" % (what, ", ".join("%s: %d" % kv for kv in v.items())))
    for p in problems:
        print("FAIL: " + p)
    return not problems


if __name__ == "__main__":
    main()
