/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cdac.c: CDAC (Content-driven Deduplication-Aware Cache; the paper in
 * /work/shared/papers/cdac-dedup-aware-cache.md, section 3) at chunk
 * granularity, shared by cdac-lru (cdac_lru.c) and cdac-arc (cdac_arc.c),
 * on CacheDedup's two caches (see d_lru.c): a metadata cache M of source
 * addresses, ordered by LRU or by ARC (sized_arc.h, one unit an address),
 * and the data cache D of unique chunks. A chunk's space is free once no
 * address in M points to it, so replacement works on M:
 *
 * When D needs space, the address S that M's order would replace next
 * (LRU: its least recent; ARC: the LRU end of T1 or T2 as ARC chooses) is
 * examined, again and again, until some chunk has no address left (a free
 * chunk: it is the victim; free chunks are taken oldest first):
 *   BHI (hotness): if S's bitmap shows at least alpha of its chunk's
 *       sub-blocks touched and S was accessed since its last check (flag),
 *       S is hot: its flag and bitmap are cleared and it moves to the MRU
 *       end of its list. Otherwise RCE decides.
 *   RCE (reference counts): C_B counts the addresses in M pointing to S's
 *       chunk (aged by the paper's Algorithm 1: minus one when an address
 *       of the chunk first reaches the LRU end); C_S is C_B as S last saw
 *       it (0 when S entered M). If C_B > 1: with C_S = 0, C_S = C_B,
 *       C_B -= 1 and S moves to the MRU end; else if (C_S - C_B) / C_S <=
 *       lambda, C_S = C_B and S moves to the MRU end; otherwise S is
 *       deleted. If C_B <= 1, S is deleted.
 * A deleted address leaves M (with ARC it becomes a ghost in B1 or B2).
 * Choices the paper leaves open (docs/CACHE.md): M holds
 * POLICY-metadata-factor x (D's bytes / average chunk) addresses, and when
 * full the address M's order would replace next is deleted without the
 * checks; a chunk of more than 64 sub-blocks has 64 parts of equal size;
 * once the search has examined twice as many addresses as M held when it
 * began without freeing a chunk, the next one is deleted unconditionally
 * (the paper's loop need not end); C_B's aging never takes it below 0.
 * Hits need the address resident in M (its chunk is then always in D).
 * Every missed chunk is admitted. */
#include "cache/policies/chunk/cdac.h"
#include "cache/structures/index_list.h"
#include "cache/structures/meta_cache.h"
#include "cache/structures/sized_arc.h"

enum { K_LAMBDA, K_ALPHA, K_SUB_BLOCK, K_FACTOR };
enum { C_BHI_RETAINED, C_RCE_RETAINED, C_ADDR_DELETED, C_META_EVICTIONS, C_FORCED };

typedef struct {
    gboolean arc;            /* M ordered by ARC, else LRU */
    double lambda, alpha;
    uint32_t sub_block;
    uint64_t *counters;
    SizedArc meta;           /* M: key the address, payload the chunk, size 1;
                                LRU uses T1 alone and keeps no ghosts */
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
} Cdac;

/* ---- M's order: LRU or ARC over the addresses ---- */

static gboolean resident(const Cdac *d, uint32_t e)
{
    return sized_arc_resident(&d->meta, e);
}

/* The address M's order replaces next. */
static uint32_t next_out(const Cdac *d)
{
    return d->arc ? sized_arc_victim(&d->meta) : d->meta.lists[ARC_T1].head;
}

/* Entry e was hit. */
static void touch_order(Cdac *d, uint32_t e)
{
    if (d->arc)
        sized_arc_hit(&d->meta, e);
    else
        sized_arc_requeue(&d->meta, e);
}

static uint32_t live_addresses(const Cdac *d)
{
    return d->meta.lists[ARC_T1].len + d->meta.lists[ARC_T2].len;
}

static void *cdac_create(const ChunkPolicyEnv *env, gboolean arc)
{
    Cdac *d = g_new0(Cdac, 1);
    d->arc = arc;
    d->lambda = env->values[K_LAMBDA].number;
    d->alpha = env->values[K_ALPHA].number;
    d->sub_block = (uint32_t)env->values[K_SUB_BLOCK].number;
    d->counters = env->counters;
    sized_arc_init(&d->meta,
                   (double)meta_cache_entries(env->capacity_bytes, env->avg_chunk_size, env->values[K_FACTOR].number));
    index_list_init(&d->free_chunks);
    key_table_init(&d->by_chunk);
    return d;
}

void *cdac_lru_create(const ChunkPolicyEnv *env)
{
    return cdac_create(env, FALSE);
}

void *cdac_arc_create(const ChunkPolicyEnv *env)
{
    return cdac_create(env, TRUE);
}

void cdac_destroy(void *st)
{
    Cdac *d = st;
    sized_arc_free(&d->meta);
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

static void entry_room(Cdac *d, uint32_t e)
{
    if (e < d->entry_room)
        return;
    uint32_t n = d->meta.room;
    g_assert(e < n);
    d->cs = g_renew(uint32_t, d->cs, n);
    d->flag = g_renew(uint8_t, d->flag, n);
    d->bits = g_renew(uint64_t, d->bits, n);
    d->parts = g_renew(uint8_t, d->parts, n);
    d->entry_room = n;
}

static void slot_room(Cdac *d, ChunkSlot s)
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

/* The parts of a's chunk, and the bits of the parts the access touches. */
static void touched(const Cdac *d, const ChunkAccess *a, uint8_t *parts, uint64_t *bits)
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
static void mark(Cdac *d, uint32_t e, const ChunkAccess *a)
{
    uint8_t parts;
    uint64_t bits;
    touched(d, a, &parts, &bits);
    d->parts[e] = parts;
    d->bits[e] |= bits;
    d->flag[e] = 1;
}

/* Delete address entry e from M (a ghost with ARC); its chunk may become free. */
static void delete_address(Cdac *d, uint32_t e)
{
    uint32_t s = key_table_get(&d->by_chunk, d->slot_chunk, d->meta.payload[e]);
    if (d->arc)
        sized_arc_evict(&d->meta, e);
    else
        sized_arc_forget(&d->meta, e);
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
static void add_address(Cdac *d, ChunkSlot s, const ChunkAccess *a)
{
    gboolean ghost = d->arc && sized_arc_miss(&d->meta, a->address, 1);
    while (live_addresses(d) + 1.0 > d->meta.capacity) {
        delete_address(d, next_out(d));
        d->counters[C_META_EVICTIONS]++;
    }
    uint32_t e = sized_arc_insert(&d->meta, a->address, 1, a->chunk, ghost);
    entry_room(d, e);
    d->cs[e] = 0;
    d->bits[e] = 0;
    mark(d, e, a);
    if (d->is_free[s]) { /* it was free: no longer */
        index_list_unlink(&d->free_links, &d->free_chunks, s);
        d->is_free[s] = 0;
    }
    d->refs[s]++;
    d->cb[s]++;
}

gboolean cdac_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    Cdac *d = st;
    uint32_t e = sized_arc_find(&d->meta, a->address);
    if (!resident(d, e))
        e = KEY_TABLE_NONE;
    if (e != KEY_TABLE_NONE && d->meta.payload[e] != a->chunk) {
        delete_address(d, e); /* the address holds another chunk now */
        e = KEY_TABLE_NONE;
    }
    if (slot == CHUNK_NO_SLOT) {
        g_assert(e == KEY_TABLE_NONE); /* an address always points into D */
        return FALSE;
    }
    if (e != KEY_TABLE_NONE) {
        mark(d, e, a);
        touch_order(d, e);
        return TRUE;
    }
    add_address(d, slot, a);
    return FALSE;
}

gboolean cdac_admit(void *st, const ChunkAccess *a)
{
    (void)st;
    (void)a;
    return TRUE;
}

/* Share of entry e's parts touched. */
static double touched_share(const Cdac *d, uint32_t e)
{
    return d->parts[e] ? (double)__builtin_popcountll(d->bits[e]) / (double)d->parts[e] : 0.0;
}

ChunkSlot cdac_victim(void *st)
{
    Cdac *d = st;
    uint64_t guard = 2 * (uint64_t)live_addresses(d);
    for (uint64_t step = 0; d->free_chunks.len == 0; step++) {
        uint32_t e = next_out(d);
        if (e == KEY_TABLE_NONE)
            return CHUNK_NO_SLOT; /* nothing cached */
        uint32_t s = key_table_get(&d->by_chunk, d->slot_chunk, d->meta.payload[e]);
        g_assert(s != KEY_TABLE_NONE);
        if (step >= guard) {
            d->counters[C_FORCED]++;
        } else if (d->flag[e] && touched_share(d, e) >= d->alpha) {
            d->flag[e] = 0;
            d->bits[e] = 0;
            sized_arc_requeue(&d->meta, e);
            d->counters[C_BHI_RETAINED]++;
            continue;
        } else if (d->cb[s] > 1) {
            if (d->cs[e] == 0) {
                d->cs[e] = d->cb[s];
                d->cb[s]--;
                sized_arc_requeue(&d->meta, e);
                d->counters[C_RCE_RETAINED]++;
                continue;
            }
            double value = ((double)d->cs[e] - (double)d->cb[s]) / (double)d->cs[e];
            if (value <= d->lambda) {
                d->cs[e] = d->cb[s];
                sized_arc_requeue(&d->meta, e);
                d->counters[C_RCE_RETAINED]++;
                continue;
            }
        }
        delete_address(d, e);
        d->counters[C_ADDR_DELETED]++;
    }
    return d->free_chunks.head;
}

void cdac_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    Cdac *d = st;
    slot_room(d, slot);
    d->slot_chunk[slot] = a->chunk;
    d->refs[slot] = 0;
    d->cb[slot] = 0;
    d->is_free[slot] = 0;
    key_table_put(&d->by_chunk, d->slot_chunk, slot);
    add_address(d, slot, a);
}

/* Resident addresses of `chunk`, deleted (its copy was dropped). */
static void delete_addresses_of(Cdac *d, uint64_t chunk)
{
    for (int list = ARC_T1; list <= ARC_T2; list++)
        for (uint32_t e = d->meta.lists[list].head; e != INDEX_NONE;) {
            uint32_t next = d->meta.links.next[e];
            if (d->meta.payload[e] == chunk)
                delete_address(d, e);
            e = next;
        }
}

void cdac_removed(void *st, ChunkSlot slot)
{
    Cdac *d = st;
    if (d->refs[slot] > 0) /* dropped by the core (damaged): its addresses go too */
        delete_addresses_of(d, d->slot_chunk[slot]);
    g_assert(d->refs[slot] == 0 && d->is_free[slot]);
    index_list_unlink(&d->free_links, &d->free_chunks, slot);
    d->is_free[slot] = 0;
    key_table_remove(&d->by_chunk, d->slot_chunk, slot);
}

size_t cdac_memory(const void *st)
{
    const Cdac *d = st;
    return sizeof *d + sized_arc_bytes(&d->meta) +
           (size_t)d->entry_room * (sizeof(uint32_t) + 2 + sizeof(uint64_t)) +
           (size_t)d->slot_room * (sizeof(uint64_t) + 2 * sizeof(uint32_t) + 1) + key_table_bytes(&d->by_chunk) +
           index_links_bytes(&d->free_links);
}
