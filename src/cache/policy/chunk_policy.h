/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_policy.h: the replacement-policy interface of the chunk cache
 * (ssd-cache-granularity chunk; docs/CACHE.md "Chunk granularity").
 *
 * The chunk cache core (chunk_cache.h) owns the data cache: the unique
 * chunks on the SSD, keyed by fingerprint, one slot each, their bytes and
 * the capacity in bytes; it does all I/O and all counting. A policy decides:
 *   - whether an access to a chunk the data cache holds is served from the
 *     SSD (lookup): always for lru and arc; for the dedup-aware policies
 *     (CacheDedup's D-LRU and D-ARC, CDAC) only when the access's source
 *     address is in the policy's own metadata cache;
 *   - whether a missed chunk is admitted (admit), and
 *   - which cached chunk leaves when space is needed (victim, asked until
 *     the newcomer fits),
 *   - with ssd-cache-segment-reclaim reinsert, whether a chunk of the
 *     segment the chunk log reclaims is kept (keep; optional),
 * and is told what the core did (inserted, removed). A policy does no I/O.
 * Slots are small dense numbers the core reuses; a policy keeps its
 * per-slot state in arrays it grows as it sees larger slots.
 *
 * Chunk policies are registered in the same registry as the container
 * policies (policy_registry.c), by name and granularity; their own keys go
 * through the same settings (policy.h: CachePolicyKey). */
#ifndef DESTOR_CACHE_CHUNK_POLICY_H
#define DESTOR_CACHE_CHUNK_POLICY_H

#include "cache/policy/policy.h"

#include <glib.h>
#include <stdint.h>

/* The policy that leaves replacement to ssd-cache-layout buckets
 * (AustereCache's bucket-local eviction); the only one that layout takes. */
#define CHUNK_POLICY_AUSTERE "austere"

typedef uint32_t ChunkSlot;
#define CHUNK_NO_SLOT UINT32_MAX

/* One chunk access as a policy sees it. */
typedef struct {
    uint64_t chunk;        /* the chunk's identity: the first 8 bytes of its
                              fingerprint (ghosts and metadata entries name
                              chunks by it; a cryptographic fingerprint's
                              prefix collides with odds of 2^-64 per pair) */
    uint64_t address;      /* its source address: (job, file, chunk index)
                              hashed to 64 bits (chunk_address()) */
    uint32_t length;       /* the chunk's bytes */
    uint32_t touch_offset; /* the bytes of it this access reads: */
    uint32_t touch_length; /* [touch_offset, touch_offset + touch_length) */
} ChunkAccess;

/* What a policy sees of the core. */
typedef struct {
    uint64_t capacity_bytes;        /* the data cache's bytes on the SSD */
    uint32_t avg_chunk_size;        /* the store's average chunk size: sizes
                                       the metadata caches (in entries) */
    const CachePolicyValue *values; /* the policy's keys, in keys[] order */
    uint64_t *counters;             /* the policy's counters, in counters[] order */
} ChunkPolicyEnv;

typedef struct ChunkPolicyOps ChunkPolicyOps;
struct ChunkPolicyOps {
    const char *name;        /* the ssd-cache-policy name */
    const char *description; /* one line */
    const char *citation;
    const CachePolicyKey *keys;
    size_t n_keys;
    const CachePolicyCounter *counters;
    size_t n_counters;

    void *(*create)(const ChunkPolicyEnv *env);
    void (*destroy)(void *st);
    /* Access `a`; `slot` is where the data cache holds its chunk, or
     * CHUNK_NO_SLOT. TRUE: served from the SSD (a hit; only possible with a
     * slot). FALSE with a slot: the policy's metadata did not know the
     * address, so the access is a miss read from the HDD, but the chunk is
     * already cached (no SSD write); the policy records the address. */
    gboolean (*lookup)(void *st, ChunkSlot slot, const ChunkAccess *a);
    /* A chunk the data cache does not hold missed: admit it? */
    gboolean (*admit)(void *st, const ChunkAccess *a);
    /* Space is needed: an occupied slot to evict (the core removes it and
     * asks again until the newcomer fits). */
    ChunkSlot (*victim)(void *st);
    /* The core wrote a's chunk into `slot`. */
    void (*inserted)(void *st, ChunkSlot slot, const ChunkAccess *a);
    /* `slot` was emptied: a victim, or a copy the core dropped (damaged),
     * or one the log dropped (reclaimed, or not kept). */
    void (*removed)(void *st, ChunkSlot slot);
    /* Optional (NULL: nothing is kept, the log reclaims as a FIFO, as
     * evict). ssd-cache-segment-reclaim reinsert: the log reclaims the
     * segment holding slot's chunk. TRUE keeps it: the log rewrites it
     * into the open segment (an SSD write; the policy takes it as written
     * now); FALSE drops it (`removed` follows, as for a victim). Decided
     * from the policy's own state; asked only while the log's bound on
     * reinserted bytes has room for the chunk. */
    gboolean (*keep)(void *st, ChunkSlot slot);
    /* Optional (NULL: nothing to do). The log starts reclaiming a segment
     * whose room after its header is `room` bytes: the `keep`s that follow,
     * until the next call, are about its chunks, decided on the state now
     * (arc: the chunks ARC's REPLACE would reach to free `room` bytes are
     * dropped). */
    void (*reclaiming)(void *st, uint64_t room);
    /* Optional (NULL: `removed`). The log's reclamation dropped slot's
     * chunk: evict's FIFO of segments, a chunk reinsert's `keep` said no
     * to or its bound left out unasked, or one found damaged as the
     * segment was read; a replacement the policy did not choose. */
    void (*dropped)(void *st, ChunkSlot slot);
    /* All bytes of policy state now (metadata caches and ghosts included). */
    size_t (*memory)(const void *st);
};

/* policy_registry.c: the chunk policies by name. FALSE for a name no chunk
 * policy has ("none" included). */
gboolean chunk_policy_lookup(const char *name, const ChunkPolicyOps **ops);
size_t chunk_policy_count(void);
const ChunkPolicyOps *chunk_policy_at(size_t i);

/* The 64-bit source address of chunk `index` of the file whose key is
 * `file` (the read seam's ChunkPosition: XXH3-64 of the path seeded with
 * the job): a bijective mix of the two, so distinct chunks of one file never
 * share an address. */
static inline uint64_t chunk_address(uint64_t file, uint32_t index)
{
    uint64_t x = file ^ ((uint64_t)index * 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#endif
