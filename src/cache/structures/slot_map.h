/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_map.h: which slot of the cache holds a container, for the cached
 * containers only, so that the core keeps per stored container only its
 * access count (access_counts.h) and one bit here. The bit says whether
 * the container is cached at all, so a lookup of an uncached container (a
 * miss: most accesses) reads a bit of a small array, not the table. The
 * table: an open_table.h over slot numbers, its keys the core's per-slot
 * container ids (handed to every call), sized at the smallest power of two
 * >= 2 x capacity, at least 4 (so at most half full and never grown): 8 to
 * 16 bytes a slot. Every operation is O(1) expected. */
#ifndef DESTOR_CACHE_SLOT_MAP_H
#define DESTOR_CACHE_SLOT_MAP_H

#include "cache/structures/open_table.h"
#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define SLOT_MAP_NONE OPEN_TABLE_NONE /* get(): not cached */

typedef struct {
    OpenTable index;   /* id -> slot, over the per-slot ids */
    uint64_t *present; /* n_containers bits: is the id in the table? */
    uint32_t n;        /* n_containers */
} SlotMap;

/* A map for ids below n_containers, at most `capacity` of them at once. */
static inline void slot_map_init(SlotMap *m, uint32_t capacity, uint32_t n_containers)
{
    uint64_t size = 4;
    while (size < 2 * (uint64_t)capacity)
        size <<= 1;
    g_assert(size <= UINT32_MAX);
    open_table_init(&m->index, (uint32_t)size, 50);
    m->n = n_containers;
    m->present = g_new0(uint64_t, n_containers / 64 + 1);
}

/* Ids below n_containers (more than m->n) from now on. */
static inline void slot_map_grow(SlotMap *m, uint32_t n_containers)
{
    g_assert(n_containers >= m->n);
    size_t was = m->n / 64 + 1, words = n_containers / 64 + 1;
    m->present = g_renew(uint64_t, m->present, words);
    memset(m->present + was, 0, (words - was) * sizeof *m->present);
    m->n = n_containers;
}

static inline void slot_map_free(SlotMap *m)
{
    open_table_free(&m->index);
    g_free(m->present);
    m->present = NULL;
}

/* Bytes of the table (sized by the cache) and of the bits (by the store). */
static inline size_t slot_map_bytes(const SlotMap *m)
{
    return open_table_bytes(&m->index);
}

static inline size_t slot_map_bit_bytes(const SlotMap *m)
{
    return ((size_t)m->n / 64 + 1) * sizeof(uint64_t);
}

static inline gboolean slot_map_present(const SlotMap *m, ContainerId id)
{
    return (m->present[id / 64] >> (id % 64) & 1) != 0;
}

/* The slot of id (ids: the container of each slot), or SLOT_MAP_NONE. */
static inline uint32_t slot_map_get(const SlotMap *m, const ContainerId *ids, ContainerId id)
{
    if (!slot_map_present(m, id))
        return SLOT_MAP_NONE;
    return open_table_get(&m->index, ids, open_table_id_hash(id), &id, open_table_id_same);
}

/* ids[slot] -> slot: that id (below n_containers) must not be in the map,
 * and the map must have fewer than capacity entries. */
static inline void slot_map_put(SlotMap *m, const ContainerId *ids, uint32_t slot)
{
    ContainerId id = ids[slot];
    g_assert(id < m->n && !slot_map_present(m, id));
    m->present[id / 64] |= 1ull << (id % 64);
    open_table_put(&m->index, ids, slot, open_table_id_hash_of);
}

/* Take slot (in the map, under ids[slot]) out. */
static inline void slot_map_remove(SlotMap *m, const ContainerId *ids, uint32_t slot)
{
    ContainerId id = ids[slot];
    g_assert(slot_map_present(m, id));
    m->present[id / 64] &= ~(1ull << (id % 64));
    open_table_remove(&m->index, ids, slot, open_table_id_hash_of);
}

/* The whole map: the table's invariants, one present bit per entry, each
 * entry found under its id. O(capacity + n_containers / 64). */
static inline gboolean slot_map_check(const SlotMap *m, const ContainerId *ids)
{
    uint64_t bits = 0;
    for (size_t w = 0; w <= m->n / 64; w++)
        bits += (uint64_t)__builtin_popcountll(m->present[w]);
    if (bits != m->index.used || !open_table_check(&m->index, ids, open_table_id_hash_of))
        return FALSE;
    for (uint32_t b = 0; b <= m->index.mask; b++) {
        uint32_t s = m->index.bucket[b];
        if (s != OPEN_TABLE_NONE && (ids[s] >= m->n || !slot_map_present(m, ids[s]) || slot_map_get(m, ids, ids[s]) != s))
            return FALSE;
    }
    return TRUE;
}

#endif
