#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""admission_reference.py: the admission rules that rank misses by value
(compete, learned; docs/ADMISSION.md) in front of an LRU cache, written
from their definitions, held against the C rules decision by decision:
the C side is policy_decisions --requests (the real cache core in
simulation mode, lru, ssd-cache-admission and ssd-cache-write-budget set,
each access a request of its own, containers of 4096 bytes). `learned`'s
oracle is the C planner run by opt_plan (it is held against exhaustive
search in tests/unit/test_policy_offline.c); everything else here (the
sketch, the features, the sampling, the windows, the SGD, the controller,
the credit) is this file's. Sequences over a store of 400 containers
(learned's miniature: at most 400 / 32 = 12 slots): Zipf 0.8 and 1.2, at
capacities 7 (every container in the oracle's miniature) and 100
(sampled), budgets of
0.1 and 0.4 containers a request; and the same in DWPD
(ssd-cache-write-budget-dwpd) over requests with times, gaps of 0 to 2 s
(a quarter of them 0), the DWPD giving 0.1 and 0.4 containers a request
on average; and learned over a store of 128 containers at capacity 7
(a miniature of 4 slots: sampled though C <= 32).
Exits 1 at the first disagreement.

Usage: admission_reference.py POLICY_DECISIONS OPT_PLAN"""

import collections
import math
import random
import subprocess
import sys

from check_reference import zipf_sequence
from reference_models import Sketch

CONTAINER = 4096
STEPS, LOW = 16, 40
RANKS = (LOW + 32) * STEPS
MASK64 = (1 << 64) - 1


def value_rank(ratio):
    if not ratio > 0:
        return 0
    rank = 1 + math.floor((math.log2(ratio) + LOW) * STEPS)
    return min(max(rank, 1), RANKS - 1)


NS_PER_DAY = 86400e9


class Credit:
    """The write budget's bucket: one cache deep, full at open; a request
    brings `rate` bytes, or with a DWPD (rate None) DWPD x depth x the
    nanoseconds since the previous request / 86400e9 (the first none),
    and then `rate` is the mean the requests after the first brought."""

    def __init__(self, rate, depth, dwpd=None):
        self.depth, self.credit = depth, depth
        self.rate = 0.0 if dwpd else rate
        self.per_day = dwpd * depth if dwpd else None
        self.gained, self.intervals, self.last = 0.0, 0, None

    def request(self, now=0):
        gain = self.rate
        if self.per_day is not None:
            gain = 0.0
            if self.last is not None:
                gain = self.per_day * float(now - self.last) / NS_PER_DAY
                self.gained += gain
                self.intervals += 1
                self.rate = self.gained / self.intervals
            self.last = now
        self.credit = min(self.credit + gain, self.depth)

    def fill_next(self):
        nxt = self.credit + self.rate
        if self.depth <= 0 or nxt <= 0:
            return 0.0
        return 1.0 if nxt >= self.depth else nxt / self.depth


class Share:
    """The best share of the candidates seen, by rank; error diffusion at
    the threshold's rank."""

    def __init__(self):
        self.seen = [0.0] * RANKS
        self.n = 0.0
        self.carry = 0.0

    def halve(self):
        self.seen = [math.floor(v / 2) for v in self.seen]
        self.n = 0.0
        for v in self.seen:
            self.n += v

    def see(self, rank):
        self.seen[rank] += 1
        self.n += 1

    def admit(self, rank, share):
        want = share * self.n
        better, i = 0.0, rank + 1
        while i < RANKS and better < want:
            better += self.seen[i]
            i += 1
        if better >= want:
            return False
        if better + self.seen[rank] <= want:
            return True
        self.carry += (want - better) / self.seen[rank]
        if self.carry < 1:
            return False
        self.carry -= 1
        return True


class Compete:
    def __init__(self, rate, capacity, oracle, dwpd=None):
        self.credit = Credit(rate, capacity * CONTAINER, dwpd)
        self.sketch = Sketch(capacity, 10 * capacity)
        self.share = Share()

    def request(self, now=0):
        self.credit.request(now)

    def access(self, x):
        before = self.sketch.adds
        self.sketch.add(x)
        if self.sketch.adds <= before:
            self.share.halve()

    def admit(self, x, size):
        rank = value_rank(self.sketch.estimate(x) / size)
        self.share.see(rank)
        return self.credit.credit >= size and self.share.admit(rank, self.credit.fill_next())


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def predict(w, x):
    z = 0.0
    for wj, xj in zip(w, x):
        z += wj * xj
    return 1.0 / (1.0 + math.exp(-z))


class LastSeen:
    """The last-seen table: T 16-bit cells, two choices an object, a 6-bit
    tag, the epoch mod 32 and the epochs since the access before (31: none)."""
    WINDOW, NONE, WRAP = 16, 31, 32

    def __init__(self, cells):
        self.cells = [0] * cells
        self.mask = cells - 1

    def age(self, c, epoch):
        return (epoch - ((c >> 5) & 31)) % self.WRAP

    def access(self, key, epoch):
        h = mix64(key)
        at = (h & self.mask, mix64((key + 0x9E3779B97F4A7C15) & MASK64) & self.mask)
        tag = 1 + (h >> 32) % 63
        a = g = self.NONE
        pick = None
        for i in range(2):
            c = self.cells[at[i]]
            if c and c >> 10 == tag and self.age(c, epoch) <= self.WINDOW:
                a, g, pick = self.age(c, epoch), c & 31, i
                break
        if pick is None:
            c0, c1 = self.cells[at[0]], self.cells[at[1]]
            if c0 == 0:
                pick = 0
            elif c1 == 0:
                pick = 1
            else:
                pick = 1 if self.age(c1, epoch) > self.age(c0, epoch) else 0
        self.cells[at[pick]] = tag << 10 | (epoch % self.WRAP) << 5 | a
        return a, g

    def sweep(self, epoch):
        self.cells = [c if c and self.age(c, epoch) <= self.WINDOW else 0 for c in self.cells]


class Learned(Compete):
    MINI, PASSES, RATE, CONTAINERS_A_SLOT = 32, 4, 0.25, 32

    def __init__(self, rate, capacity, oracle, dwpd=None, containers=0):
        super().__init__(rate, capacity, oracle, dwpd)
        self.oracle = oracle
        self.window = 10 * capacity
        self.epoch_len = -(-self.window // LastSeen.WINDOW)
        self.seen = LastSeen(4 * self.sketch.width)
        self.mini = min(capacity, self.MINI)
        if containers:  # the store's containers bound the miniature: at most N / 32 slots, at least 1
            self.mini = min(self.mini, max(1, containers // self.CONTAINERS_A_SLOT))
        self.threshold = int(self.mini / capacity * 4294967296.0) if capacity > self.mini else None
        self.mini_share = self.mini / capacity
        self.w = [0.0, 1.0, 0.0, 0.0]
        self.accesses = 0
        self.samples, self.before = [], 0
        self.requests_before = self.requests_since = 0
        self.asked_bytes = self.asked = 0.0
        self.x = None

    def request(self, now=0):
        super().request(now)
        self.requests_since += 1

    def scaled(self, r):
        return min(math.log2(1.0 + r) / math.log2(1.0 + self.window), 1.0)

    def features(self, e, a, g):
        return [1.0, math.log2(1.0 + e) / 4,
                1.0 if a == LastSeen.NONE else self.scaled(a * self.epoch_len),
                1.0 if g == LastSeen.NONE else self.scaled(g * self.epoch_len)]

    def access(self, key):
        before = self.sketch.adds
        self.sketch.add(key)
        turned = self.sketch.adds <= before
        self.accesses += 1
        e = self.sketch.estimate(key)
        a, g = self.seen.access(key, self.accesses // self.epoch_len)
        self.x = self.features(e, a, g)
        if self.threshold is None or (mix64(key) >> 32) < self.threshold:
            self.samples.append((mix64(key) & 0xFFFF, (e, a, g)))
        if turned:
            self.share.halve()
            self.asked_bytes = math.floor(self.asked_bytes / 2)
            self.asked = math.floor(self.asked / 2)
            self.seen.sweep(self.accesses // self.epoch_len)
            self.train()
            self.samples = self.samples[self.before:]
            self.before = len(self.samples)
            self.requests_before, self.requests_since = self.requests_since, 0

    def train(self):
        n = len(self.samples)
        if n == 0:
            return
        nxt, later = [-1] * n, {}
        for i in range(n - 1, -1, -1):
            key = self.samples[i][0]
            nxt[i] = later.get(key, -1)
            later[key] = i
        mean = self.asked_bytes / self.asked if self.asked > 0 else 1
        budget = math.floor(self.credit.rate * self.mini_share * (self.requests_before + self.requests_since) / mean)
        plan = self.oracle(nxt, self.mini, budget)
        held = [False] * n
        for i in range(n):
            if plan[i] & 2 and nxt[i] >= 0:
                held[nxt[i]] = True
        for _ in range(self.PASSES):
            for i in range(n):
                if held[i]:
                    continue
                x = self.features(*self.samples[i][1])
                g = predict(self.w, x) - (1.0 if plan[i] & 1 else 0.0)
                for j in range(4):
                    self.w[j] -= self.RATE * g * x[j]

    def admit(self, key, size):
        self.asked_bytes += size
        self.asked += 1
        rank = value_rank(predict(self.w, self.x) / size)
        self.share.see(rank)
        return self.credit.credit >= size and self.share.admit(rank, self.credit.fill_next())


def decisions(rule, capacity, ids, times=None):
    """The LRU cache's decision at each access (a request at times[k], or
    0), the rule asked first."""
    lru = collections.OrderedDict()
    out = []
    for k, x in enumerate(ids):
        rule.request(times[k] if times else 0)
        rule.access(x)
        if x in lru:
            lru.move_to_end(x)
            out.append("h")
        elif not rule.admit(x, CONTAINER):
            out.append("r")
        else:
            rule.credit.credit -= CONTAINER
            if len(lru) < capacity:
                out.append("a")
            else:
                victim, _ = lru.popitem(last=False)
                out.append("e %d" % victim)
            lru[x] = True
    return out


def main(argv):
    driver, opt_plan = argv[1], argv[2]

    def oracle(nxt, cap, budget):
        text = "%d\n%s\n" % (len(nxt), " ".join(map(str, nxt)))
        r = subprocess.run([opt_plan, str(cap), str(budget), "1"], input=text, capture_output=True,
                           text=True, check=True)
        return [int(v) for v in r.stdout.split()]

    failed = 0
    rng = random.Random(38)
    n = 400
    cases = []
    for name, cls in (("compete", Compete), ("learned", Learned)):
        for alpha in (0.8, 1.2):
            ids = zipf_sequence(rng, n, 6000, alpha)
            for capacity in (7, 100):
                for share in (0.1, 0.4):
                    cases.append((name, cls, alpha, ids, capacity, share, None, n))
        # DWPD: gaps of 0 to 2 s, 0.75 s on average (a quarter of them 0)
        ids = zipf_sequence(rng, n, 6000, 0.8)
        times, now = [], 0
        for _ in ids:
            times.append(now)
            now += rng.randrange(1, 2 * 10 ** 9) if rng.random() < 0.75 else 0
        for capacity in (7, 100):
            for share in (0.1, 0.4):
                cases.append((name, cls, 0.8, ids, capacity, share, times, n))
    # a store of 128 containers: learned's miniature is 4 slots (N / 32), sampled though C <= 32
    small = 128
    ids = zipf_sequence(rng, small, 6000, 0.8)
    for share in (0.1, 0.4):
        cases.append(("learned", Learned, 0.8, ids, 7, share, None, small))
    for name, cls, alpha, ids, capacity, share, times, containers in cases:
        rate = share * CONTAINER
        dwpd = share * 86400 / capacity / 0.75 if times else None  # share containers a request, on average
        cmd = [driver, "--requests", str(containers), "ssd-cache-policy", "lru", "ssd-cache-size", str(capacity),
               "ssd-cache-admission", name] + (["ssd-cache-write-budget-dwpd", repr(dwpd)] if times else
                                               ["ssd-cache-write-budget", repr(rate)])
        text = "\n".join("%d@%d" % (x, times[k]) if times else str(x) for k, x in enumerate(ids))
        got = subprocess.run(cmd, input=text + "\n", capture_output=True,
                             text=True, check=True).stdout.splitlines()
        rule = cls(rate, capacity, oracle, dwpd, containers) if cls is Learned else cls(rate, capacity, oracle, dwpd)
        want = decisions(rule, capacity, ids, times)
        label = "%s zipf %.1f N=%d C=%d budget %.1f%s" % (name, alpha, containers, capacity, share,
                                                            " in DWPD" if times else "")
        bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
        if bad is None and len(got) != len(want):
            bad = min(len(got), len(want))
        if bad is not None:
            print("FAIL %s: access %d (id %d): C %s, model %s" % (
                label, bad, ids[bad], got[bad] if bad < len(got) else "-",
                want[bad] if bad < len(want) else "-"))
            failed += 1
            continue
        print("ok %s: %d accesses, %d hits, %d refused" % (
            label, len(ids), want.count("h"), want.count("r")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
