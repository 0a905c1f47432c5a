/* ghost_list.h: a bounded list of container ids without data ("ghost"
 * entries: 2Q's A1out, ARC's B1 and B2, LARC's candidate list Qr,
 * S3-FIFO's G), in the order they were added. Ghosts are metadata only: no
 * slot, no SSD bytes (docs/CACHE.md). Policies look an id up when it misses,
 * take it out on a ghost hit, add evicted or refused ids as the newest entry
 * and drop the oldest ones to stay within their bound.
 *
 * Nodes come from a pool of `max` entries; an open-addressing table with
 * linear probing (at least twice as many buckets as nodes, deletion by
 * backward shift) maps an id to its node, so every operation is O(1)
 * expected and the memory is fixed at creation: GHOST_LIST_BYTES(max). */
#ifndef DESTOR_CACHE_GHOST_LIST_H
#define DESTOR_CACHE_GHOST_LIST_H

#include "cache/policy.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define GHOST_NONE UINT32_MAX

typedef struct {
    uint32_t max;          /* nodes in the pool */
    uint32_t len;
    uint32_t *id, *prev, *next; /* per node */
    uint32_t oldest, newest;
    uint32_t free_head;    /* unused nodes, chained through next */
    uint32_t *bucket;      /* node index or GHOST_NONE */
    uint32_t mask;         /* buckets - 1 */
} GhostList;

static inline uint32_t ghost_list_buckets(uint32_t max)
{
    uint32_t b = 4;
    while (b < 2 * (uint64_t)max)
        b <<= 1;
    return b;
}

/* Bytes of a ghost list holding at most `max` ids, for the memory report. */
#define GHOST_LIST_BYTES(max) \
    ((size_t)(max) * 3 * sizeof(uint32_t) + (size_t)ghost_list_buckets(max) * sizeof(uint32_t))

static inline void ghost_list_init(GhostList *g, uint32_t max)
{
    uint32_t n = max ? max : 1, b = ghost_list_buckets(max);
    g->max = max;
    g->len = 0;
    g->id = g_new(uint32_t, n);
    g->prev = g_new(uint32_t, n);
    g->next = g_new(uint32_t, n);
    for (uint32_t i = 0; i < n; i++)
        g->next[i] = i + 1 < max ? i + 1 : GHOST_NONE;
    g->free_head = max ? 0 : GHOST_NONE;
    g->oldest = g->newest = GHOST_NONE;
    g->bucket = g_new(uint32_t, b);
    memset(g->bucket, 0xff, (size_t)b * sizeof(uint32_t));
    g->mask = b - 1;
}

static inline void ghost_list_free(GhostList *g)
{
    g_free(g->id);
    g_free(g->prev);
    g_free(g->next);
    g_free(g->bucket);
}

static inline uint32_t ghost_hash(const GhostList *g, ContainerId id)
{
    return (uint32_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & g->mask;
}

/* The bucket holding id, or GHOST_NONE. */
static inline uint32_t ghost_find_bucket(const GhostList *g, ContainerId id)
{
    for (uint32_t b = ghost_hash(g, id);; b = (b + 1) & g->mask) {
        uint32_t n = g->bucket[b];
        if (n == GHOST_NONE)
            return GHOST_NONE;
        if (g->id[n] == id)
            return b;
    }
}

static inline gboolean ghost_list_contains(const GhostList *g, ContainerId id)
{
    return ghost_find_bucket(g, id) != GHOST_NONE;
}

/* Empty bucket b and shift later entries of its probe run back. */
static inline void ghost_clear_bucket(GhostList *g, uint32_t b)
{
    uint32_t hole = b;
    for (uint32_t j = (b + 1) & g->mask; g->bucket[j] != GHOST_NONE; j = (j + 1) & g->mask) {
        uint32_t home = ghost_hash(g, g->id[g->bucket[j]]);
        /* move j into the hole unless its home lies cyclically in (hole, j] */
        if (((j - home) & g->mask) >= ((j - hole) & g->mask)) {
            g->bucket[hole] = g->bucket[j];
            hole = j;
        }
    }
    g->bucket[hole] = GHOST_NONE;
}

static inline void ghost_unlink_node(GhostList *g, uint32_t n)
{
    if (g->prev[n] != GHOST_NONE)
        g->next[g->prev[n]] = g->next[n];
    else
        g->oldest = g->next[n];
    if (g->next[n] != GHOST_NONE)
        g->prev[g->next[n]] = g->prev[n];
    else
        g->newest = g->prev[n];
    g->next[n] = g->free_head;
    g->free_head = n;
    g->len--;
}

/* Take id out. FALSE if it was not there. */
static inline gboolean ghost_list_remove(GhostList *g, ContainerId id)
{
    uint32_t b = ghost_find_bucket(g, id);
    if (b == GHOST_NONE)
        return FALSE;
    uint32_t n = g->bucket[b];
    ghost_clear_bucket(g, b);
    ghost_unlink_node(g, n);
    return TRUE;
}

/* Drop the oldest id; returns it, or GHOST_NONE when empty. */
static inline uint32_t ghost_list_pop_oldest(GhostList *g)
{
    uint32_t n = g->oldest;
    if (n == GHOST_NONE)
        return GHOST_NONE;
    uint32_t id = g->id[n];
    ghost_clear_bucket(g, ghost_find_bucket(g, id));
    ghost_unlink_node(g, n);
    return id;
}

/* Add id (not already present) as the newest entry; when the pool is full
 * the oldest entry is dropped first. With max 0 nothing is kept. */
static inline void ghost_list_push(GhostList *g, ContainerId id)
{
    if (g->max == 0)
        return;
    if (g->len == g->max)
        ghost_list_pop_oldest(g);
    uint32_t n = g->free_head;
    g->free_head = g->next[n];
    g->id[n] = id;
    g->prev[n] = g->newest;
    g->next[n] = GHOST_NONE;
    if (g->newest != GHOST_NONE)
        g->next[g->newest] = n;
    else
        g->oldest = n;
    g->newest = n;
    g->len++;
    uint32_t b = ghost_hash(g, id);
    while (g->bucket[b] != GHOST_NONE)
        b = (b + 1) & g->mask;
    g->bucket[b] = n;
}

/* Drop oldest ids until at most `limit` remain. */
static inline void ghost_list_trim(GhostList *g, uint32_t limit)
{
    while (g->len > limit)
        ghost_list_pop_oldest(g);
}

#endif
