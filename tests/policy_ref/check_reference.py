#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check_reference.py: holds every policy of reference_models.py against
the C policy of the same name, decision by decision: the C side is
policy_decisions (the real cache core in simulation mode), fed the same
container-id sequence (an offline policy, on either side, gets all of it
before the first access). Sequences: seeded uniform random and Zipf
(alpha 0.8 and 1.2), at capacities 1, 2, 7, 100 and 1000, with default
keys, and some non-default keys (VARIANTS). A model whose class sets
STORE_SIZED also gets the sequence's n_containers. Prints one line
per run and, on the first disagreement, the access number, the id, both
decisions and the ten accesses before it; exits 1 if any run disagrees.

Usage: check_reference.py DRIVER [--policies a,b] [--length N]"""

import argparse
import bisect
import random
import subprocess
import sys

from reference_models import MODELS

CAPACITIES = (1, 2, 7, 100, 1000)

# Non-default keys: (policy, config keys for the C side, model arguments),
# checked on the Zipf 0.8 sequence at capacities 7 and 100.
VARIANTS = (
    ("2q", ("2q-kin", "0.1", "2q-kout", "1.5"), {"kin_share": 0.1, "kout_share": 1.5}),
    ("s3fifo", ("s3fifo-small-ratio", "0.3"), {"small_ratio": 0.3}),
    ("tinylfu", ("tinylfu-sample-factor", "2"), {"sample_factor": 2}),
    ("wtinylfu", ("wtinylfu-window-ratio", "0.2", "wtinylfu-sample-factor", "3"),
     {"window_ratio": 0.2, "sample_factor": 3}),
    ("sigpop", ("sigpop-z", "0"), {"z": 0.0}),
    ("sigpop", ("sigpop-z", "1"), {"z": 1.0}),
    ("sigpop", ("sigpop-min-count", "3"), {"min_count": 3}),
    ("sigpop", ("sigpop-age-window", "0.5"), {"age_window": 0.5}),
    ("sigpop", ("sigpop-age-window", "0"), {"age_window": 0.0}),
    ("sigpop", ("cache-counters", "sketch"), {"counters": "sketch"}),
    ("sigpop", ("cache-counters", "compact", "sigpop-age-window", "0"), {"counters": "compact", "age_window": 0.0}),
    ("adapt", ("adapt-learning-rate", "2"), {"lam": 2.0}),
    ("adapt", ("adapt-weight-floor", "0.2"), {"floor": 0.2}),
    ("adapt", ("adapt-ghost-share", "1.5"), {"share": 1.5}),
    ("adapt", ("adapt-admit-threshold", "0.9"), {"theta": 0.9}),
    ("adapt", ("adapt-admit-threshold", "0"), {"theta": 0.0}),
    ("minisim", ("minisim-mini-slots", "3"), {"mini_slots": 3}),
    ("minisim", ("minisim-mini-slots", "20", "minisim-window", "1"), {"mini_slots": 20, "window": 1.0}),
    ("minisim", ("minisim-write-price", "0"), {"price": 0.0}),
    ("minisim", ("minisim-write-price", "5", "minisim-ghost-share", "1.5"), {"price": 5.0, "share": 1.5}),
    ("wlfu", ("wlfu-age-window", "0.5"), {"age_window": 0.5}),
    ("wlfu", ("wlfu-age-window", "0", "wlfu-ghost-share", "2"), {"age_window": 0.0, "ghost_share": 2.0}),
    ("wlfu", ("wlfu-ghost-share", "0"), {"ghost_share": 0.0}),
    ("wlfu", ("cache-counters", "sketch", "wlfu-age-window", "0.5"), {"counters": "sketch", "age_window": 0.5}),
    ("wlfu", ("cache-counters", "compact"), {"counters": "compact"}),
    ("sigpop", ("cache-counters", "sketch", "sigpop-age-window", "0.5"),
     {"counters": "sketch", "age_window": 0.5}),
)


def uniform_sequence(rng, n, length):
    return [rng.randrange(n) for _ in range(length)]


def zipf_sequence(rng, n, length, alpha):
    cum, total = [], 0.0
    for rank in range(1, n + 1):
        total += rank ** -alpha
        cum.append(total)
    ids = list(range(n))
    rng.shuffle(ids)  # popularity unrelated to the id's value
    return [ids[min(bisect.bisect_left(cum, rng.random() * total), n - 1)]
            for _ in range(length)]


def sequences(capacity, length):
    """(label, n_containers, ids) for one capacity; seeds fixed per capacity."""
    rng = random.Random(1000 + capacity)
    n_uniform = 3 * capacity + 3
    n_zipf = 10 * capacity + 20
    yield "uniform", n_uniform, uniform_sequence(rng, n_uniform, length)
    yield "zipf-0.8", n_zipf, zipf_sequence(rng, n_zipf, length, 0.8)
    yield "zipf-1.2", n_zipf, zipf_sequence(rng, n_zipf, length, 1.2)


def run_driver(driver, policy, capacity, n, ids, keys=()):
    cmd = [driver, str(n), "ssd-cache-policy", policy, "ssd-cache-size", str(capacity)] + list(keys)
    out = subprocess.run(cmd, input="\n".join(map(str, ids)) + "\n", capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        sys.exit("check_reference: %s failed: %s" % (" ".join(cmd), out.stderr.strip()))
    return out.stdout.splitlines()


def check(driver, policy, capacity, label, n, ids, keys=(), model_args=None):
    args = dict(model_args or {})
    if getattr(MODELS[policy], "STORE_SIZED", False):
        args["n_containers"] = n
    model = MODELS[policy](capacity, **args)
    if getattr(model, "OFFLINE", False):
        model.prepare(ids)
    got = run_driver(driver, policy, capacity, n, ids, keys)
    want = [model.access(x) for x in ids]
    hits = sum(1 for d in want if d == "h")
    admits = sum(1 for d in want if d[0] in "ae")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("FAIL %s C=%d %s: access %d (id %d): C says %r, reference %r; before: %s"
                  % (policy, capacity, label, i, ids[i], g, w, ids[max(0, i - 10):i]))
            return False
    if len(got) != len(want):
        print("FAIL %s C=%d %s: %d decisions from C, %d accesses"
              % (policy, capacity, label, len(got), len(want)))
        return False
    print("ok %s C=%d %s: %d accesses, %d hits, %d admissions"
          % (policy, capacity, label, len(ids), hits, admits))
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("driver")
    ap.add_argument("--policies", default=",".join(MODELS))
    ap.add_argument("--length", type=int, default=12000)
    args = ap.parse_args()
    ok = True
    for capacity in CAPACITIES:
        for label, n, ids in sequences(capacity, args.length):
            for policy in args.policies.split(","):
                ok = check(args.driver, policy, capacity, label, n, ids) and ok
    for policy, keys, model_args in VARIANTS:
        if policy not in args.policies.split(","):
            continue
        for capacity in (7, 100):
            for label, n, ids in sequences(capacity, args.length):
                if label == "zipf-0.8":
                    ok = check(args.driver, policy, capacity, label + " " + " ".join(keys), n, ids,
                               keys, model_args) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
