/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_lru.c: LRU at chunk granularity. Every missed chunk is admitted;
 * while the newcomer does not fit, the chunk whose last access (hit or
 * insertion) is oldest leaves. Any access to a cached chunk is a hit,
 * whichever file or job it comes from: the cache holds each unique chunk
 * once, so dedup in the cache is free.
 *
 * When the chunk log reclaims its oldest segment (ssd-cache-segment-reclaim
 * reinsert), a chunk is kept when it was used since it was written
 * (admitted or last kept): a referenced bit per slot, set by a hit and
 * cleared by a write, so the log's FIFO of segments gives each chunk a
 * second chance as CLOCK does (docs/CACHE.md). */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/index_list.h"

typedef struct {
    IndexLinks links;
    IndexList order; /* least recently used at the head */
    uint8_t *used;   /* per slot: hit since written (reinsert keeps it) */
    uint32_t slot_room;
} ChunkLru;

static void *chunk_lru_create(const ChunkPolicyEnv *env)
{
    (void)env;
    ChunkLru *l = g_new0(ChunkLru, 1);
    index_list_init(&l->order);
    return l;
}

static void chunk_lru_destroy(void *st)
{
    ChunkLru *l = st;
    index_links_free(&l->links);
    g_free(l->used);
    g_free(l);
}

static gboolean chunk_lru_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkLru *l = st;
    (void)a;
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    index_list_to_tail(&l->links, &l->order, slot);
    l->used[slot] = 1;
    return TRUE;
}

static gboolean chunk_lru_admit(void *st, const ChunkAccess *a)
{
    (void)st;
    (void)a;
    return TRUE;
}

static ChunkSlot chunk_lru_victim(void *st)
{
    return ((ChunkLru *)st)->order.head;
}

static void chunk_lru_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkLru *l = st;
    (void)a;
    if (slot >= l->slot_room) {
        uint32_t n = l->slot_room ? l->slot_room : 256;
        while (n <= slot)
            n *= 2;
        l->used = g_renew(uint8_t, l->used, n);
        l->slot_room = n;
    }
    l->used[slot] = 0;
    index_list_append(&l->links, &l->order, slot);
}

static void chunk_lru_removed(void *st, ChunkSlot slot)
{
    ChunkLru *l = st;
    index_list_unlink(&l->links, &l->order, slot);
}

/* Kept when hit since written; the rewrite is a write (the bit clears). */
static gboolean chunk_lru_keep(void *st, ChunkSlot slot)
{
    ChunkLru *l = st;
    g_assert(slot < l->slot_room);
    gboolean keep = l->used[slot] != 0;
    l->used[slot] = 0;
    return keep;
}

static size_t chunk_lru_memory(const void *st)
{
    const ChunkLru *l = st;
    return sizeof *l + index_links_bytes(&l->links) + l->slot_room;
}

const ChunkPolicyOps chunk_policy_lru = {
    .name = "lru",
    .description = "Least Recently Used over unique chunks: admit every miss, evict the least recently accessed",
    .citation = "classic (e.g. Mattson et al., IBM Systems Journal 1970)",
    .create = chunk_lru_create,
    .destroy = chunk_lru_destroy,
    .lookup = chunk_lru_lookup,
    .admit = chunk_lru_admit,
    .victim = chunk_lru_victim,
    .inserted = chunk_lru_inserted,
    .removed = chunk_lru_removed,
    .keep = chunk_lru_keep,
    .memory = chunk_lru_memory,
};
