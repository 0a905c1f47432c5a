# SPDX-License-Identifier: GPL-3.0-or-later
"""chunk_log_reference.py: an independent reference model of the chunk log
under ssd-cache-segment-reclaim reinsert (docs/cache/chunk-log-inside.md,
"Reinsert"; docs/FORMAT.md for the segment header and table entry sizes),
and the chunk policies that keep chunks there (lru, arc, tinylfu), built on
their models in chunk_reference_models.py. Written from the docs, not from
the C code.

The log: capacity // segment segments (at least two), chunks packed into
the open segment after a 64-byte header, each with a 48-byte table entry;
a chunk that does not fit has the open segment written first; the open
segment's home is the lowest free segment, else the oldest written one,
reclaimed: the policy is told the segment's room (its bytes after the
header), then each live chunk of it, in the index's entry order (entry
numbers: the last freed is reused first, else a new one), is asked about
while it and the chunks kept before it take at most half the segment's
room after the header (entries included) and it leaves room for the put
that reclaims; kept, it moves into the open segment, else it is dropped.

A decision is chunk_decisions' line: evictions " CHUNK", then the log's
" -CHUNK" (dropped) and " +CHUNK" (kept), in order."""

from chunk_reference_models import ChunkArc, ChunkLru, ChunkTinyLfu

HEADER, ENTRY = 64, 48


class ReinsertLog:
    def __init__(self, capacity, segment, policy):
        self.seg = segment
        self.n = max(capacity, 2 * segment) // segment
        self.written = {}   # segment -> sequence number
        self.free_segments = set(range(self.n))
        self.next_seq = 1
        self.entries = []   # entry number -> [chunk, segment, length], or None
        self.free_entries = []
        self.entry_of = {}  # chunk -> entry number
        self.home, self.end, self.count = None, HEADER, 0
        self.policy = policy
        self.events = []

    def _fits(self, n):
        return self.end + n + (self.count + 1) * ENTRY <= self.seg

    def _open(self, s):
        self.free_segments.discard(s)
        self.written.pop(s, None)
        self.home, self.end, self.count = s, HEADER, 0

    def _place(self, e, length):
        self.entries[e][1] = self.home
        self.end += length
        self.count += 1

    def _seal(self):
        if self.home is not None and self.count:
            self.written[self.home] = self.next_seq
            self.next_seq += 1
            self.home, self.end, self.count = None, HEADER, 0

    def remove(self, chunk):
        e = self.entry_of.pop(chunk)
        self.entries[e] = None
        self.free_entries.append(e)

    def _reclaim(self, need):
        if self.free_segments:
            self._open(min(self.free_segments))
            return
        s = min(self.written, key=self.written.get)
        live = [e for e, en in enumerate(self.entries) if en is not None and en[1] == s]
        self._open(s)
        if hasattr(self.policy, "reclaiming"):
            self.policy.reclaiming(self.seg - HEADER)
        bound, kept = (self.seg - HEADER) // 2, 0
        for e in live:
            chunk, _, length = self.entries[e]
            room = kept + length + ENTRY <= bound and self._fits(length + need + ENTRY)
            if room and self.policy.keep(chunk):
                self._place(e, length)
                kept += length + ENTRY
                self.events.append(" +%d" % chunk)
            else:
                self.remove(chunk)
                self.policy.log_drop(chunk)
                self.events.append(" -%d" % chunk)

    def put(self, chunk, length):
        if self.home is not None and not self._fits(length):
            self._seal()
        if self.home is None:
            self._reclaim(length)
        e = self.free_entries.pop() if self.free_entries else len(self.entries)
        if e == len(self.entries):
            self.entries.append(None)
        self.entries[e] = [chunk, self.home, length]
        self.entry_of[chunk] = e
        self.end += length
        self.count += 1


class _OnLog:
    """A model's data cache on a reinsert log: its victims leave the log,
    its admissions are put there, and the log's drops leave the model."""

    def _log_init(self, capacity_bytes, segment):
        self.log = ReinsertLog(capacity_bytes, segment, self)

    def _evicted(self, chunk):
        self.log.remove(chunk)

    def _put(self, chunk, length):
        self.log.put(chunk, length)

    def access(self, chunk, length, address, off, tlen):
        self.log.events = []
        out = super().access(chunk, length, address, off, tlen)
        return out + "".join(self.log.events)


class LruReinsert(_OnLog, ChunkLru):
    """lru keeps a chunk hit since it was written (admitted or kept)."""

    def __init__(self, capacity_bytes, avg_chunk, segment):
        super().__init__(capacity_bytes, avg_chunk)
        self._log_init(capacity_bytes, segment)
        self.used = set()

    def access(self, chunk, length, address, off, tlen):
        if chunk in self.data.size:
            self.used.add(chunk)
        return super().access(chunk, length, address, off, tlen)

    def _put(self, chunk, length):
        super()._put(chunk, length)
        self.used.discard(chunk)

    def keep(self, chunk):
        kept = chunk in self.used
        self.used.discard(chunk)
        return kept

    def log_drop(self, chunk):
        self.data.drop(chunk)
        del self.order[chunk]


class ArcReinsert(_OnLog, ChunkArc):
    """arc drops a chunk of the reclaimed segment when ARC's REPLACE,
    repeated until the segment's room is freed, would reach it: each step
    takes T1's oldest chunk not taken yet while the T1 bytes not taken are
    more than p (or at least p at the first step after a B2 ghost hit) or
    T2 has none left, else T2's. The T2 chunks it does not reach are kept
    (staying where they are in their list); T1 chunks (never hit) are not
    kept; every chunk the log drops (asked and not kept, or
    left out by the bound) becomes a ghost."""

    def __init__(self, capacity_bytes, avg_chunk, segment):
        super().__init__(capacity_bytes, avg_chunk)
        self._log_init(capacity_bytes, segment)
        self.reach = set()

    def reclaiming(self, room):
        t1 = list(self.arc.lists["t1"].items())
        t2 = list(self.arc.lists["t2"].items())
        left1, freed, first = self.arc.size("t1"), 0, True
        self.reach = set()
        while freed < room and (t1 or t2):
            p = self.arc.p
            if t1 and (not t2 or left1 > p or (first and self.arc.b2_hit and left1 >= p)):
                chunk, (size, _) = t1.pop(0)
                left1 -= size
            else:
                chunk, (size, _) = t2.pop(0)
            self.reach.add(chunk)
            freed += size
            first = False

    def keep(self, chunk):
        return chunk in self.arc.lists["t2"] and chunk not in self.reach

    def log_drop(self, chunk):
        self.data.drop(chunk)
        self.arc.evict(chunk)


class TinyLfuReinsert(_OnLog, ChunkTinyLfu):
    """tinylfu keeps a chunk whose estimate is at least the admission
    candidate's (the miss whose put reclaims); from the first reclamation
    on the cache is full: every miss is compared with the LRU chunk."""

    def __init__(self, capacity_bytes, avg_chunk, segment):
        super().__init__(capacity_bytes, avg_chunk)
        self._log_init(capacity_bytes, segment)
        self.candidate = None
        self.full = False

    def _has_room(self, chunk, length):
        self.candidate = chunk
        return not self.full and self.data.fits(length)

    def keep(self, chunk):
        self.full = True
        return self.sketch.estimate(self._key(chunk)) >= self.sketch.estimate(self._key(self.candidate))

    def log_drop(self, chunk):
        self.data.drop(chunk)
        del self.order[chunk]


REINSERT_MODELS = {
    "lru": LruReinsert,
    "arc": ArcReinsert,
    "tinylfu": TinyLfuReinsert,
}
