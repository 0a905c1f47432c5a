/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cdac_lru.c: CDAC-LRU (Content-driven Deduplication-Aware Cache; the
 * paper in /work/shared/papers/cdac-dedup-aware-cache.md, section 3) at
 * chunk granularity, on CacheDedup's two caches (see d_lru.c): an LRU
 * metadata cache M of source addresses and the data cache D of unique
 * chunks. A chunk's space is free once no address in M points to it, so
 * replacement works on M:
 *
 * When D needs space, the address S at M's LRU end is examined, again and
 * again, until some chunk has no address left (a free chunk: it is the
 * victim; free chunks are taken oldest first):
 *   BHI (hotness): if S's bitmap shows at least alpha of its chunk's
 *       sub-blocks touched and S was accessed since its last check (flag),
 *       S is hot: its flag and bitmap are cleared and it moves to the MRU
 *       end. Otherwise RCE decides.
 *   RCE (reference counts): C_B counts the addresses in M pointing to S's
 *       chunk (aged by the paper's Algorithm 1: minus one when an address
 *       of the chunk first reaches the LRU end); C_S is C_B as S last saw
 *       it (0 when S entered M). If C_B > 1: with C_S = 0, C_S = C_B,
 *       C_B -= 1 and S moves to the MRU end; else if (C_S - C_B) / C_S <=
 *       lambda, C_S = C_B and S moves to the MRU end; otherwise S is
 *       deleted. If C_B <= 1, S is deleted.
 * Choices the paper leaves open (docs/CACHE.md): M holds
 * cdac-lru-metadata-factor x (D's bytes / average chunk) addresses, and
 * when full its LRU address is deleted without the checks; a chunk of
 * more than 64 sub-blocks has 64 parts of equal size; once every address
 * was examined twice in one search without freeing a chunk, the LRU
 * address is deleted unconditionally (the paper's loop need not end);
 * C_B's aging never takes it below 0.
 * Hits need the address in M (its chunk is then always in D). Every
 * missed chunk is admitted. */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/index_list.h"
#include "cache/structures/meta_cache.h"

enum { K_LAMBDA, K_ALPHA, K_SUB_BLOCK, K_FACTOR };
enum { C_BHI_RETAINED, C_RCE_RETAINED, C_ADDR_DELETED, C_META_EVICTIONS, C_FORCED };

typedef struct {
    double lambda, alpha;
    uint32_t sub_block;
    uint64_t *counters;
    MetaCache meta;
    IndexLinks meta_links;
    IndexList meta_lru;      /* M, least recently used address at the head */
    uint32_t *cs;            /* per address entry: C_S */
    uint8_t *flag;           /* per address: accessed since last checked */
    uint64_t *bits;          /* per address: sub-blocks touched */
    uint8_t *parts;          /* per address: its chunk's parts */
    uint32_t entry_room;     /* entries the four arrays above hold */
    /* chunks in D, by slot */
    uint64_t *slot_chunk;
    uint32_t *refs;          /* addresses in M pointing to the chunk */
    uint32_t *cb;            /* C_B, aged */
    uint8_t *is_free;        /* in free_chunks */
    uint32_t slot_room;
    KeyTable by_chunk;       /* chunk identity -> slot */
    IndexLinks free_links;
    IndexList free_chunks;   /* chunks with refs 0, oldest first */
} CdacLru;

static const CachePolicyKey cdac_lru_keys[] = {
    { "cdac-lru-lambda", CACHE_KEY_REAL, 0, 1, NULL, "0.5",
      "RCE: an address whose chunk's reference count fell by more than this share since its last check is deleted" },
    { "cdac-lru-alpha", CACHE_KEY_REAL, 0, 1, NULL, "0.5",
      "BHI: an address is hot when at least this share of its chunk's sub-blocks was touched" },
    { "cdac-lru-sub-block", CACHE_KEY_UINT, 512, 1 << 20, NULL, "4096", "BHI: bytes of a sub-block (a bitmap bit)" },
    { "cdac-lru-metadata-factor", CACHE_KEY_REAL, 0.01, 1000, NULL, "2",
      "metadata cache entries (source addresses) per chunk the data cache holds at the store's average size" },
};

static const CachePolicyCounter cdac_lru_counters[] = {
    { "bhi_retained", "addresses kept as hot (BHI)", NULL },
    { "rce_retained", "addresses kept by reference count (RCE)", NULL },
    { "addresses_deleted", "addresses deleted to free chunks", NULL },
    { "metadata_evictions", "addresses evicted from a full metadata cache", NULL },
    { "forced_deletions", "addresses deleted after a search freed nothing", NULL },
};

static void *cdac_lru_create(const ChunkPolicyEnv *env)
{
    CdacLru *d = g_new0(CdacLru, 1);
    d->lambda = env->values[K_LAMBDA].number;
    d->alpha = env->values[K_ALPHA].number;
    d->sub_block = (uint32_t)env->values[K_SUB_BLOCK].number;
    d->counters = env->counters;
    meta_cache_init(&d->meta,
                    meta_cache_entries(env->capacity_bytes, env->avg_chunk_size, env->values[K_FACTOR].number));
    index_list_init(&d->meta_lru);
    index_list_init(&d->free_chunks);
    key_table_init(&d->by_chunk);
    return d;
}

static void cdac_lru_destroy(void *st)
{
    CdacLru *d = st;
    meta_cache_free(&d->meta);
    index_links_free(&d->meta_links);
    index_links_free(&d->free_links);
    key_table_free(&d->by_chunk);
    g_free(d->cs);
    g_free(d->flag);
    g_free(d->bits);
    g_free(d->parts);
    g_free(d->slot_chunk);
    g_free(d->refs);
    g_free(d->cb);
    g_free(d->is_free);
    g_free(d);
}

static void entry_room(CdacLru *d, uint32_t e)
{
    if (e < d->entry_room)
        return;
    uint32_t n = d->meta.size;
    g_assert(e < n);
    d->cs = g_renew(uint32_t, d->cs, n);
    d->flag = g_renew(uint8_t, d->flag, n);
    d->bits = g_renew(uint64_t, d->bits, n);
    d->parts = g_renew(uint8_t, d->parts, n);
    d->entry_room = n;
}

static void slot_room(CdacLru *d, ChunkSlot s)
{
    if (s < d->slot_room)
        return;
    uint32_t n = d->slot_room ? d->slot_room : 256;
    while (n <= s)
        n *= 2;
    d->slot_chunk = g_renew(uint64_t, d->slot_chunk, n);
    d->refs = g_renew(uint32_t, d->refs, n);
    d->cb = g_renew(uint32_t, d->cb, n);
    d->is_free = g_renew(uint8_t, d->is_free, n);
    d->slot_room = n;
}

/* The parts of a chunk of `length` bytes, and the bits of the parts the
 * access touches. */
static void touched(const CdacLru *d, const ChunkAccess *a, uint8_t *parts, uint64_t *bits)
{
    uint32_t n = (a->length + d->sub_block - 1) / d->sub_block;
    uint32_t part = d->sub_block;
    if (n > 64) {
        n = 64;
        part = (a->length + 63) / 64;
    }
    *parts = (uint8_t)n;
    *bits = 0;
    if (a->touch_length == 0)
        return;
    uint32_t first = a->touch_offset / part, last = (a->touch_offset + a->touch_length - 1) / part;
    for (uint32_t i = first; i <= last && i < n; i++)
        *bits |= (uint64_t)1 << i;
}

/* The access touched entry e: flag it, add its sub-blocks. */
static void mark(CdacLru *d, uint32_t e, const ChunkAccess *a)
{
    uint8_t parts;
    uint64_t bits;
    touched(d, a, &parts, &bits);
    d->parts[e] = parts;
    d->bits[e] |= bits;
    d->flag[e] = 1;
}

/* Delete address entry e from M; its chunk may become free. */
static void delete_address(CdacLru *d, uint32_t e)
{
    uint32_t s = key_table_get(&d->by_chunk, d->slot_chunk, d->meta.chunk[e]);
    index_list_unlink(&d->meta_links, &d->meta_lru, e);
    meta_cache_remove(&d->meta, e);
    g_assert(s != KEY_TABLE_NONE && d->refs[s] > 0);
    d->refs[s]--;
    if (d->cb[s] > 0)
        d->cb[s]--;
    if (d->refs[s] == 0) {
        index_list_append(&d->free_links, &d->free_chunks, s);
        d->is_free[s] = 1;
    }
}

/* Add a's address to M, pointing at the chunk in slot s. */
static void add_address(CdacLru *d, ChunkSlot s, const ChunkAccess *a)
{
    if (meta_cache_full(&d->meta)) {
        delete_address(d, d->meta_lru.head);
        d->counters[C_META_EVICTIONS]++;
    }
    uint32_t e = meta_cache_add(&d->meta, a->address, a->chunk);
    entry_room(d, e);
    d->cs[e] = 0;
    d->bits[e] = 0;
    mark(d, e, a);
    index_list_append(&d->meta_links, &d->meta_lru, e);
    if (d->is_free[s]) { /* it was free: no longer */
        index_list_unlink(&d->free_links, &d->free_chunks, s);
        d->is_free[s] = 0;
    }
    d->refs[s]++;
    d->cb[s]++;
}

static gboolean cdac_lru_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    CdacLru *d = st;
    uint32_t e = meta_cache_find(&d->meta, a->address);
    if (e != KEY_TABLE_NONE && d->meta.chunk[e] != a->chunk) {
        delete_address(d, e); /* the address holds another chunk now */
        e = KEY_TABLE_NONE;
    }
    if (slot == CHUNK_NO_SLOT) {
        g_assert(e == KEY_TABLE_NONE); /* an address always points into D */
        return FALSE;
    }
    if (e != KEY_TABLE_NONE) {
        mark(d, e, a);
        index_list_to_tail(&d->meta_links, &d->meta_lru, e);
        return TRUE;
    }
    add_address(d, slot, a);
    return FALSE;
}

static gboolean cdac_lru_admit(void *st, const ChunkAccess *a)
{
    (void)st;
    (void)a;
    return TRUE;
}

/* Share of entry e's parts touched. */
static double touched_share(const CdacLru *d, uint32_t e)
{
    return d->parts[e] ? (double)__builtin_popcountll(d->bits[e]) / (double)d->parts[e] : 0.0;
}

static ChunkSlot cdac_lru_victim(void *st)
{
    CdacLru *d = st;
    uint64_t guard = 2 * (uint64_t)meta_cache_live(&d->meta);
    for (uint64_t step = 0; d->free_chunks.len == 0; step++) {
        uint32_t e = d->meta_lru.head;
        if (e == INDEX_NONE)
            return CHUNK_NO_SLOT; /* nothing cached */
        uint32_t s = key_table_get(&d->by_chunk, d->slot_chunk, d->meta.chunk[e]);
        g_assert(s != KEY_TABLE_NONE);
        if (step >= guard) {
            d->counters[C_FORCED]++;
        } else if (d->flag[e] && touched_share(d, e) >= d->alpha) {
            d->flag[e] = 0;
            d->bits[e] = 0;
            index_list_to_tail(&d->meta_links, &d->meta_lru, e);
            d->counters[C_BHI_RETAINED]++;
            continue;
        } else if (d->cb[s] > 1) {
            if (d->cs[e] == 0) {
                d->cs[e] = d->cb[s];
                d->cb[s]--;
                index_list_to_tail(&d->meta_links, &d->meta_lru, e);
                d->counters[C_RCE_RETAINED]++;
                continue;
            }
            double value = ((double)d->cs[e] - (double)d->cb[s]) / (double)d->cs[e];
            if (value <= d->lambda) {
                d->cs[e] = d->cb[s];
                index_list_to_tail(&d->meta_links, &d->meta_lru, e);
                d->counters[C_RCE_RETAINED]++;
                continue;
            }
        }
        delete_address(d, e);
        d->counters[C_ADDR_DELETED]++;
    }
    return d->free_chunks.head;
}

static void cdac_lru_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    CdacLru *d = st;
    slot_room(d, slot);
    d->slot_chunk[slot] = a->chunk;
    d->refs[slot] = 0;
    d->cb[slot] = 0;
    d->is_free[slot] = 0;
    key_table_put(&d->by_chunk, d->slot_chunk, slot);
    add_address(d, slot, a);
}

static void cdac_lru_removed(void *st, ChunkSlot slot)
{
    CdacLru *d = st;
    if (d->refs[slot] > 0) { /* dropped by the core (damaged): its addresses go too */
        for (uint32_t e = d->meta_lru.head; e != INDEX_NONE;) {
            uint32_t next = d->meta_links.next[e];
            if (d->meta.chunk[e] == d->slot_chunk[slot])
                delete_address(d, e);
            e = next;
        }
    }
    g_assert(d->refs[slot] == 0 && d->is_free[slot]);
    index_list_unlink(&d->free_links, &d->free_chunks, slot);
    d->is_free[slot] = 0;
    key_table_remove(&d->by_chunk, d->slot_chunk, slot);
}

static size_t cdac_lru_memory(const void *st)
{
    const CdacLru *d = st;
    return sizeof *d + meta_cache_bytes(&d->meta) + index_links_bytes(&d->meta_links) +
           (size_t)d->entry_room * (sizeof(uint32_t) + 2 + sizeof(uint64_t)) +
           (size_t)d->slot_room * (sizeof(uint64_t) + 2 * sizeof(uint32_t) + 1) + key_table_bytes(&d->by_chunk) +
           index_links_bytes(&d->free_links);
}

const ChunkPolicyOps chunk_policy_cdac_lru = {
    .name = "cdac-lru",
    .description = "CDAC-LRU: D-LRU's two caches, chunks freed by reference-count eviction (lambda) and "
                   "bitmap hotness (alpha, sub-blocks)",
    .citation = "CDAC: Content-driven Deduplication-Aware Storage Cache (the paper's section 3)",
    .keys = cdac_lru_keys,
    .n_keys = G_N_ELEMENTS(cdac_lru_keys),
    .counters = cdac_lru_counters,
    .n_counters = G_N_ELEMENTS(cdac_lru_counters),
    .create = cdac_lru_create,
    .destroy = cdac_lru_destroy,
    .lookup = cdac_lru_lookup,
    .admit = cdac_lru_admit,
    .victim = cdac_lru_victim,
    .inserted = cdac_lru_inserted,
    .removed = cdac_lru_removed,
    .memory = cdac_lru_memory,
};
