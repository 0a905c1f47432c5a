# SPDX-License-Identifier: GPL-3.0-or-later
"""chunk_reference_models.py: independent reference models of the chunk
policies (ssd-cache-granularity chunk; docs/CACHE.md), written from the
papers' descriptions and docs/CACHE.md's choices, not from the C code.

A model is a class built with (capacity_bytes, avg_chunk, **keys) whose
access(chunk, length, address, touch_offset, touch_length) returns the
decision in chunk_decisions' format: "h" hit, "m" miss of a cached chunk,
"r" refused, "a" admitted followed by " CHUNK" for each chunk evicted first,
in order. The data cache holds unique chunks (by id) up to capacity_bytes;
a chunk longer than the capacity is refused."""

import math
from collections import OrderedDict

from reference_models import Sketch


def _meta_entries(capacity_bytes, avg_chunk, factor):
    n = factor * capacity_bytes / (avg_chunk or 1)
    return max(1, int(n))


class _DataCache:
    """The core's part: chunk id -> length, bytes used."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.size = {}
        self.used = 0

    def fits(self, length):
        return self.used + length <= self.capacity

    def add(self, chunk, length):
        self.size[chunk] = length
        self.used += length

    def drop(self, chunk):
        self.used -= self.size.pop(chunk)


class _Placed:
    """Where a model's admissions meet the chunk log: _evicted(chunk) after
    each victim leaves, _put(chunk, length) after the victims and before
    the newcomer enters. Nothing here; chunk_log_reference.py's reinsert
    models run the log there."""

    def _evicted(self, chunk):
        pass

    def _put(self, chunk, length):
        pass


class ChunkLru(_Placed):
    def __init__(self, capacity_bytes, avg_chunk):
        self.data = _DataCache(capacity_bytes)
        self.order = OrderedDict()  # oldest first

    def access(self, chunk, length, address, off, tlen):
        if chunk in self.data.size:
            self.order.move_to_end(chunk)
            return "h"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        out = "a"
        while not self.data.fits(length):
            victim, _ = self.order.popitem(last=False)
            self.data.drop(victim)
            self._evicted(victim)
            out += " %d" % victim
        self._put(chunk, length)
        self.data.add(chunk, length)
        self.order[chunk] = True
        return out


class DLru:
    """CacheDedup's D-LRU: an LRU metadata cache of addresses (each naming
    its chunk) and an LRU data cache of chunks, replaced independently."""

    def __init__(self, capacity_bytes, avg_chunk, factor=2.0):
        self.data = _DataCache(capacity_bytes)
        self.data_order = OrderedDict()
        self.meta = OrderedDict()  # address -> chunk, oldest first
        self.meta_cap = _meta_entries(capacity_bytes, avg_chunk, factor)

    def _remember(self, address, chunk):
        if address in self.meta:
            self.meta[address] = chunk
            self.meta.move_to_end(address)
            return
        if len(self.meta) >= self.meta_cap:
            self.meta.popitem(last=False)
        self.meta[address] = chunk

    def access(self, chunk, length, address, off, tlen):
        known = self.meta.get(address) == chunk
        if chunk in self.data.size:
            self._remember(address, chunk)
            self.data_order.move_to_end(chunk)
            return "h" if known else "m"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        out = "a"
        while not self.data.fits(length):
            victim, _ = self.data_order.popitem(last=False)
            self.data.drop(victim)
            out += " %d" % victim
        self.data.add(chunk, length)
        self.data_order[chunk] = True
        self._remember(address, chunk)
        return out


class CdacLru:
    """CDAC-LRU (the CDAC paper, section 3) on D-LRU's two caches: a chunk
    is free once no address in the metadata cache M points to it; space is
    made by examining the address M would replace next with BHI, then RCE
    (docs/CACHE.md fixes what the paper leaves open). M's order is LRU here;
    CdacArc replaces the order methods (the _m* ones)."""

    def __init__(self, capacity_bytes, avg_chunk, lam=0.5, alpha=0.5, sub_block=4096, factor=2.0):
        self.data = _DataCache(capacity_bytes)
        self.lam, self.alpha, self.sub = lam, alpha, sub_block
        self.meta_cap = _meta_entries(capacity_bytes, avg_chunk, factor)
        self.meta = OrderedDict()  # address -> dict(chunk, cs, flag, bits, parts)
        self.refs = {}   # chunk -> addresses in M pointing to it
        self.cb = {}     # chunk -> C_B (aged)
        self.free = OrderedDict()  # chunks with no address, oldest first

    # M's order: LRU
    def _mfind(self, address):
        return self.meta.get(address)

    def _mremove(self, address):
        return self.meta.pop(address)

    def _mnext(self):
        return next(iter(self.meta))

    def _mrequeue(self, address):
        self.meta.move_to_end(address)

    def _mhit(self, address):
        self.meta.move_to_end(address)

    def _mlive(self):
        return len(self.meta)

    def _minsert(self, address, e):
        while self._mlive() + 1 > self.meta_cap:
            self._delete(self._mnext())
        self.meta[address] = e

    def _touch(self, e, length, off, tlen):
        n, part = -(-length // self.sub), self.sub
        if n > 64:
            n, part = 64, -(-length // 64)
        e["parts"] = n
        if tlen:
            for i in range(off // part, min((off + tlen - 1) // part, n - 1) + 1):
                e["bits"] |= 1 << i
        e["flag"] = 1

    def _delete(self, address):
        e = self._mremove(address)
        c = e["chunk"]
        self.refs[c] -= 1
        self.cb[c] = max(0, self.cb[c] - 1)
        if self.refs[c] == 0:
            self.free[c] = True

    def _add(self, address, chunk, length, off, tlen):
        e = {"chunk": chunk, "cs": 0, "flag": 0, "bits": 0, "parts": 0}
        self._minsert(address, e)
        self._touch(e, length, off, tlen)
        self.free.pop(chunk, None)
        self.refs[chunk] += 1
        self.cb[chunk] += 1

    def _victim(self):
        guard = 2 * self._mlive()
        step = 0
        while not self.free:
            address = self._mnext()
            e = self._mfind(address)
            c = e["chunk"]
            share = bin(e["bits"]).count("1") / e["parts"] if e["parts"] else 0.0
            step += 1
            if step - 1 < guard:
                if e["flag"] and share >= self.alpha:
                    e["flag"], e["bits"] = 0, 0
                    self._mrequeue(address)
                    continue
                if self.cb[c] > 1:
                    if e["cs"] == 0:
                        e["cs"] = self.cb[c]
                        self.cb[c] -= 1
                        self._mrequeue(address)
                        continue
                    if (e["cs"] - self.cb[c]) / e["cs"] <= self.lam:
                        e["cs"] = self.cb[c]
                        self._mrequeue(address)
                        continue
            self._delete(address)
        return next(iter(self.free))

    def access(self, chunk, length, address, off, tlen):
        e = self._mfind(address)
        if e is not None and e["chunk"] != chunk:
            self._delete(address)
            e = None
        if chunk in self.data.size:
            if e is not None:
                self._touch(e, length, off, tlen)
                self._mhit(address)
                return "h"
            self._add(address, chunk, length, off, tlen)
            return "m"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        out = "a"
        while not self.data.fits(length):
            v = self._victim()
            del self.free[v]
            del self.refs[v], self.cb[v]
            self.data.drop(v)
            out += " %d" % v
        self.data.add(chunk, length)
        self.refs[chunk] = 0
        self.cb[chunk] = 0
        self._add(address, chunk, length, off, tlen)
        return out


class _SizedArc:
    """ARC with sizes: every list count a sum of sizes (docs/CACHE.md)."""

    def __init__(self, capacity):
        self.c = float(capacity)
        self.p = 0.0
        self.lists = {k: OrderedDict() for k in ("t1", "t2", "b1", "b2")}  # key -> (size, payload)
        self.b2_hit = False

    def size(self, name):
        return float(sum(v[0] for v in self.lists[name].values()))

    def where(self, key):
        for name, l in self.lists.items():
            if key in l:
                return name
        return None

    def hit(self, key):
        name = self.where(key)
        v = self.lists[name].pop(key)
        self.lists["t2"][key] = v

    def miss(self, key, s):
        name = self.where(key)
        self.b2_hit = False
        if name is None:
            return False
        b1, b2 = self.size("b1"), self.size("b2")
        if name == "b1":
            self.p = min(self.c, self.p + s * (1.0 if b1 >= b2 else b2 / b1))
        else:
            self.p = max(0.0, self.p - s * (1.0 if b2 >= b1 else b1 / b2))
            self.b2_hit = True
        del self.lists[name][key]
        return True

    def replaces_t1(self):
        """ARC's REPLACE takes T1's LRU entry now (else T2's)."""
        size1 = self.size("t1")
        return bool(self.lists["t1"]) and (
            not self.lists["t2"] or size1 > self.p or (self.b2_hit and size1 >= self.p))

    def victim(self):
        if self.replaces_t1():
            return next(iter(self.lists["t1"]))
        t2 = self.lists["t2"]
        return next(iter(t2)) if t2 else None

    def evict(self, key):
        name = self.where(key)
        v = self.lists[name].pop(key)
        self.lists["b1" if name == "t1" else "b2"][key] = v

    def forget(self, key):
        del self.lists[self.where(key)][key]

    def insert(self, key, s, payload, was_ghost):
        self.lists["t2" if was_ghost else "t1"][key] = (s, payload)
        while self.lists["b1"] and self.size("t1") + self.size("b1") > self.c:
            self.lists["b1"].popitem(last=False)
        while self.lists["b2"] and sum(self.size(k) for k in self.lists) > 2 * self.c:
            self.lists["b2"].popitem(last=False)

    def resident(self, key):
        return self.where(key) in ("t1", "t2")

    def payload(self, key):
        return self.lists[self.where(key)][key][1]


class ChunkArc(_Placed):
    def __init__(self, capacity_bytes, avg_chunk):
        self.data = _DataCache(capacity_bytes)
        self.arc = _SizedArc(capacity_bytes)

    def access(self, chunk, length, address, off, tlen):
        if chunk in self.data.size:
            self.arc.hit(chunk)
            return "h"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        ghost = self.arc.miss(chunk, length)
        out = "a"
        while not self.data.fits(length):
            v = self.arc.victim()
            self.arc.evict(v)
            self.data.drop(v)
            self._evicted(v)
            out += " %d" % v
        self._put(chunk, length)
        self.data.add(chunk, length)
        self.arc.insert(chunk, length, None, ghost)
        return out


class DArc:
    """CacheDedup's D-ARC: D-LRU's two caches, each replaced by ARC (the
    data cache in bytes, the metadata cache in addresses)."""

    def __init__(self, capacity_bytes, avg_chunk, factor=2.0):
        self.data = _DataCache(capacity_bytes)
        self.arc = _SizedArc(capacity_bytes)
        self.meta = _SizedArc(_meta_entries(capacity_bytes, avg_chunk, factor))

    def _remember(self, address, chunk):
        m = self.meta
        if m.resident(address) and m.payload(address) == chunk:
            m.hit(address)
            return
        if m.resident(address):
            m.forget(address)
        ghost = m.miss(address, 1)
        while m.size("t1") + m.size("t2") + 1 > m.c:
            m.evict(m.victim())
        m.insert(address, 1, chunk, ghost)

    def access(self, chunk, length, address, off, tlen):
        known = self.meta.resident(address) and self.meta.payload(address) == chunk
        if chunk in self.data.size:
            self._remember(address, chunk)
            self.arc.hit(chunk)
            return "h" if known else "m"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        ghost = self.arc.miss(chunk, length)
        out = "a"
        while not self.data.fits(length):
            v = self.arc.victim()
            self.arc.evict(v)
            self.data.drop(v)
            out += " %d" % v
        self.data.add(chunk, length)
        self.arc.insert(chunk, length, None, ghost)
        self._remember(address, chunk)
        return out


class CdacArc(CdacLru):
    """CDAC-ARC: CDAC with M ordered by ARC over addresses (size 1 each):
    the address examined is the one ARC would replace; a hit moves it to
    T2, a retained one to the MRU end of its own list; a deleted address
    becomes a ghost; a ghost coming back enters T2."""

    def __init__(self, capacity_bytes, avg_chunk, **kw):
        CdacLru.__init__(self, capacity_bytes, avg_chunk, **kw)
        self.m = _SizedArc(self.meta_cap)

    def _mfind(self, address):
        return self.m.payload(address) if self.m.resident(address) else None

    def _mremove(self, address):
        e = self.m.payload(address)
        self.m.evict(address)
        return e

    def _mnext(self):
        return self.m.victim()

    def _mrequeue(self, address):
        self.m.lists[self.m.where(address)].move_to_end(address)

    def _mhit(self, address):
        self.m.hit(address)

    def _mlive(self):
        return len(self.m.lists["t1"]) + len(self.m.lists["t2"])

    def _minsert(self, address, e):
        ghost = self.m.miss(address, 1)
        while self._mlive() + 1 > self.m.c:
            self._delete(self._mnext())
        self.m.insert(address, 1, e, ghost)


class ChunkTinyLfu(ChunkLru):
    """TinyLFU admission over an LRU of chunks: every access is added to the
    sketch (the chunk id folded to 32 bits); a miss that does not fit is
    admitted only if its estimate exceeds the LRU chunk's."""

    def __init__(self, capacity_bytes, avg_chunk, sample_factor=10):
        super().__init__(capacity_bytes, avg_chunk)
        n = max(1, capacity_bytes // (avg_chunk or 1))
        self.sketch = Sketch(n, sample_factor * n)

    @staticmethod
    def _key(chunk):
        return (chunk ^ (chunk >> 32)) & 0xFFFFFFFF

    def _has_room(self, chunk, length):
        return self.data.fits(length)

    def access(self, chunk, length, address, off, tlen):
        self.sketch.add(self._key(chunk))
        return super().access(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length <= self.data.capacity and not self._has_room(chunk, length) and self.order:
            lru = next(iter(self.order))
            if self.sketch.estimate(self._key(chunk)) <= self.sketch.estimate(self._key(lru)):
                return "r"
        return super()._miss(chunk, length, address, off, tlen)


class ChunkPlc:
    """PLC-Cache counting chunks (docs/CACHE.md "plc and sigpop counting
    chunks"): access counts are sketch estimates (every access added
    first); a clock of cached chunks in a ring, the hand on the first; a
    hit raises the chunk's priority; a miss passes the popularity filter
    (estimate > threshold), then, if it does not fit, CLOCK_EVICT names a
    victim whose delay count is decremented (refused while still > 0) and
    which the newcomer must match: estimate >= clamp(victim's estimate,
    threshold, 2 * threshold). Admitted, the victim leaves, then further
    CLOCK_EVICT victims until the newcomer fits; it enters behind the hand
    with priority estimate - threshold and delay delay_threshold."""

    def __init__(self, capacity_bytes, avg_chunk, threshold=4, delay=2, sample_factor=10):
        self.data = _DataCache(capacity_bytes)
        n = max(1, capacity_bytes // (avg_chunk or 1))
        self.sketch = Sketch(n, sample_factor * n)
        self.t, self.delay0 = threshold, delay
        self.ring = OrderedDict()  # chunk -> [priority, delay], the hand on the first

    @staticmethod
    def _key(chunk):
        return (chunk ^ (chunk >> 32)) & 0xFFFFFFFF

    def _clock(self):
        while True:
            chunk, e = next(iter(self.ring.items()))
            if e[0] == 0:
                return chunk
            e[0] -= 1
            self.ring.move_to_end(chunk)

    def access(self, chunk, length, address, off, tlen):
        self.sketch.add(self._key(chunk))
        if chunk in self.data.size:
            self.ring[chunk][0] += 1
            return "h"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        mine = self.sketch.estimate(self._key(chunk))
        if mine <= self.t:
            return "r"
        out = "a"
        if not self.data.fits(length) and self.ring:
            v = self._clock()
            e = self.ring[v]
            e[1] = max(0, e[1] - 1)
            if e[1] > 0:
                return "r"
            if mine < min(max(self.sketch.estimate(self._key(v)), self.t), 2 * self.t):
                return "r"
            del self.ring[v]
            self.data.drop(v)
            out += " %d" % v
        while not self.data.fits(length):
            v = self._clock()
            del self.ring[v]
            self.data.drop(v)
            out += " %d" % v
        self.data.add(chunk, length)
        self.ring[chunk] = [mine - self.t, self.delay0]
        return out


class ChunkSigpop:
    """sigpop counting chunks (docs/CACHE.md "plc and sigpop counting
    chunks"): f is the sketch estimate (every access added first; when the
    sketch halves, every cached chunk's recorded f is read again); the
    victim is the cached chunk of lowest recorded f, the earliest admitted
    among equals; a miss of count a below min_count is refused; one that
    fits is admitted; else it must beat the victim's b by a - b > z
    sqrt(a + b), then the lowest leave until it fits."""

    def __init__(self, capacity_bytes, avg_chunk, z=2.0, min_count=2, sample_factor=10):
        self.data = _DataCache(capacity_bytes)
        n = max(1, capacity_bytes // (avg_chunk or 1))
        self.sketch = Sketch(n, sample_factor * n)
        self.z, self.min_count = z, min_count
        self.rec = {}  # chunk -> [f, insertion number]
        self.seq = 0

    @staticmethod
    def _key(chunk):
        return (chunk ^ (chunk >> 32)) & 0xFFFFFFFF

    def _count(self, chunk):
        before = self.sketch.adds
        self.sketch.add(self._key(chunk))
        if self.sketch.adds <= before:
            for c, r in self.rec.items():
                r[0] = self.sketch.estimate(self._key(c))
        return self.sketch.estimate(self._key(chunk))

    def _victim(self):
        return min(self.rec, key=lambda c: tuple(self.rec[c]))

    def access(self, chunk, length, address, off, tlen):
        f = self._count(chunk)
        if chunk in self.data.size:
            self.rec[chunk][0] = f
            return "h"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.data.capacity:
            return "r"
        a = self.sketch.estimate(self._key(chunk))
        if a < self.min_count:
            return "r"
        if not self.data.fits(length) and self.rec:
            b = self.rec[self._victim()][0]
            if not a - b > self.z * math.sqrt(a + b):
                return "r"
        out = "a"
        while not self.data.fits(length):
            v = self._victim()
            del self.rec[v]
            self.data.drop(v)
            out += " %d" % v
        self.data.add(chunk, length)
        self.seq += 1
        self.rec[chunk] = [a, self.seq]
        return out


_M64 = (1 << 64) - 1


def chunk_address(key, index):
    """chunk_policy.h's source address of chunk `index` of file `key`: a
    bijective 64-bit mix (the splitmix64 finaliser) of the two."""
    x = (key ^ (index * 0x9E3779B97F4A7C15)) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


class ChunkAustere:
    """austere over ssd-cache-layout buckets, in simulation (docs/CACHE.md,
    "The bucket layout"; docs/FORMAT.md, "Chunk buckets"): every miss is
    admitted (unless longer than a bucket's sub-slots or the capacity), the
    layout makes room inside the newcomer's bucket. fingerprint(chunk) gives
    the chunk's full fingerprint (bytes); the model keeps, per bucket, a
    list of sub-slots each None or the chunk occupying it."""

    SLOTS = 128  # sub-slots a bucket
    SUB = 2048  # bytes a sub-slot
    META = 8192  # round_up(64 + 48 * SLOTS, 4096): the metadata area
    ROWS = 4

    def __init__(self, capacity_bytes, avg_chunk, fingerprint):
        self.capacity = capacity_bytes
        self.fingerprint = fingerprint
        self.n_buckets = capacity_bytes // (self.META + self.SLOTS * self.SUB)
        assert self.n_buckets >= 1
        self.buckets = [[None] * self.SLOTS for _ in range(self.n_buckets)]
        self.where = {}  # chunk -> bucket
        self.data = _DataCache(capacity_bytes)  # what offer() looks at
        width = 64
        while width < self.n_buckets * self.SLOTS:
            width *= 2
        self.width = width
        self.rows = [[0] * width for _ in range(self.ROWS)]
        self.period, self.since = 8 * width, 0
        self.cells = {}  # chunk -> its counter in each row

    def _cells(self, chunk):
        if chunk not in self.cells:
            fp = self.fingerprint(chunk)
            h1 = int.from_bytes(fp[10:14], "little")
            h2 = int.from_bytes(fp[14:18], "little") | 1
            self.cells[chunk] = [(h1 + r * h2) % 2 ** 32 % self.width for r in range(self.ROWS)]
        return self.cells[chunk]

    def _count(self, chunk):
        for row, i in zip(self.rows, self._cells(chunk)):
            row[i] = min(15, row[i] + 1)
        self.since += 1
        if self.since == self.period:
            self.rows = [[v // 2 for v in row] for row in self.rows]
            self.since = 0

    def _estimate(self, chunk):
        return min(row[i] for row, i in zip(self.rows, self._cells(chunk)))

    def _bucket_of(self, chunk):
        h = int.from_bytes(self.fingerprint(chunk)[2:6], "little")
        return h * self.n_buckets >> 32

    def access(self, chunk, length, address, off, tlen):
        if chunk in self.where:
            self._count(chunk)
            return "h"
        return self._miss(chunk, length, address, off, tlen)

    def _miss(self, chunk, length, address, off, tlen):
        if length > self.capacity or length > self.SLOTS * self.SUB:
            return "r"
        b = self.buckets[self._bucket_of(chunk)]
        n = -(-length // self.SUB)
        # the run: the earliest wholly free one, else the one whose chunks
        # (all those overlapping it) have the lowest sum of 1 + estimate,
        # the earliest among equals
        cost_of = {c: 1 + self._estimate(c) for c in set(b) if c is not None}
        best, best_cost = None, None
        for start in range(self.SLOTS - n + 1):
            cost = sum(cost_of[c] for c in set(b[start:start + n]) if c is not None)
            if best is None or cost < best_cost:
                best, best_cost = start, cost
            if cost == 0:
                break
        out = "a"
        for c in [c for i, c in enumerate(b[best:best + n]) if c is not None and c not in b[best:best + i]]:
            for i in range(self.SLOTS):
                if b[i] == c:
                    b[i] = None
            del self.where[c]
            self.data.drop(c)
            out += " %d" % c
        for i in range(best, best + n):
            b[i] = chunk
        self.where[chunk] = b
        self.data.add(chunk, length)
        self._count(chunk)
        return out


def offer(model, chunk, length):
    """ssd-cache-chunk-fetch container's offer of a chunk the miss's
    container holds: no access (no hit, no lookup, no sketch count); "c"
    when the chunk is cached already (nothing changes), else the policy's
    admission as for a miss, at the chunk's own address (its id, index 0),
    touching the whole chunk."""
    if chunk in model.data.size:
        return "c"
    return model._miss(chunk, length, chunk_address(chunk, 0), 0, length)


MODELS = {
    "lru": ChunkLru,
    "arc": ChunkArc,
    "d-lru": DLru,
    "d-arc": DArc,
    "cdac-lru": CdacLru,
    "cdac-arc": CdacArc,
    "tinylfu": ChunkTinyLfu,
    "plc": ChunkPlc,
    "sigpop": ChunkSigpop,
}

# Models that need the chunks' full fingerprints (built with fingerprint=),
# checked on their own layout (check_chunk_reference.py).
LAYOUT_MODELS = {
    "austere": ChunkAustere,
}
