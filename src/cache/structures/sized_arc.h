/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sized_arc.h: ARC (Megiddo & Modha, FAST 2003) over entries of different
 * sizes, for the chunk policies: arc's data cache (chunks, sized in bytes)
 * and D-ARC's two caches (chunks in bytes; source addresses, each of size
 * 1). Resident entries are in T1 (seen once lately) or T2 (more than once),
 * ghosts (keys and sizes only) in B1 or B2; all four are LRU lists.
 *
 * The published algorithm counts pages; with sizes every count becomes a
 * sum of sizes (docs/CACHE.md): a ghost hit of size s in B1 raises the
 * target p of T1 by s x max(1, |B2| / |B1|) (bytes of the lists), one in
 * B2 lowers it by s x max(1, |B1| / |B2|), within [0, c]; the victim is
 * T1's LRU entry when T1 holds more than p (or, for a B2 ghost hit, at
 * least p) or T2 is empty, else T2's; after an insertion the oldest B1
 * ghosts go while |T1| + |B1| > c, then the oldest B2 ghosts while the
 * four lists hold more than 2c.
 *
 * Each entry has a key (a chunk identity or an address) and a payload the
 * caller uses (a slot, a chunk identity); entries are dense numbers. */
#ifndef DESTOR_CACHE_SIZED_ARC_H
#define DESTOR_CACHE_SIZED_ARC_H

#include "cache/structures/index_list.h"
#include "cache/structures/key_table.h"

#include <glib.h>
#include <stdint.h>

enum { ARC_T1, ARC_T2, ARC_B1, ARC_B2, ARC_LISTS };

typedef struct {
    double capacity;       /* c: the resident lists' size at most */
    double p;              /* T1's target size */
    uint64_t *key, *payload;
    uint32_t *size;
    uint8_t *list;         /* ARC_T1 .. ARC_B2 */
    uint32_t room, taken, *free_entries, n_free;
    KeyTable table;        /* key -> entry, resident or ghost */
    IndexLinks links;
    IndexList lists[ARC_LISTS];
    double bytes[ARC_LISTS];
    gboolean b2_hit;       /* the current miss was a B2 ghost hit */
} SizedArc;

static inline void sized_arc_init(SizedArc *a, double capacity)
{
    memset(a, 0, sizeof *a);
    a->capacity = capacity;
    key_table_init(&a->table);
    for (int i = 0; i < ARC_LISTS; i++)
        index_list_init(&a->lists[i]);
}

static inline void sized_arc_free(SizedArc *a)
{
    g_free(a->key);
    g_free(a->payload);
    g_free(a->size);
    g_free(a->list);
    g_free(a->free_entries);
    key_table_free(&a->table);
    index_links_free(&a->links);
}

/* The entry of key (resident or ghost), or KEY_TABLE_NONE. */
static inline uint32_t sized_arc_find(const SizedArc *a, uint64_t key)
{
    return key_table_get(&a->table, a->key, key);
}

static inline gboolean sized_arc_resident(const SizedArc *a, uint32_t e)
{
    return e != KEY_TABLE_NONE && a->list[e] <= ARC_T2;
}

static inline void sized_arc_unlink(SizedArc *a, uint32_t e)
{
    index_list_unlink(&a->links, &a->lists[a->list[e]], e);
    a->bytes[a->list[e]] -= a->size[e];
}

static inline void sized_arc_link(SizedArc *a, uint32_t e, int list)
{
    a->list[e] = (uint8_t)list;
    index_list_append(&a->links, &a->lists[list], e);
    a->bytes[list] += a->size[e];
}

/* Forget entry e altogether. */
static inline void sized_arc_forget(SizedArc *a, uint32_t e)
{
    sized_arc_unlink(a, e);
    key_table_remove(&a->table, a->key, e);
    a->free_entries[a->n_free++] = e;
}

/* A resident entry was hit: to T2's MRU end. */
static inline void sized_arc_hit(SizedArc *a, uint32_t e)
{
    sized_arc_unlink(a, e);
    sized_arc_link(a, e, ARC_T2);
}

/* A resident entry moves to its own list's MRU end (kept by a caller's
 * check, CDAC). */
static inline void sized_arc_requeue(SizedArc *a, uint32_t e)
{
    index_list_to_tail(&a->links, &a->lists[a->list[e]], e);
}

/* A miss of key, size s: adapt p on a ghost hit and forget the ghost.
 * TRUE: it was a ghost (the newcomer goes to T2). */
static inline gboolean sized_arc_miss(SizedArc *a, uint64_t key, uint32_t s)
{
    uint32_t e = sized_arc_find(a, key);
    a->b2_hit = FALSE;
    if (e == KEY_TABLE_NONE)
        return FALSE;
    g_assert(!sized_arc_resident(a, e));
    double b1 = a->bytes[ARC_B1], b2 = a->bytes[ARC_B2];
    if (a->list[e] == ARC_B1) {
        double delta = (double)s * (b1 >= b2 ? 1.0 : b2 / b1);
        a->p = MIN(a->capacity, a->p + delta);
    } else {
        double delta = (double)s * (b2 >= b1 ? 1.0 : b1 / b2);
        a->p = MAX(0.0, a->p - delta);
        a->b2_hit = TRUE;
    }
    sized_arc_forget(a, e);
    return TRUE;
}

/* ARC's REPLACE: TRUE when it replaces from T1 now (T1 is not empty, and
 * T2 is, or T1 holds more than p, or at least p on a B2 ghost hit), FALSE
 * when from T2. */
static inline gboolean sized_arc_replaces_t1(const SizedArc *a)
{
    double t1 = a->bytes[ARC_T1];
    return a->lists[ARC_T1].len > 0 && (a->lists[ARC_T2].len == 0 || t1 > a->p || (a->b2_hit && t1 >= a->p));
}

/* ARC's REPLACE repeated until `bytes` are freed, on the state now and
 * changing nothing: take(ctx, e) for each resident entry it would replace,
 * in order. Each step takes the oldest entry of T1 not taken yet when the
 * T1 bytes not taken hold more than p (at least p at the first step after
 * a B2 ghost hit: the current miss's REPLACE) or none of T2 is left, else
 * the oldest of T2 not taken. Its first step is sized_arc_victim's. */
static inline void sized_arc_replace_walk(const SizedArc *a, double bytes, void (*take)(void *ctx, uint32_t e),
                                          void *ctx)
{
    double t1 = a->bytes[ARC_T1], freed = 0;
    uint32_t e1 = a->lists[ARC_T1].head, e2 = a->lists[ARC_T2].head;
    gboolean first = TRUE;
    while (freed < bytes && (e1 != INDEX_NONE || e2 != INDEX_NONE)) {
        gboolean from_t1 = e1 != INDEX_NONE && (e2 == INDEX_NONE || t1 > a->p || (first && a->b2_hit && t1 >= a->p));
        uint32_t e = from_t1 ? e1 : e2;
        if (from_t1) {
            e1 = a->links.next[e];
            t1 -= a->size[e];
        } else {
            e2 = a->links.next[e];
        }
        freed += a->size[e];
        first = FALSE;
        take(ctx, e);
    }
}

/* The resident entry ARC replaces next, or KEY_TABLE_NONE when none. */
static inline uint32_t sized_arc_victim(const SizedArc *a)
{
    if (sized_arc_replaces_t1(a))
        return a->lists[ARC_T1].head;
    return a->lists[ARC_T2].len > 0 ? a->lists[ARC_T2].head : KEY_TABLE_NONE;
}

/* Evict resident entry e: it becomes a ghost in B1 (from T1) or B2. */
static inline void sized_arc_evict(SizedArc *a, uint32_t e)
{
    int ghost = a->list[e] == ARC_T1 ? ARC_B1 : ARC_B2;
    sized_arc_unlink(a, e);
    sized_arc_link(a, e, ghost);
}

/* Keep the ghosts within bounds (after an insertion). */
static inline void sized_arc_trim(SizedArc *a)
{
    while (a->lists[ARC_B1].len > 0 && a->bytes[ARC_T1] + a->bytes[ARC_B1] > a->capacity)
        sized_arc_forget(a, a->lists[ARC_B1].head);
    while (a->lists[ARC_B2].len > 0 &&
           a->bytes[ARC_T1] + a->bytes[ARC_T2] + a->bytes[ARC_B1] + a->bytes[ARC_B2] > 2 * a->capacity)
        sized_arc_forget(a, a->lists[ARC_B2].head);
}

/* Insert a resident entry (key not present), into T2 after a ghost hit,
 * else T1; then trim the ghosts. Returns its entry. */
static inline uint32_t sized_arc_insert(SizedArc *a, uint64_t key, uint32_t s, uint64_t payload, gboolean was_ghost)
{
    uint32_t e;
    if (a->n_free > 0) {
        e = a->free_entries[--a->n_free];
    } else {
        if (a->taken == a->room) {
            uint32_t n = a->room ? 2 * a->room : 256;
            a->key = g_renew(uint64_t, a->key, n);
            a->payload = g_renew(uint64_t, a->payload, n);
            a->size = g_renew(uint32_t, a->size, n);
            a->list = g_renew(uint8_t, a->list, n);
            a->free_entries = g_renew(uint32_t, a->free_entries, n);
            a->room = n;
        }
        e = a->taken++;
    }
    a->key[e] = key;
    a->size[e] = s;
    a->payload[e] = payload;
    key_table_put(&a->table, a->key, e);
    sized_arc_link(a, e, was_ghost ? ARC_T2 : ARC_T1);
    sized_arc_trim(a);
    return e;
}

static inline size_t sized_arc_bytes(const SizedArc *a)
{
    return sizeof *a + (size_t)a->room * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t) + 1) +
           key_table_bytes(&a->table) + index_links_bytes(&a->links);
}

#endif
