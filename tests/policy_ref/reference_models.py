# SPDX-License-Identifier: GPL-3.0-or-later
"""reference_models.py: plain Python models of the field's cache policies
and of the offline bounds (belady, offline-static), written from their
papers and /work/shared/POLICIES.md with the choices documented in
docs/CACHE.md (not from the C in src/cache/). Each model is a
class with access(x) returning the decision at that access, in the format of
tests/policy_ref/policy_decisions: "h" hit, "r" refused, "a" admitted into a
free slot, "e ID" admitted in place of container ID. An offline model
(OFFLINE = True) is handed the whole sequence by prepare(seq) first.

The models keep containers by id in ordered dicts (oldest first), never by
slot, and use no shared code with the C, so a slip in one is unlikely to be
repeated in the other."""

import math
from collections import OrderedDict

MASK64 = (1 << 64) - 1


def _oldest(od):
    return next(iter(od))


def _admitted(victim):
    return "a" if victim is None else "e %d" % victim


class Clock:
    """Second chance: a ring of frames with one reference bit each; the hand
    clears set bits and takes the first clear frame, the newcomer sits in that
    frame with a clear bit and the hand steps past it."""

    def __init__(self, capacity):
        self.cap = capacity
        self.frames = []      # container ids in ring order
        self.ref = {}         # id -> bit
        self.hand = 0

    def access(self, x):
        if x in self.ref:
            self.ref[x] = 1
            return "h"
        if len(self.frames) < self.cap:
            # before the ring is full, frames are added just behind the hand
            self.frames.insert(self.hand, x)
            self.hand = (self.hand + 1) % len(self.frames)
            self.ref[x] = 0
            return "a"
        while self.ref[self.frames[self.hand]]:
            self.ref[self.frames[self.hand]] = 0
            self.hand = (self.hand + 1) % self.cap
        victim = self.frames[self.hand]
        del self.ref[victim]
        self.frames[self.hand] = x
        self.ref[x] = 0
        self.hand = (self.hand + 1) % self.cap
        return _admitted(victim)


class Sieve:
    """SIEVE (NSDI 2024): a list from the newest (head) to the oldest (tail);
    hits set visited; the hand moves from the tail towards the head, clearing
    visited, evicts the first unvisited object and keeps its place."""

    def __init__(self, capacity):
        self.cap = capacity
        self.items = []       # index 0 = oldest (the paper's tail)
        self.visited = {}
        self.hand = None      # id under the hand, or None (start at the tail)

    def access(self, x):
        if x in self.visited:
            self.visited[x] = True
            return "h"
        victim = None
        if len(self.items) == self.cap:
            i = self.items.index(self.hand) if self.hand is not None else 0
            while self.visited[self.items[i]]:
                self.visited[self.items[i]] = False
                i = i + 1 if i + 1 < len(self.items) else 0
            victim = self.items[i]
            self.hand = self.items[i + 1] if i + 1 < len(self.items) else None
            del self.items[i]
            del self.visited[victim]
        self.items.append(x)
        self.visited[x] = False
        return _admitted(victim)


class TwoQ:
    """Full 2Q (VLDB 1994) with Kin = 25% and Kout = 50% of C (rounded down)."""

    def __init__(self, capacity, kin_share=0.25, kout_share=0.5):
        self.cap = capacity
        self.kin = int(kin_share * capacity)
        self.kout = int(kout_share * capacity)
        self.a1in = OrderedDict()
        self.a1out = OrderedDict()
        self.am = OrderedDict()

    def _reclaim(self):
        if len(self.a1in) + len(self.am) < self.cap:
            return None
        if len(self.a1in) > self.kin or not self.am:
            y = _oldest(self.a1in)
            del self.a1in[y]
            if self.kout > 0:
                self.a1out[y] = True
                while len(self.a1out) > self.kout:
                    self.a1out.popitem(last=False)
            return y
        y = _oldest(self.am)
        del self.am[y]
        return y

    def access(self, x):
        if x in self.am:
            self.am.move_to_end(x)
            return "h"
        if x in self.a1in:
            return "h"
        if x in self.a1out:
            del self.a1out[x]
            victim = self._reclaim()
            self.am[x] = True
        else:
            victim = self._reclaim()
            self.a1in[x] = True
        return _admitted(victim)


class Arc:
    """ARC (FAST 2003), Fig. 4, with an integer p and integer ratios."""

    def __init__(self, capacity):
        self.c = capacity
        self.p = 0
        self.t1, self.t2 = OrderedDict(), OrderedDict()   # LRU first
        self.b1, self.b2 = OrderedDict(), OrderedDict()

    def _full(self):
        return len(self.t1) + len(self.t2) >= self.c

    def _replace(self, x_in_b2):
        t1 = len(self.t1)
        if t1 >= 1 and (t1 > self.p or (x_in_b2 and t1 == self.p)):
            y = _oldest(self.t1)
            del self.t1[y]
            self.b1[y] = True
        else:
            y = _oldest(self.t2)
            del self.t2[y]
            self.b2[y] = True
        return y

    def access(self, x):
        if x in self.t1:
            del self.t1[x]
            self.t2[x] = True
            return "h"
        if x in self.t2:
            self.t2.move_to_end(x)
            return "h"
        victim = None
        if x in self.b1:
            d = 1 if len(self.b1) >= len(self.b2) else len(self.b2) // len(self.b1)
            self.p = min(self.p + d, self.c)
            del self.b1[x]
            if self._full():
                victim = self._replace(False)
            self.t2[x] = True
        elif x in self.b2:
            d = 1 if len(self.b2) >= len(self.b1) else len(self.b1) // len(self.b2)
            self.p = max(self.p - d, 0)
            del self.b2[x]
            if self._full():
                victim = self._replace(True)
            self.t2[x] = True
        else:
            l1 = len(self.t1) + len(self.b1)
            total = l1 + len(self.t2) + len(self.b2)
            if l1 == self.c:
                if len(self.t1) < self.c:
                    self.b1.popitem(last=False)
                    if self._full():
                        victim = self._replace(False)
                else:
                    victim = _oldest(self.t1)
                    del self.t1[victim]
            elif total >= self.c:
                if total == 2 * self.c:
                    self.b2.popitem(last=False)
                if self._full():
                    victim = self._replace(False)
            self.t1[x] = True
        return _admitted(victim)


class Larc:
    """LARC (MSST 2013 / TOS 2016): admit on a miss found in the ghost list
    Qr; Qr's size Cr adapts in [0.1C, 0.9C]; Qr keeps max(1, floor(Cr)) ids,
    trimmed when one is added."""

    def __init__(self, capacity):
        self.c = float(capacity)
        self.cap = capacity
        self.cr = 0.1 * self.c
        self.q = OrderedDict()    # LRU first
        self.qr = OrderedDict()

    def access(self, x):
        if x in self.q:
            self.cr = max(0.1 * self.c, self.cr - self.c / (self.c - self.cr))
            self.q.move_to_end(x)
            return "h"
        self.cr = min(0.9 * self.c, self.cr + self.c / self.cr)
        if x not in self.qr:
            self.qr[x] = True
            while len(self.qr) > max(1, int(self.cr)):
                self.qr.popitem(last=False)
            return "r"
        del self.qr[x]
        victim = None
        if len(self.q) == self.cap:
            victim, _ = self.q.popitem(last=False)
        self.q[x] = True
        return _admitted(victim)


class S3Fifo:
    """S3-FIFO (SOSP 2023): S (floor(10% of C)), M (the rest), ghost G (as
    many ids as M holds); 2-bit frequency; one victim per miss."""

    def __init__(self, capacity, small_ratio=0.10):
        self.cap = capacity
        self.s_size = int(small_ratio * capacity)
        self.g_size = capacity - self.s_size
        self.s, self.m, self.g = OrderedDict(), OrderedDict(), OrderedDict()
        self.freq = {}

    def _evict(self):
        while True:
            if self.s and (len(self.s) >= self.s_size or not self.m):
                t = _oldest(self.s)
                del self.s[t]
                if self.freq[t] >= 1:
                    self.freq[t] = 0
                    self.m[t] = True
                    continue
                del self.freq[t]
                if self.g_size > 0:
                    self.g[t] = True
                    if len(self.g) > self.g_size:
                        self.g.popitem(last=False)
                return t
            t = _oldest(self.m)
            del self.m[t]
            if self.freq[t] > 0:
                self.freq[t] -= 1
                self.m[t] = True
                continue
            del self.freq[t]
            return t

    def access(self, x):
        if x in self.freq:
            self.freq[x] = min(3, self.freq[x] + 1)
            return "h"
        to_main = x in self.g
        if to_main:
            del self.g[x]
        victim = self._evict() if len(self.freq) == self.cap else None
        (self.m if to_main else self.s)[x] = True
        self.freq[x] = 0
        return _admitted(victim)


class Sketch:
    """TinyLFU's count-min sketch as docs/CACHE.md defines it: 4 rows of
    4-bit counters, conservative increment, halved every `sample` adds."""

    def __init__(self, capacity, sample):
        self.width = 16
        while self.width < capacity:
            self.width *= 2
        self.rows = [[0] * self.width for _ in range(4)]
        self.sample = max(1, sample)
        self.adds = 0

    @staticmethod
    def _mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def _cols(self, x):
        return [self._mix((x + (r + 1) * 0x9E3779B97F4A7C15) & MASK64) % self.width
                for r in range(4)]

    def estimate(self, x):
        return min(row[c] for row, c in zip(self.rows, self._cols(x)))

    def add(self, x):
        cols = self._cols(x)
        low = min(row[c] for row, c in zip(self.rows, cols))
        if low < 15:
            for row, c in zip(self.rows, cols):
                if row[c] == low:
                    row[c] += 1
        self.adds += 1
        if self.adds >= self.sample:
            self.rows = [[v // 2 for v in row] for row in self.rows]
            self.adds //= 2


class _Slru:
    """Segmented LRU: probation and protected (floor(80%) of the size)."""

    def __init__(self, size):
        self.prot_max = int(0.8 * size)
        self.probation, self.protected = OrderedDict(), OrderedDict()

    def __contains__(self, x):
        return x in self.probation or x in self.protected

    def __len__(self):
        return len(self.probation) + len(self.protected)

    def hit(self, x):
        if x in self.probation:
            del self.probation[x]
        self.protected.pop(x, None)
        self.protected[x] = True
        if len(self.protected) > self.prot_max:
            y, _ = self.protected.popitem(last=False)
            self.probation[y] = True

    def victim(self):
        return _oldest(self.probation) if self.probation else _oldest(self.protected)

    def remove(self, x):
        self.probation.pop(x, None)
        self.protected.pop(x, None)


class TinyLfu:
    """TinyLFU admission in front of an SLRU of C; refuse unless the
    newcomer's estimate exceeds the victim's."""

    def __init__(self, capacity, sample_factor=10):
        self.cap = capacity
        self.sketch = Sketch(capacity, sample_factor * capacity)
        self.main = _Slru(capacity)

    def access(self, x):
        self.sketch.add(x)
        if x in self.main:
            self.main.hit(x)
            return "h"
        victim = None
        if len(self.main) == self.cap:
            victim = self.main.victim()
            if self.sketch.estimate(x) <= self.sketch.estimate(victim):
                return "r"
            self.main.remove(victim)
        self.main.probation[x] = True
        return _admitted(victim)


class WTinyLfu:
    """W-TinyLFU: an LRU window of max(1, floor(1% of C)) before a
    TinyLFU-guarded SLRU of the rest."""

    def __init__(self, capacity, window_ratio=0.01, sample_factor=10):
        self.cap = capacity
        self.win_max = max(1, int(window_ratio * capacity))
        self.main_max = max(0, capacity - self.win_max)
        self.sketch = Sketch(capacity, sample_factor * capacity)
        self.window = OrderedDict()
        self.main = _Slru(self.main_max)

    def access(self, x):
        self.sketch.add(x)
        if x in self.window:
            self.window.move_to_end(x)
            return "h"
        if x in self.main:
            self.main.hit(x)
            return "h"
        victim = None
        if len(self.window) + len(self.main) == self.cap:
            cand = _oldest(self.window)
            del self.window[cand]
            victim = cand
            if len(self.main) > 0:
                mv = self.main.victim()
                if self.sketch.estimate(cand) > self.sketch.estimate(mv):
                    self.main.remove(mv)
                    self.main.probation[cand] = True
                    victim = mv
            self.window[x] = True
        else:
            self.window[x] = True
            if len(self.window) > self.win_max:
                y, _ = self.window.popitem(last=False)
                self.main.probation[y] = True
        return _admitted(victim)


class Belady:
    """Belady's MIN with bypass (1966), for an offline cache: prepare(seq)
    first, then access(x) for each of seq in order. A miss never accessed
    again is refused; otherwise it takes a free slot, or, when the cache is
    full, replaces the cached container whose next access is furthest if
    that is further than the miss's own, else it is refused. Among cached
    containers never accessed again, the one accessed longest ago goes."""

    OFFLINE = True

    def __init__(self, capacity):
        self.cap = capacity
        self.uses = {}        # id -> positions of its accesses, ascending
        self.seen = {}        # id -> how many of its uses are past
        self.last = {}        # cached id -> position of its last access
        self.nxt = {}         # cached id -> position of its next access (inf: none)
        self.now = 0

    def prepare(self, seq):
        for pos, x in enumerate(seq):
            self.uses.setdefault(x, []).append(pos)

    def _next_use(self, x):
        """The access after the current one to x (inf if none)."""
        k = self.seen[x] = self.seen.get(x, 0) + 1
        return self.uses[x][k] if k < len(self.uses[x]) else float("inf")

    def access(self, x):
        pos, self.now = self.now, self.now + 1
        if self.uses[x][self.seen.get(x, 0)] != pos:
            raise ValueError("access %d is not the prepared sequence's" % pos)
        nxt = self._next_use(x)
        if x in self.nxt:
            self.nxt[x], self.last[x] = nxt, pos
            return "h"
        if nxt == float("inf"):
            return "r"
        victim = None
        if len(self.nxt) == self.cap:
            victim = max(self.nxt, key=lambda y: (self.nxt[y], -self.last[y]))
            if self.nxt[victim] < nxt:
                return "r"
            del self.nxt[victim], self.last[victim]
        self.nxt[x], self.last[x] = nxt, pos
        return _admitted(victim)


class OfflineStatic:
    """The best fixed set: the C containers accessed most often in the whole
    sequence (equal counts: the lower id); a miss is admitted only if it is
    one of them, and nothing is ever evicted."""

    OFFLINE = True

    def __init__(self, capacity):
        self.cap = capacity
        self.chosen = set()
        self.cached = set()

    def prepare(self, seq):
        counts = {}
        for x in seq:
            counts[x] = counts.get(x, 0) + 1
        ranked = sorted(counts, key=lambda x: (-counts[x], x))
        self.chosen = set(ranked[:self.cap])

    def access(self, x):
        if x in self.cached:
            return "h"
        if x not in self.chosen:
            return "r"
        self.cached.add(x)
        return "a"


class CountMin16:
    """The cache's `cache-counters sketch` as docs/CACHE.md defines it: 2
    rows of 16-bit counters, width the largest power of two <= n (at least
    64), row r's counter mix64(id XOR seed_r) mod width, conservative
    increment up to 65535, estimate the minimum, aging halves every counter."""

    SEEDS = (0x243F6A8885A308D3, 0x13198A2E03707344)

    def __init__(self, n_containers):
        self.width = 64
        while self.width <= n_containers // 2:
            self.width *= 2
        self.rows = [[0] * self.width for _ in self.SEEDS]

    def _cols(self, x):
        return [Sketch._mix(x ^ seed) & (self.width - 1) for seed in self.SEEDS]

    def get(self, x):
        return min(row[c] for row, c in zip(self.rows, self._cols(x)))

    def add(self, x):
        cols = self._cols(x)
        m = min(row[c] for row, c in zip(self.rows, cols))
        if m < 65535:
            for row, c in zip(self.rows, cols):
                if row[c] == m:
                    row[c] = m + 1

    def halve(self):
        self.rows = [[v // 2 for v in row] for row in self.rows]


class ExactCounts:
    """`cache-counters exact`: a count per container, saturating at 2^32 - 1
    (`compact`: at 65535)."""

    def __init__(self, n_containers, top=2 ** 32 - 1):
        self.freq = {}
        self.top = top

    def get(self, x):
        return self.freq.get(x, 0)

    def add(self, x):
        self.freq[x] = min(self.freq.get(x, 0) + 1, self.top)

    def halve(self):
        self.freq = {k: v // 2 for k, v in self.freq.items()}


class Sigpop:
    """sigpop (ours; docs/CACHE.md) over the cache's counts (exact, compact
    or sketch): every access counted, all counts halved (rounded down) once
    W = floor(age_window x n) accesses (at least 1; 0: never) have been
    counted since the last halving, before the decision. A cached
    container's key is its count recorded at its last access or aging. A
    miss with count a below min_count is refused; else it takes a free
    slot; else it replaces the cached container of lowest key b (the
    earliest admitted among equals) iff a - b > z sqrt(a + b)."""

    STORE_SIZED = True  # check_reference passes n_containers

    def __init__(self, capacity, n_containers, z=2.0, min_count=2, age_window=16.0, counters="exact"):
        self.cap = capacity
        self.z = z
        self.min_count = min_count
        self.window = 0 if age_window == 0 else max(1, int(age_window * n_containers))
        self.counts = (CountMin16(n_containers) if counters == "sketch" else
                       ExactCounts(n_containers, 65535 if counters == "compact" else 2 ** 32 - 1))
        self.since = 0
        self.admitted = {}   # cached id -> admission number
        self.key = {}        # cached id -> count recorded at its last access or aging
        self.admissions = 0

    def _count(self, x):
        self.counts.add(x)
        self.since += 1
        if self.window and self.since >= self.window:
            self.counts.halve()
            self.since = 0
            self.key = {y: self.counts.get(y) for y in self.key}
        return self.counts.get(x)

    def access(self, x):
        a = self._count(x)
        if x in self.admitted:
            self.key[x] = a
            return "h"
        if a < self.min_count:
            return "r"
        victim = None
        if len(self.admitted) == self.cap:
            victim = min(self.admitted, key=lambda y: (self.key[y], self.admitted[y]))
            b = self.key[victim]
            if not a - b > self.z * math.sqrt(a + b):
                return "r"
            del self.admitted[victim]
            del self.key[victim]
        self.admissions += 1
        self.admitted[x] = self.admissions
        self.key[x] = a
        return _admitted(victim)


class Wlfu:
    """wlfu (ours; docs/CACHE.md) over the cache's counts, aged as sigpop's
    (every access counted, all counts halved once W = floor(age_window x n)
    accesses, at least 1, have been counted since the last halving; 0:
    never). A cached container's key is its count recorded at its last
    access or aging, its tick the time of its last access. A miss leaves
    the list of refused ids if there (a ghost hit); it takes a free slot;
    else, with a its count and b the lowest key (least recent tick among
    equals), it replaces that container iff a > b, or a == b and a ghost
    hit; else it is refused and joins the list as its newest id, the list
    keeping the newest max(1, floor(ghost_share x C)) ids."""

    STORE_SIZED = True

    def __init__(self, capacity, n_containers, age_window=16.0, ghost_share=0.5, counters="exact"):
        self.cap = capacity
        self.window = 0 if age_window == 0 else max(1, int(age_window * n_containers))
        self.counts = (CountMin16(n_containers) if counters == "sketch" else
                       ExactCounts(n_containers, 65535 if counters == "compact" else 2 ** 32 - 1))
        self.since = 0
        self.key = {}       # cached id -> count recorded at its last access or aging
        self.tick = {}      # cached id -> time of its last access
        self.time = 0
        self.gmax = max(1, int(math.floor(ghost_share * capacity)))
        self.ghost = OrderedDict()

    def _count(self, x):
        self.counts.add(x)
        self.since += 1
        if self.window and self.since >= self.window:
            self.counts.halve()
            self.since = 0
            self.key = {y: self.counts.get(y) for y in self.key}
        return self.counts.get(x)

    def access(self, x):
        a = self._count(x)
        self.time += 1
        if x in self.key:
            self.key[x] = a
            self.tick[x] = self.time
            return "h"
        ghost_hit = self.ghost.pop(x, None) is not None
        victim = None
        if len(self.key) == self.cap:
            victim = min(self.key, key=lambda y: (self.key[y], self.tick[y]))
            b = self.key[victim]
            if not (a > b or (a == b and ghost_hit)):
                self.ghost[x] = True
                if len(self.ghost) > self.gmax:
                    self.ghost.popitem(last=False)
                return "r"
            del self.key[victim]
            del self.tick[victim]
        self.key[x] = a
        self.tick[x] = self.time
        return _admitted(victim)


class Adapt:
    """adapt (ours; docs/CACHE.md). Eviction by one of two experts, recency
    (least recently accessed) or frequency (lowest count recorded at the
    last access, least recent among equals), the one of larger weight (ties
    to recency); the victim's id joins its expert's ghost list. A miss in
    expert k's ghost list: w_k *= exp(-lam), renormalized, clamped to
    [floor, 1 - floor]; admitted. A miss among the refused candidates:
    outcome 1, admitted. Else a newcomer: admitted iff r >= theta, else a
    candidate (a full candidate list first drops its oldest: outcome 0).
    An admitted newcomer's first hit is outcome 1, its eviction unhit
    outcome 0 (learnt after the decision). r += (o - r) / C, from 1.
    The two ghost lists share floor(share x C) ids (at least 1): a full pool
    drops the adding expert's oldest, else the other's; the candidates keep
    as many."""

    STORE_SIZED = True

    def __init__(self, capacity, n_containers, lam=0.45, floor=0.01, share=0.5, theta=0.5):
        self.cap = capacity
        self.c = float(max(1, capacity))
        self.decay = math.exp(-lam)
        self.floor = floor
        self.theta = theta
        self.gmax = max(1, int(math.floor(share * capacity)))
        self.counts = ExactCounts(n_containers)
        self.wr = 0.5
        self.r = 1.0
        self.tick = 0
        self.last = OrderedDict()   # cached id -> tick, least recent first
        self.key = {}               # cached id -> count recorded at its last access
        self.newcomer = set()
        self.ghosts = (OrderedDict(), OrderedDict())  # recency's, frequency's
        self.cands = OrderedDict()

    def _learn(self, o):
        self.r += (o - self.r) / self.c

    def _penalize(self, k):
        wr, wf = self.wr, 1.0 - self.wr
        if k == 0:
            wr *= self.decay
        else:
            wf *= self.decay
        wr = wr / (wr + wf)
        self.wr = min(max(wr, self.floor), 1.0 - self.floor)

    def _touch(self, x):
        self.tick += 1
        self.last[x] = self.tick
        self.last.move_to_end(x)
        self.key[x] = self.counts.get(x)

    def _admissible(self, x):
        for k in (0, 1):
            if x in self.ghosts[k]:
                del self.ghosts[k][x]
                self._penalize(k)
                return True, False
        if x in self.cands:
            del self.cands[x]
            self._learn(1.0)
            return True, False
        if self.r >= self.theta:
            return True, True
        if len(self.cands) == self.gmax:
            self.cands.popitem(last=False)
            self._learn(0.0)
        self.cands[x] = True
        return False, False

    def access(self, x):
        self.counts.add(x)
        if x in self.last:
            self._touch(x)
            if x in self.newcomer:
                self.newcomer.discard(x)
                self._learn(1.0)
            return "h"
        ok, fresh = self._admissible(x)
        if not ok:
            return "r"
        victim = None
        if len(self.last) == self.cap:
            k = 0 if self.wr >= 0.5 else 1
            if k == 0:
                victim = _oldest(self.last)
            else:
                victim = min(self.last, key=lambda y: (self.key[y], self.last[y]))
            own, other = self.ghosts[k], self.ghosts[1 - k]
            if len(own) + len(other) == self.gmax:
                (own if own else other).popitem(last=False)
            own[victim] = True
            del self.last[victim]
            del self.key[victim]
            if victim in self.newcomer:
                self.newcomer.discard(victim)
                self._learn(0.0)
        self._touch(x)
        if fresh:
            self.newcomer.add(x)
        return _admitted(victim)


class Minisim:
    """minisim (ours; docs/CACHE.md). Two candidates: F (a miss of count
    a < 2 refused; else a free slot; else it replaces the lowest count b,
    least recently accessed among equals, iff a - b > 2 sqrt(a + b)) and R
    (a miss admitted only if among the ids refused lately, which it leaves;
    a refused miss joins them, the oldest dropped; victim the least recently
    accessed). With C <= m every id is sampled and the mini caches have C
    slots, else id is sampled iff mix64(id) >> 32 < floor(m / C x 2^32) and
    they have m. A sampled access, before the real decision: both minis take
    it (ghost max(1, floor(share x slots)) ids; F reads the counts now),
    scoring +1 a hit, -price an admission; D = D (1 - 1/(window x slots))
    + (R's - F's); the real cache follows R while D > 0, F while D < 0.
    The real cache applies the rule followed, with F's count recorded at
    the last access or aging and ticks of its own, and its own ghost of
    max(1, floor(share x C)) refused misses under either rule. Counts
    exact, halved every floor(16 n) accesses before the decision."""

    STORE_SIZED = True

    def __init__(self, capacity, n_containers, mini_slots=32, window=8.0, price=1.0, share=0.5):
        self.cap = capacity
        c = max(1, capacity)
        self.sample_all = c <= mini_slots
        self.threshold = 0 if self.sample_all else int(math.floor(mini_slots / c * 4294967296.0))
        self.mcap = c if self.sample_all else mini_slots
        self.price = price
        self.decay = 1.0 - 1.0 / (window * self.mcap)
        self.d = 0.0
        self.rule = "F"
        self.counts = ExactCounts(n_containers)
        self.window = max(1, int(16.0 * n_containers))
        self.since = 0
        self.clock = 0
        self.key = {}     # cached id -> count recorded
        self.tick = {}    # cached id -> tick
        self.ghost = OrderedDict()
        self.gmax = max(1, int(math.floor(share * capacity)))
        self.mclock = 0
        self.mf = {}      # id -> tick
        self.mr = {}
        self.mghost = OrderedDict()
        self.mgmax = max(1, int(math.floor(share * self.mcap)))

    @staticmethod
    def _significant(a, b):
        return a - b > 2.0 * math.sqrt(a + b)

    def _step_f(self, x):
        if x in self.mf:
            self.mf[x] = self.mclock
            return 1.0
        a = self.counts.get(x)
        if a < 2:
            return 0.0
        if len(self.mf) < self.mcap:
            self.mf[x] = self.mclock
            return -self.price
        v = min(self.mf, key=lambda y: (self.counts.get(y), self.mf[y]))
        if not self._significant(a, self.counts.get(v)):
            return 0.0
        del self.mf[v]
        self.mf[x] = self.mclock
        return -self.price

    def _step_r(self, x):
        if x in self.mr:
            self.mr[x] = self.mclock
            return 1.0
        if x not in self.mghost:
            if len(self.mghost) == self.mgmax:
                self.mghost.popitem(last=False)
            self.mghost[x] = True
            return 0.0
        del self.mghost[x]
        if len(self.mr) == self.mcap:
            del self.mr[min(self.mr, key=lambda y: self.mr[y])]
        self.mr[x] = self.mclock
        return -self.price

    def _simulate(self, x):
        if not self.sample_all and (Sketch._mix(x) >> 32) >= self.threshold:
            return
        self.mclock += 1
        df = self._step_f(x)
        dr = self._step_r(x)
        self.d = self.d * self.decay + (dr - df)
        if self.d > 0:
            self.rule = "R"
        elif self.d < 0:
            self.rule = "F"

    def _victim(self):
        if self.rule == "F":
            return min(self.key, key=lambda y: (self.key[y], self.tick[y]))
        return min(self.tick, key=lambda y: self.tick[y])

    def _touch(self, x):
        self.clock += 1
        self.tick[x] = self.clock
        self.key[x] = self.counts.get(x)

    def _refuse(self, x):
        if len(self.ghost) == self.gmax:
            self.ghost.popitem(last=False)
        self.ghost[x] = True
        return "r"

    def access(self, x):
        self.counts.add(x)
        self.since += 1
        if self.since >= self.window:
            self.counts.halve()
            self.since = 0
            self.key = {y: self.counts.get(y) for y in self.key}
        self._simulate(x)
        if x in self.tick:
            self._touch(x)
            return "h"
        ghost_hit = self.ghost.pop(x, None) is not None
        full = len(self.tick) == self.cap
        if self.rule == "R":
            if not ghost_hit:
                return self._refuse(x)
        else:
            a = self.counts.get(x)
            if a < 2:
                return self._refuse(x)
            if full and not self._significant(a, self.key[self._victim()]):
                return self._refuse(x)
        victim = None
        if full:
            victim = self._victim()
            del self.tick[victim]
            del self.key[victim]
        self._touch(x)
        return _admitted(victim)


MODELS = {
    "clock": Clock,
    "2q": TwoQ,
    "arc": Arc,
    "larc": Larc,
    "s3fifo": S3Fifo,
    "sieve": Sieve,
    "tinylfu": TinyLfu,
    "wtinylfu": WTinyLfu,
    "sigpop": Sigpop,
    "adapt": Adapt,
    "minisim": Minisim,
    "wlfu": Wlfu,
    "belady": Belady,
    "offline-static": OfflineStatic,
}
