/* SPDX-License-Identifier: GPL-3.0-or-later */
/* d_lru.c: D-LRU (CacheDedup, Li et al., FAST 2016) at chunk granularity.
 * Two caches, each LRU with its own capacity:
 *   - the metadata cache: source addresses (job, file, chunk index), each
 *     naming its chunk; d-lru-metadata-factor x (data cache bytes / the
 *     store's average chunk size) entries;
 *   - the data cache: unique chunks by fingerprint, the core's slots.
 * An access hits when its address is in the metadata cache and its chunk
 * in the data cache. Otherwise it is a miss read from the HDD: the address
 * enters the metadata cache (the least recently used address leaves when
 * full), and the chunk enters the data cache unless it is there already
 * (a duplicate: no SSD write). The two are replaced independently: an
 * address may outlive its chunk (its next access misses and brings the
 * chunk back) and a chunk its addresses. Every missed chunk is admitted. */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/index_list.h"
#include "cache/structures/meta_cache.h"

typedef struct {
    MetaCache meta;
    IndexLinks meta_links;
    IndexList meta_lru;   /* least recently used address at the head */
    IndexLinks data_links;
    IndexList data_lru;   /* least recently used chunk at the head */
    uint64_t *counters;
} DLru;

enum { C_META_EVICTIONS, C_META_MISSES };

static const CachePolicyKey d_lru_keys[] = {
    { "d-lru-metadata-factor", CACHE_KEY_REAL, 0.01, 1000, NULL, "2",
      "metadata cache entries (source addresses) per chunk the data cache holds at the store's average size" },
};

static const CachePolicyCounter d_lru_counters[] = {
    { "metadata_evictions", "addresses evicted from the metadata cache", NULL },
    { "metadata_misses", "accesses whose address was not in the metadata cache", NULL },
};

static void *d_lru_create(const ChunkPolicyEnv *env)
{
    DLru *d = g_new0(DLru, 1);
    meta_cache_init(&d->meta, meta_cache_entries(env->capacity_bytes, env->avg_chunk_size, env->values[0].number));
    index_list_init(&d->meta_lru);
    index_list_init(&d->data_lru);
    d->counters = env->counters;
    return d;
}

static void d_lru_destroy(void *st)
{
    DLru *d = st;
    meta_cache_free(&d->meta);
    index_links_free(&d->meta_links);
    index_links_free(&d->data_links);
    g_free(d);
}

/* Record a's address (pointing at its chunk) as the most recent. */
static void remember(DLru *d, const ChunkAccess *a)
{
    uint32_t e = meta_cache_find(&d->meta, a->address);
    if (e != KEY_TABLE_NONE) {
        d->meta.chunk[e] = a->chunk;
        index_list_to_tail(&d->meta_links, &d->meta_lru, e);
        return;
    }
    if (meta_cache_full(&d->meta)) {
        uint32_t old = d->meta_lru.head;
        index_list_unlink(&d->meta_links, &d->meta_lru, old);
        meta_cache_remove(&d->meta, old);
        d->counters[C_META_EVICTIONS]++;
    }
    e = meta_cache_add(&d->meta, a->address, a->chunk);
    index_list_append(&d->meta_links, &d->meta_lru, e);
}

static gboolean d_lru_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    DLru *d = st;
    uint32_t e = meta_cache_find(&d->meta, a->address);
    gboolean known = e != KEY_TABLE_NONE && d->meta.chunk[e] == a->chunk;
    if (!known)
        d->counters[C_META_MISSES]++;
    if (slot == CHUNK_NO_SLOT)
        return FALSE; /* the address is recorded when the chunk is inserted */
    remember(d, a);
    index_list_to_tail(&d->data_links, &d->data_lru, slot);
    return known;
}

static gboolean d_lru_admit(void *st, const ChunkAccess *a)
{
    (void)st;
    (void)a;
    return TRUE;
}

static ChunkSlot d_lru_victim(void *st)
{
    return ((DLru *)st)->data_lru.head;
}

static void d_lru_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    DLru *d = st;
    remember(d, a);
    index_list_append(&d->data_links, &d->data_lru, slot);
}

static void d_lru_removed(void *st, ChunkSlot slot)
{
    DLru *d = st;
    index_list_unlink(&d->data_links, &d->data_lru, slot);
}

static size_t d_lru_memory(const void *st)
{
    const DLru *d = st;
    return sizeof *d + meta_cache_bytes(&d->meta) + index_links_bytes(&d->meta_links) +
           index_links_bytes(&d->data_links);
}

const ChunkPolicyOps chunk_policy_d_lru = {
    .name = "d-lru",
    .description = "D-LRU: an LRU metadata cache of source addresses beside an LRU data cache of unique chunks",
    .citation = "W. Li, G. Jean-Baptise, J. Riveros, G. Narasimhan, T. Zhang, M. Zhao, CacheDedup: In-line Deduplication for Flash Caching, FAST 2016",
    .keys = d_lru_keys,
    .n_keys = G_N_ELEMENTS(d_lru_keys),
    .counters = d_lru_counters,
    .n_counters = G_N_ELEMENTS(d_lru_counters),
    .create = d_lru_create,
    .destroy = d_lru_destroy,
    .lookup = d_lru_lookup,
    .admit = d_lru_admit,
    .victim = d_lru_victim,
    .inserted = d_lru_inserted,
    .removed = d_lru_removed,
    .memory = d_lru_memory,
};
