#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_cache.py: I/O faults on the SSD cache's own files while read-file
reads through it (ssd-cache-policy lru, ssd-cache-size 4, real mode).

Only calls on files in the cache directory are counted and failed
(FAULT_PATH), so every fault is trouble with the SSD, which must never fail
a read: the cache drops the copy and serves the container from the store.
N sweeps every read, write, fsync, rename, ftruncate, open and close on
slots.dat, cache.meta and LOCK of a trace run (--trace --verify --json, which checks every
file's SHA-256), of a single read-file -o and of a restore, once and from then on. Each
run must succeed with the right bytes, and a fault on slots.dat must show
in the JSON counters (ssd_read_errors, ssd_write_errors). Afterwards the
same cache directory must open and serve the trace again, without faults,
with the right bytes; the store must be unchanged.

An I/O error while the cache opens (LOCK, slots.dat, cache.meta) makes
destor warn and read from the store without the cache (the JSON's "cache"
is null); one while it closes (fsync of slots.dat, publishing cache.meta)
is a warning, and the next open checks every entry.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

KINDS = ("read", "write", "fsync", "rename", "truncate", "open", "close")


def cache_config(path, work, cache_dir):
    return fl.write_config(path, work, "container-size 128K", "ssd-cache-policy lru",
                           'ssd-cache-directory "%s"' % cache_dir, "ssd-cache-size 4")


def main():
    fl.require_env()
    scratch = fl.Scratch("fault-cache")
    shim = fl.shim(scratch)
    cfg, work, _, v2 = fl.two_version_store(scratch, 63)
    digest = fl.store_digest(work)

    # A trace with hits, misses and evictions in a 4-container cache.
    files = sorted(fl.list_files(cfg, 1), key=lambda f: f[1])
    names = [p for p, _ in files if b"\n" not in p and b"\r" not in p]
    trace = scratch.path("trace")
    # Three small hot files (a container or two between them) give hits;
    # every fourth request is a cold one that misses and evicts.
    small = [p for p, size in files if 8192 <= size <= 32768 and b"\n" not in p and b"\r" not in p]
    hot = small[:3]
    with open(trace, "wb") as f:
        for i in range(40):
            p = hot[i % len(hot)] if i % 4 else names[(i * 11) % len(names)]
            f.write(b"1\t%s\n" % p)
    big = names[-1]
    want_big = open(os.path.join(v2.encode(), big), "rb").read()

    warm = scratch.path("cache.warm")
    r = fl.destor(cache_config(scratch.path("warm.config"), work, warm), "read-file", "--trace", trace, "--json")
    if r.rc != 0:
        fl.die(r.describe())
    c = json.loads(r.out)["cache"]
    if not (c["hits"] > 0 and c["evictions"] > 0 and c["cached_containers"] == 4):
        fl.die("the warm-up trace gives no hits or evictions: %s" % c)
    print("# warm-up: %d accesses, %d hits, %d evictions" % (c["accesses"], c["hits"], c["evictions"]))

    commands = {
        "trace": ["read-file", "--trace", trace, "--verify", "--json"],
        "read-file -o": ["read-file", "1", "-o", None, "--", big.decode("utf-8", "surrogateescape")],
        "restore": ["restore", "1", None],
    }
    want_v2 = fl.tree(v2)

    def counts(name):
        cache = scratch.path("count.cache")
        shutil.rmtree(cache, ignore_errors=True)
        fl.copy_tree(warm, cache)
        cf = scratch.path("count.txt")
        out = scratch.path("count.out")
        shutil.rmtree(out, ignore_errors=True)
        if os.path.exists(out):
            os.unlink(out)
        args = [a if a is not None else out for a in commands[name]]
        r = fl.destor(cache_config(scratch.path("count.config"), work, cache), *args,
                      env={"LD_PRELOAD": shim, "FAULT_COUNT_FILE": cf, "FAULT_PATH": cache + "/"})
        if r.rc != 0:
            fl.die("undisturbed %s under the shim failed: %s" % (name, r.describe()))
        return fl.read_counts(cf)

    sweep = fl.Sweep("SSD cache I/O faults", io_bound=True)
    cases = []
    seq = [0]
    for name in commands:
        c = counts(name)
        print("# calls on the cache directory, %s: %s" % (name, " ".join("%s %d" % (k, c[k]) for k in KINDS)))
        if name == "trace" and (c["read"] == 0 or c["write"] == 0):
            fl.die("the shim saw no cache reads or writes")
        for kind in KINDS:
            for at in fl.evenly(c[kind], fl.scale(30 if name == "trace" else 8 if name == "read-file -o" else 12)):
                for repeat in (1, 0):
                    errno = "EIO" if kind == "read" or (at + repeat) % 2 else "ENOSPC"
                    seq[0] += 1
                    desc = "%s: FAULT_CALL=%s FAULT_AT=%d FAULT_ERRNO=%s FAULT_REPEAT=%d FAULT_PATH=<cache>/" % (
                        name, kind, at, errno, repeat)
                    category = "%s, cache %s %s" % (name, kind, "once" if repeat else "from then on")
                    a = (scratch, shim, work, warm, digest, commands[name], trace, (want_big, want_v2), seq[0],
                         kind, at, errno, repeat)
                    cases.append((category, desc, lambda a=a: cache_case(*a)))
    sweep.run(cases)
    ok = sweep.summary()
    scratch.finish(ok)
    sys.exit(0 if ok else 1)


def cache_case(scratch, shim, work, warm, digest, command, trace, want, n, kind, at, errno, repeat):
    want_big, want_v2 = want
    case = scratch.path("case%04d" % n)
    os.mkdir(case)
    cache = os.path.join(case, "cache")
    fl.copy_tree(warm, cache)
    cfg = cache_config(os.path.join(case, "destor.config"), work, cache)
    out = os.path.join(case, "out")
    args = [a if a is not None else out for a in command]
    count_file = os.path.join(case, "count.txt")
    r = fl.destor(cfg, *args, env=fl.fault_env(shim, kind, at, errno, repeat, cache + "/", count_file))
    c = fl.read_counts(count_file)
    first = c.get("first", ("", 0, ""))
    target = os.path.basename(first[2])
    fl.check(not r.crashed, "crashed: " + r.describe())
    fl.check(not r.bad_stderr(), "memory error reported: " + r.describe())
    fl.check(r.rc == 0, "a fault on the SSD cache failed the read: " + r.describe())
    without_cache = "SSD cache unavailable" in r.err_text()
    if "--json" in command:
        stats = json.loads(r.out)
        fl.check(stats["requests"] == 40, "the trace summary counts %s requests" % stats["requests"])
        k = stats["cache"]
        fl.check((k is None) == without_cache, "cache statistics do not match the warnings: " + r.describe())
        if k is not None:
            if c.get("fired") and target == "slots.dat" and first[0].startswith("pwrite"):
                fl.check(k["ssd_write_errors"] >= 1, "a failed slot write is not counted: %s" % k)
            if c.get("fired") and target == "slots.dat" and first[0].startswith("pread"):
                fl.check(k["ssd_read_errors"] >= 1, "a failed slot read is not counted: %s" % k)
            fl.check(k["hits"] + k["misses"] == k["accesses"], "hits + misses != accesses: %s" % k)
    elif command[0] == "restore":
        problems = fl.tree_diff(want_v2, out)
        fl.check(not problems, "restore through the cache differs: %s" % problems[:5])
    else:
        fl.check(open(out, "rb").read() == want_big, "read-file -o through the cache returned wrong bytes")
    if not c.get("fired"):
        outcome = "succeeded, fault not reached"
    elif without_cache:
        outcome = "succeeded without the cache (%s on %s at open)" % (first[0], target)
    elif target == "slots.dat" and kind in ("read", "write") and "--json" in command:
        outcome = "succeeded, %s on %s counted" % (first[0], target)
    else:
        outcome = "succeeded, %s on %s" % (first[0], target)
    # The same cache directory opens again and serves the right bytes.
    r2 = fl.destor(cfg, "read-file", "--trace", trace, "--verify", "--json")
    fl.check(r2.rc == 0, "the cache directory is unusable after the fault: " + r2.describe())
    fl.check(fl.store_digest(work) == digest, "the store changed under a reader")
    shutil.rmtree(case)
    return outcome


if __name__ == "__main__":
    main()
