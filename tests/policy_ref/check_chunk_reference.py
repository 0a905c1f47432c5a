#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check_chunk_reference.py: holds every chunk policy of
chunk_reference_models.py against the C chunk policy of the same name,
decision by decision: the C side is chunk_decisions (the real chunk cache
core in simulation mode), fed the same chunk-access sequence. Sequences:
seeded files of variable-size chunks, many chunks shared between files
(dedup), requests for whole files or byte ranges, container-fetch offers
of neighbouring chunks after some accesses, files picked uniformly or
by Zipf (alpha 0.8 and 1.2); capacities from under one chunk to most of the
working set; default keys and some non-default ones (VARIANTS). Prints one
line per run and, on the first disagreement, the access number, both
decisions and the ten accesses before it; exits 1 if any run disagrees.

The policies that keep chunks when the chunk log reclaims a segment under
ssd-cache-segment-reclaim reinsert (lru, arc, tinylfu) are run again on
their log (chunk_log_reference.py: 64 KiB segments, capacities of two to
sixteen segments), where each admission's line also names the chunks the
log dropped ("-") and kept ("+").

The layout models (LAYOUT_MODELS: austere over ssd-cache-layout buckets)
are run on the same kind of sequences with full fingerprints: chunk ids
spread over 64 bits (some sharing another's prefix and bucket bytes), the
bytes past the eighth from SHA-256 of the id, given to the driver as
FPTAIL; capacities of one to nine buckets and one not a multiple.

Usage: check_chunk_reference.py DRIVER [--policies a,b] [--requests N]"""

import argparse
import hashlib
import random
import subprocess
import sys

from chunk_log_reference import REINSERT_MODELS
from chunk_reference_models import LAYOUT_MODELS, MODELS, offer

AVG_CHUNK = 8192
CAPACITIES = (4096, 65536, 262144, 1048576, 4194304)

# (policy, C keys, model arguments), run at capacities 262144 and 1048576
VARIANTS = (
    ("d-lru", ("d-lru-metadata-factor", "0.5"), {"factor": 0.5}),
    ("d-arc", ("d-arc-metadata-factor", "0.5"), {"factor": 0.5}),
    ("cdac-lru", ("cdac-lru-lambda", "0.2"), {"lam": 0.2}),
    ("cdac-lru", ("cdac-lru-alpha", "0.9"), {"alpha": 0.9}),
    ("cdac-lru", ("cdac-lru-alpha", "0"), {"alpha": 0.0}),
    ("cdac-lru", ("cdac-lru-sub-block", "512"), {"sub_block": 512}),
    ("cdac-lru", ("cdac-lru-metadata-factor", "0.3"), {"factor": 0.3}),
    ("cdac-arc", ("cdac-arc-lambda", "0.2"), {"lam": 0.2}),
    ("cdac-arc", ("cdac-arc-alpha", "0.9"), {"alpha": 0.9}),
    ("cdac-arc", ("cdac-arc-sub-block", "512"), {"sub_block": 512}),
    ("cdac-arc", ("cdac-arc-metadata-factor", "0.3"), {"factor": 0.3}),
    ("tinylfu", ("tinylfu-chunk-sample-factor", "2"), {"sample_factor": 2}),
    ("plc", ("plc-chunk-filter-threshold", "1"), {"threshold": 1}),
    ("plc", ("plc-chunk-filter-threshold", "0"), {"threshold": 0}),
    ("plc", ("plc-chunk-delay-threshold", "0"), {"delay": 0}),
    ("plc", ("plc-chunk-delay-threshold", "5"), {"delay": 5}),
    ("plc", ("plc-chunk-sample-factor", "2"), {"sample_factor": 2}),
    ("sigpop", ("sigpop-chunk-z", "0"), {"z": 0.0}),
    ("sigpop", ("sigpop-chunk-z", "0.5"), {"z": 0.5}),
    ("sigpop", ("sigpop-chunk-min-count", "0"), {"min_count": 0}),
    ("sigpop", ("sigpop-chunk-min-count", "5"), {"min_count": 5}),
    ("sigpop", ("sigpop-chunk-sample-factor", "2"), {"sample_factor": 2}),
)


def workload(rng, n_files, n_requests, alpha, offers=False):
    """Requests (lists of accesses): (chunk, length, address, offset, length).
    With offers, some accesses are followed by offers (chunk, length) of the
    chunks numbered after it, as a container fetch offers the chunks stored
    beside a missed one."""
    pool = 3 * n_files
    lengths = [rng.randrange(512, 3 * AVG_CHUNK) for _ in range(pool)]
    files = []
    for _ in range(n_files):
        files.append([rng.randrange(pool) if rng.random() < 0.6 else rng.randrange(pool // 4)
                      for _ in range(rng.randrange(1, 12))])
    weights = [1.0 / (i + 1) ** alpha for i in range(n_files)] if alpha else None
    requests = []
    for f in rng.choices(range(n_files), weights, k=n_requests):
        chunks = files[f]
        size = sum(lengths[c] for c in chunks)
        start, end = 0, size
        if rng.random() < 0.3:  # a byte range
            start = rng.randrange(size)
            end = rng.randrange(start + 1, size + 1)
        pos, req = 0, []
        for i, c in enumerate(chunks):
            lo, hi = pos, pos + lengths[c]
            pos = hi
            if hi <= start or lo >= end:
                continue
            off = max(start, lo) - lo
            req.append((c, lengths[c], f * 4096 + i, off, min(end, hi) - lo - off))
            if offers and rng.random() < 0.3:
                req.extend(((c + j) % pool, lengths[(c + j) % pool]) for j in range(1, rng.randrange(2, 8)))
        requests.append(req)
    return requests


def fp_tail(chunk):
    """Fingerprint bytes 8..31 of a layout model's chunk."""
    return hashlib.sha256(chunk.to_bytes(8, "little")).digest()[:24]


def fingerprint(chunk):
    return chunk.to_bytes(8, "little") + fp_tail(chunk)


def spread(requests, rng):
    """The same requests over chunk ids spread across 64 bits; a tenth of the
    chunks share bytes 0..5 (prefix and bucket) with another chunk. Every
    25th request is followed by one of a large chunk (one of eight, from a
    quarter of a bucket's sub-slots to all of them, or one byte more)."""
    ids = {}

    def new_id(c):
        if ids and rng.random() < 0.1:
            twin = rng.choice(list(ids.values()))
            return twin & (2 ** 48 - 1) | rng.randrange(1, 2 ** 16) << 48
        return rng.randrange(2 ** 64)

    out = []
    for req in requests:
        r = []
        for a in req:
            if a[0] not in ids:
                ids[a[0]] = new_id(a[0])
            r.append((ids[a[0]],) + a[1:])
        out.append(r)
        if len(out) % 25 == 24:
            big = rng.randrange(8)
            length = (65536, 100000, 131072, 200000, 250000, 262143, 262144, 262145)[big]
            out.append([(2 ** 63 + big, length, 10 ** 9 + big, 0, length)])
    return out


def line(a, tails):
    text = ("%d %d %d %d %d" if len(a) == 5 else "o %d %d") % a
    return text + " " + fp_tail(a[0]).hex() if tails else text


def run_c(driver, capacity, policy, keys, requests, tails=False):
    lines = []
    for req in requests:
        lines.extend(line(a, tails) for a in req)
        lines.append("-")
    args = [driver, str(capacity), str(AVG_CHUNK), "ssd-cache-policy", policy,
            "ssd-cache-granularity", "chunk"] + list(keys)
    out = subprocess.run(args, input="\n".join(lines) + "\n", capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("chunk_decisions failed: %s" % out.stderr)
    return out.stdout.splitlines()


REINSERT_SEGMENT = 65536
REINSERT_KEYS = ("ssd-cache-segment-reclaim", "reinsert", "ssd-cache-segment-size", str(REINSERT_SEGMENT))


def run_model(policy, capacity, kwargs, requests):
    if "segment" in kwargs:
        m = REINSERT_MODELS[policy](capacity, AVG_CHUNK, **kwargs)
    else:
        m = (LAYOUT_MODELS.get(policy) or MODELS[policy])(capacity, AVG_CHUNK, **kwargs)
    return [m.access(*a) if len(a) == 5 else offer(m, *a) for req in requests for a in req]


def compare(driver, policy, capacity, keys, kwargs, requests, label):
    c_side = run_c(driver, capacity, policy, keys, requests, tails=policy in LAYOUT_MODELS)
    py_side = run_model(policy, capacity, kwargs, requests)
    flat = [a for req in requests for a in req]
    hits = sum(1 for d in py_side if d == "h")
    kept = sum(d.count("+") for d in py_side)
    if c_side == py_side:
        print("ok   %-9s %-28s cap %8d: %d accesses, %d hits%s" % (
            policy, label, capacity, len(flat), hits, ", %d kept" % kept if "segment" in kwargs else ""))
        return True
    i = next(k for k in range(min(len(c_side), len(py_side)) + 1)
             if k >= len(c_side) or k >= len(py_side) or c_side[k] != py_side[k])
    print("FAIL %-9s %-28s cap %8d: access %d %s: C %r, model %r" % (
        policy, label, capacity, i + 1, flat[i] if i < len(flat) else None,
        c_side[i] if i < len(c_side) else None, py_side[i] if i < len(py_side) else None))
    for k in range(max(0, i - 10), i):
        print("     %d %s -> %s" % (k + 1, flat[k], py_side[k]))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("driver")
    ap.add_argument("--policies", default=",".join(list(MODELS) + list(LAYOUT_MODELS)))
    ap.add_argument("--requests", type=int, default=1500)
    a = ap.parse_args()
    ok = True
    policies = [p for p in a.policies.split(",") if p in MODELS]
    layouts = [p for p in a.policies.split(",") if p in LAYOUT_MODELS]
    for seed, alpha in ((1, 0.0), (2, 0.8), (3, 1.2)):
        requests = workload(random.Random(seed), 200, a.requests, alpha)
        for policy in policies:
            for cap in CAPACITIES:
                ok &= compare(a.driver, policy, cap, (), {}, requests, "seed %d alpha %.1f" % (seed, alpha))
    requests = workload(random.Random(5), 200, a.requests, 0.8, offers=True)
    for policy in policies:
        for cap in CAPACITIES:
            ok &= compare(a.driver, policy, cap, (), {}, requests, "seed 5 alpha 0.8 offers")
    requests = workload(random.Random(7), 200, a.requests, 0.8)
    for policy, keys, kwargs in VARIANTS:
        if policy in policies:
            for cap in (262144, 1048576):
                ok &= compare(a.driver, policy, cap, keys, kwargs, requests, " ".join(keys))
    for seed, alpha in ((21, 0.8), (22, 1.2)):
        requests = workload(random.Random(seed), 200, a.requests, alpha)
        for policy in [p for p in policies if p in REINSERT_MODELS]:
            for cap in (2 * REINSERT_SEGMENT, 262144, 1048576):
                ok &= compare(a.driver, policy, cap, REINSERT_KEYS, {"segment": REINSERT_SEGMENT}, requests,
                              "reinsert seed %d alpha %.1f" % (seed, alpha))
    bucket = 8192 + 128 * 2048  # docs/FORMAT.md, "Chunk buckets"
    for policy in layouts:
        keys = ("ssd-cache-layout", "buckets")
        for seed, alpha, offers in ((11, 0.0, False), (12, 0.8, False), (13, 1.2, True)):
            rng = random.Random(seed)
            requests = spread(workload(rng, 200, a.requests, alpha, offers), rng)
            for cap in (bucket, 2 * bucket + 4096, 4 * bucket, 9 * bucket):
                ok &= compare(a.driver, policy, cap, keys, {"fingerprint": fingerprint}, requests,
                              "seed %d alpha %.1f%s" % (seed, alpha, " offers" if offers else ""))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
