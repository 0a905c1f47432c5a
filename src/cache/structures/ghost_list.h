/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ghost_list.h: bounded lists of container ids without data ("ghost"
 * entries: 2Q's A1out, ARC's B1 and B2, LARC's candidate list Qr,
 * S3-FIFO's G), each in the order its ids were added. Ghosts are metadata
 * only: no slot, no SSD bytes (docs/CACHE.md). Policies look an id up when
 * it misses, take it out on a ghost hit, add evicted or refused ids as the
 * newest entry of a list and drop the oldest ones to stay within a bound.
 *
 * One GhostList holds up to GHOST_LISTS lists (ARC keeps B1 and B2 in one,
 * so a missed id is looked up once, not once per list) in a pool of `max`
 * nodes; an open_table.h over the nodes' ids (at least twice as many
 * buckets as nodes, so it never grows) maps an id to its node and every
 * node knows its list, so every operation is O(1) expected and the memory
 * is fixed at creation: GHOST_LIST_BYTES(max). The functions without a
 * list number work on list 0. ghost_list_check() holds the invariants
 * (util/check.h): each node's links at every step, the whole set when
 * loaded. */
#ifndef DESTOR_CACHE_GHOST_LIST_H
#define DESTOR_CACHE_GHOST_LIST_H

#include "cache/policy/policy.h"
#include "cache/structures/open_table.h"
#include "util/le.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define GHOST_NONE UINT32_MAX
#define GHOST_LISTS 2

typedef struct {
    uint32_t max;          /* nodes in the pool */
    uint32_t *id, *prev, *next; /* per node */
    uint8_t *list;         /* per node: its list */
    uint32_t oldest[GHOST_LISTS], newest[GHOST_LISTS], len[GHOST_LISTS];
    uint32_t free_head;    /* unused nodes, chained through next */
    OpenTable index;       /* id -> node, over id[] */
} GhostList;

/* Bytes of a ghost list holding at most `max` ids, for the memory report. */
#define GHOST_LIST_BYTES(max) \
    ((size_t)(max) * (3 * sizeof(uint32_t) + 1) + (size_t)open_table_buckets_for(max) * sizeof(uint32_t))

static inline void ghost_list_init(GhostList *g, uint32_t max)
{
    uint32_t n = max ? max : 1;
    g->max = max;
    g->id = g_new(uint32_t, n);
    g->prev = g_new(uint32_t, n);
    g->next = g_new(uint32_t, n);
    g->list = g_new0(uint8_t, n);
    for (uint32_t i = 0; i < n; i++)
        g->next[i] = i + 1 < max ? i + 1 : GHOST_NONE;
    g->free_head = max ? 0 : GHOST_NONE;
    for (int k = 0; k < GHOST_LISTS; k++) {
        g->oldest[k] = g->newest[k] = GHOST_NONE;
        g->len[k] = 0;
    }
    open_table_init_for(&g->index, max, OPEN_TABLE_UNTAGGED);
}

static inline void ghost_list_free(GhostList *g)
{
    g_free(g->id);
    g_free(g->prev);
    g_free(g->next);
    g_free(g->list);
    open_table_free(&g->index);
}

/* The bucket holding id, or GHOST_NONE. */
static inline uint32_t ghost_find_bucket(const GhostList *g, ContainerId id)
{
    return open_table_find(&g->index, g->id, open_table_id_hash(id), &id, open_table_id_same);
}

/* Are node n's links right: its neighbours point back at it, or it is its
 * list's end? O(1). */
static inline gboolean ghost_node_ok(const GhostList *g, uint32_t n)
{
    uint8_t k = g->list[n];
    return k < GHOST_LISTS &&
           (g->prev[n] == GHOST_NONE ? g->oldest[k] == n : g->next[g->prev[n]] == n && g->list[g->prev[n]] == k) &&
           (g->next[n] == GHOST_NONE ? g->newest[k] == n : g->prev[g->next[n]] == n && g->list[g->next[n]] == k);
}

/* The whole set: each list's nodes linked both ways, as long as its len,
 * each in the index under its id; with the free nodes, max of them. O(max). */
static inline gboolean ghost_list_check(const GhostList *g)
{
    uint64_t total = 0;
    for (int k = 0; k < GHOST_LISTS; k++) {
        uint32_t len = 0;
        for (uint32_t n = g->oldest[k]; n != GHOST_NONE; n = g->next[n], len++)
            if (len >= g->max || g->list[n] != k || !ghost_node_ok(g, n) ||
                open_table_get(&g->index, g->id, open_table_id_hash(g->id[n]), &g->id[n], open_table_id_same) != n)
                return FALSE;
        if (len != g->len[k] || (len == 0) != (g->newest[k] == GHOST_NONE))
            return FALSE;
        total += len;
    }
    if (g->index.used != total)
        return FALSE;
    for (uint32_t n = g->free_head; n != GHOST_NONE && total <= g->max; n = g->next[n])
        total++;
    return total == g->max && open_table_check(&g->index, g->id, open_table_id_hash_of);
}

/* Take the node in bucket b out of its list and the index. */
static inline void ghost_drop_bucket(GhostList *g, uint32_t b)
{
    uint32_t n = open_table_entry(&g->index, b);
    uint8_t k = g->list[n];
    DESTOR_CHECK(ghost_node_ok(g, n));
    open_table_remove_at(&g->index, g->id, b, open_table_id_hash_of);
    if (g->prev[n] != GHOST_NONE)
        g->next[g->prev[n]] = g->next[n];
    else
        g->oldest[k] = g->next[n];
    if (g->next[n] != GHOST_NONE)
        g->prev[g->next[n]] = g->prev[n];
    else
        g->newest[k] = g->prev[n];
    g->next[n] = g->free_head;
    g->free_head = n;
    g->len[k]--;
}

/* Take id out of whichever list holds it: that list's number, or -1 if
 * it was in none. */
static inline int ghost_list_take(GhostList *g, ContainerId id)
{
    uint32_t b = ghost_find_bucket(g, id);
    if (b == GHOST_NONE)
        return -1;
    int k = g->list[open_table_entry(&g->index, b)];
    ghost_drop_bucket(g, b);
    return k;
}

static inline gboolean ghost_list_contains(const GhostList *g, ContainerId id)
{
    return ghost_find_bucket(g, id) != GHOST_NONE;
}

/* Take id out. FALSE if it was not there. */
static inline gboolean ghost_list_remove(GhostList *g, ContainerId id)
{
    return ghost_list_take(g, id) >= 0;
}

/* Drop list k's oldest id; returns it, or GHOST_NONE when that list is empty. */
static inline uint32_t ghost_list_pop_oldest_of(GhostList *g, int k)
{
    uint32_t n = g->oldest[k];
    if (n == GHOST_NONE)
        return GHOST_NONE;
    uint32_t id = g->id[n];
    ghost_drop_bucket(g, ghost_find_bucket(g, id));
    return id;
}

static inline uint32_t ghost_list_pop_oldest(GhostList *g)
{
    return ghost_list_pop_oldest_of(g, 0);
}

/* Add id (in no list yet) as list k's newest entry; when the pool is full
 * list k's oldest entry (the other list's if k is empty) is dropped first.
 * With max 0 nothing is kept. */
static inline void ghost_list_push_to(GhostList *g, int k, ContainerId id)
{
    if (g->max == 0)
        return;
    if (g->free_head == GHOST_NONE && ghost_list_pop_oldest_of(g, k) == GHOST_NONE)
        ghost_list_pop_oldest_of(g, 1 - k);
    uint32_t n = g->free_head;
    g->free_head = g->next[n];
    g->id[n] = id;
    g->list[n] = (uint8_t)k;
    g->prev[n] = g->newest[k];
    g->next[n] = GHOST_NONE;
    if (g->newest[k] != GHOST_NONE)
        g->next[g->newest[k]] = n;
    else
        g->oldest[k] = n;
    g->newest[k] = n;
    g->len[k]++;
    open_table_put_room(&g->index, g->id, n, open_table_id_hash_of);
    DESTOR_CHECK(ghost_node_ok(g, n));
}

static inline void ghost_list_push(GhostList *g, ContainerId id)
{
    ghost_list_push_to(g, 0, id);
}

/* Drop list 0's oldest ids until at most `limit` remain. */
static inline void ghost_list_trim(GhostList *g, uint32_t limit)
{
    while (g->len[0] > limit)
        ghost_list_pop_oldest(g);
}

/* Saved state (part of a policy's blob): for each of the first nl lists,
 * its length u32 and its ids u32, oldest first. */
static inline void ghost_list_save(const GhostList *g, int nl, GByteArray *out)
{
    DESTOR_CHECK(ghost_list_check(g));
    for (int k = 0; k < nl; k++) {
        guint at = out->len;
        g_byte_array_set_size(out, at + 4 + 4 * (guint)g->len[k]);
        uint8_t *b = out->data + at;
        le32_put(b, g->len[k]);
        b += 4;
        for (uint32_t n = g->oldest[k]; n != GHOST_NONE; n = g->next[n], b += 4)
            le32_put(b, g->id[n]);
    }
}

/* Read what ghost_list_save wrote at blob[*at] into an empty list set.
 * FALSE if it does not fit: more ids than the pool, or an id twice. */
static inline gboolean ghost_list_load(GhostList *g, int nl, const uint8_t *blob, size_t len, size_t *at)
{
    uint32_t total = 0;
    for (int k = 0; k < nl; k++) {
        if (len - *at < 4)
            return FALSE;
        uint32_t n = le32_get(blob + *at);
        *at += 4;
        total += n;
        if (n > g->max || total > g->max || (len - *at) / 4 < n)
            return FALSE;
        for (uint32_t i = 0; i < n; i++, *at += 4) {
            uint32_t id = le32_get(blob + *at);
            if (ghost_list_contains(g, id))
                return FALSE;
            ghost_list_push_to(g, k, id);
        }
    }
    DESTOR_CHECK(ghost_list_check(g));
    return TRUE;
}

#endif
