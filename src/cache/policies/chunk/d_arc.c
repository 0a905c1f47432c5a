/* SPDX-License-Identifier: GPL-3.0-or-later */
/* d_arc.c: D-ARC (CacheDedup, FAST 2016) at chunk granularity: D-LRU's two
 * caches (d_lru.c), each replaced by ARC instead of LRU: the data cache's
 * lists sized in bytes (chunk_arc.c), the metadata cache's in addresses
 * (d-arc-metadata-factor x data cache bytes / average chunk of them). An
 * access hits when its address is resident in the metadata cache and its
 * chunk in the data cache; a miss records the address (into the metadata
 * cache's T2 when it was a ghost there) and brings the chunk into the data
 * cache unless it is there already (no SSD write). Every missed chunk is
 * admitted. */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/meta_cache.h"
#include "cache/structures/sized_arc.h"

typedef struct {
    SizedArc data;        /* payload: the slot */
    SizedArc meta;        /* key: address; payload: chunk identity; size 1 */
    uint32_t *entry;      /* per slot: its data entry */
    uint32_t slot_room;
    gboolean was_ghost;
    ChunkSlot victim;
    uint64_t *counters;
} DArc;

enum { C_META_EVICTIONS, C_META_MISSES };

static const CachePolicyKey d_arc_keys[] = {
    { "d-arc-metadata-factor", CACHE_KEY_REAL, 0.01, 1000, NULL, "2",
      "metadata cache entries (source addresses) per chunk the data cache holds at the store's average size" },
};

static const CachePolicyCounter d_arc_counters[] = {
    { "metadata_evictions", "addresses evicted from the metadata cache", NULL },
    { "metadata_misses", "accesses whose address was not in the metadata cache", NULL },
};

static void *d_arc_create(const ChunkPolicyEnv *env)
{
    DArc *d = g_new0(DArc, 1);
    sized_arc_init(&d->data, (double)env->capacity_bytes);
    sized_arc_init(&d->meta,
                   (double)meta_cache_entries(env->capacity_bytes, env->avg_chunk_size, env->values[0].number));
    d->victim = CHUNK_NO_SLOT;
    d->counters = env->counters;
    return d;
}

static void d_arc_destroy(void *st)
{
    DArc *d = st;
    sized_arc_free(&d->data);
    sized_arc_free(&d->meta);
    g_free(d->entry);
    g_free(d);
}

/* Record a's address (pointing at its chunk) in the metadata cache. */
static void remember(DArc *d, const ChunkAccess *a)
{
    uint32_t e = sized_arc_find(&d->meta, a->address);
    if (sized_arc_resident(&d->meta, e) && d->meta.payload[e] == a->chunk) {
        sized_arc_hit(&d->meta, e);
        return;
    }
    if (sized_arc_resident(&d->meta, e)) /* it holds another chunk now */
        sized_arc_forget(&d->meta, e);
    gboolean ghost = sized_arc_miss(&d->meta, a->address, 1);
    while (d->meta.bytes[ARC_T1] + d->meta.bytes[ARC_T2] + 1 > d->meta.capacity) {
        sized_arc_evict(&d->meta, sized_arc_victim(&d->meta));
        d->counters[C_META_EVICTIONS]++;
    }
    sized_arc_insert(&d->meta, a->address, 1, a->chunk, ghost);
}

static gboolean d_arc_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    DArc *d = st;
    uint32_t e = sized_arc_find(&d->meta, a->address);
    gboolean known = sized_arc_resident(&d->meta, e) && d->meta.payload[e] == a->chunk;
    if (!known)
        d->counters[C_META_MISSES]++;
    if (slot == CHUNK_NO_SLOT)
        return FALSE; /* the address is recorded when the chunk is inserted */
    remember(d, a);
    sized_arc_hit(&d->data, d->entry[slot]);
    return known;
}

static gboolean d_arc_admit(void *st, const ChunkAccess *a)
{
    DArc *d = st;
    d->was_ghost = sized_arc_miss(&d->data, a->chunk, a->length);
    return TRUE;
}

static ChunkSlot d_arc_victim(void *st)
{
    DArc *d = st;
    uint32_t e = sized_arc_victim(&d->data);
    d->victim = e == KEY_TABLE_NONE ? CHUNK_NO_SLOT : (ChunkSlot)d->data.payload[e];
    return d->victim;
}

static void d_arc_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    DArc *d = st;
    if (slot >= d->slot_room) {
        uint32_t n = d->slot_room ? d->slot_room : 256;
        while (n <= slot)
            n *= 2;
        d->entry = g_renew(uint32_t, d->entry, n);
        d->slot_room = n;
    }
    d->entry[slot] = sized_arc_insert(&d->data, a->chunk, a->length, slot, d->was_ghost);
    remember(d, a);
}

static void d_arc_removed(void *st, ChunkSlot slot)
{
    DArc *d = st;
    if (slot == d->victim)
        sized_arc_evict(&d->data, d->entry[slot]);
    else
        sized_arc_forget(&d->data, d->entry[slot]);
    d->victim = CHUNK_NO_SLOT;
}

static size_t d_arc_memory(const void *st)
{
    const DArc *d = st;
    return sizeof *d + sized_arc_bytes(&d->data) + sized_arc_bytes(&d->meta) + (size_t)d->slot_room * sizeof(uint32_t);
}

const ChunkPolicyOps chunk_policy_d_arc = {
    .name = "d-arc",
    .description = "D-ARC: an ARC metadata cache of source addresses beside an ARC data cache of unique chunks",
    .citation = "W. Li, G. Jean-Baptise, J. Riveros, G. Narasimhan, T. Zhang, M. Zhao, CacheDedup: In-line "
                "Deduplication for Flash Caching, FAST 2016",
    .keys = d_arc_keys,
    .n_keys = G_N_ELEMENTS(d_arc_keys),
    .counters = d_arc_counters,
    .n_counters = G_N_ELEMENTS(d_arc_counters),
    .create = d_arc_create,
    .destroy = d_arc_destroy,
    .lookup = d_arc_lookup,
    .admit = d_arc_admit,
    .victim = d_arc_victim,
    .inserted = d_arc_inserted,
    .removed = d_arc_removed,
    .memory = d_arc_memory,
};
