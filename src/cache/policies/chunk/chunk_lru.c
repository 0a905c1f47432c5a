/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_lru.c: LRU at chunk granularity. Every missed chunk is admitted;
 * while the newcomer does not fit, the chunk whose last access (hit or
 * insertion) is oldest leaves. Any access to a cached chunk is a hit,
 * whichever file or job it comes from: the cache holds each unique chunk
 * once, so dedup in the cache is free.
 *
 * When the chunk log reclaims its oldest segment (ssd-cache-segment-reclaim
 * reinsert) it frees room for a segment's worth of new chunks: a chunk of
 * that segment is dropped when it is among the least recently used chunks
 * LRU would evict to admit that room, else kept (rewritten; its place in
 * the order does not change: a rewrite is not an access). */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/index_list.h"
#include "cache/structures/slot_reach.h"

typedef struct {
    IndexLinks links;
    IndexList order;  /* least recently used at the head */
    uint32_t *length; /* per slot: the chunk's bytes */
    uint32_t slot_room;
    SlotReach reach;  /* reinsert: the slots LRU would evict this reclamation */
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
    slot_reach_free(&l->reach);
    g_free(l->length);
    g_free(l);
}

static gboolean chunk_lru_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkLru *l = st;
    (void)a;
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    index_list_to_tail(&l->links, &l->order, slot);
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
    if (slot >= l->slot_room) {
        uint32_t n = l->slot_room ? l->slot_room : 256;
        while (n <= slot)
            n *= 2;
        l->length = g_renew(uint32_t, l->length, n);
        l->slot_room = n;
    }
    l->length[slot] = a->length;
    index_list_append(&l->links, &l->order, slot);
}

static void chunk_lru_removed(void *st, ChunkSlot slot)
{
    ChunkLru *l = st;
    index_list_unlink(&l->links, &l->order, slot);
}

/* A segment of `room` bytes is reclaimed: mark the least recently used
 * chunks LRU would evict to admit that room. */
static void chunk_lru_reclaiming(void *st, uint64_t room)
{
    ChunkLru *l = st;
    slot_reach_clear(&l->reach);
    uint64_t freed = 0;
    for (uint32_t s = l->order.head; s != INDEX_NONE && freed < room; s = l->links.next[s]) {
        slot_reach_mark(&l->reach, s);
        freed += l->length[s];
    }
}

/* Kept unless LRU would evict it this reclamation. */
static gboolean chunk_lru_keep(void *st, ChunkSlot slot)
{
    ChunkLru *l = st;
    g_assert(slot < l->slot_room);
    return !slot_reach_has(&l->reach, slot);
}

static size_t chunk_lru_memory(const void *st)
{
    const ChunkLru *l = st;
    return sizeof *l + index_links_bytes(&l->links) + (size_t)l->slot_room * sizeof(uint32_t) +
           slot_reach_bytes(&l->reach);
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
    .reclaiming = chunk_lru_reclaiming,
    .memory = chunk_lru_memory,
};
