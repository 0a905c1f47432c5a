/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_map.h: which slot of the cache holds a container, for the cached
 * containers only, so that the core keeps per stored container only its
 * access count (access_counts.h) and one bit here. The bit says whether
 * the container is cached at all, so a lookup of an uncached container (a
 * miss: most accesses) reads a bit of a small array, not the table. The
 * table is an open_table.h table of ids (id -> slot, 8 bytes a bucket, the
 * smallest power of two >= 2 x capacity of them, at least 4, so it is at
 * most half full and never grows: 16 to 32 bytes a slot). Every operation
 * is O(1) expected. slot_map_check() holds the invariants (a checking
 * build, util/check.h, runs it on a restored cache and checks each
 * changed cluster and entry). */
#ifndef DESTOR_CACHE_SLOT_MAP_H
#define DESTOR_CACHE_SLOT_MAP_H

#include "cache/structures/open_table.h"
#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define SLOT_MAP_NONE OPEN_TABLE_NONE /* get(): not cached */

typedef struct {
    OpenTable table;   /* id -> slot */
    uint64_t *present; /* n_containers bits: is the id in the table? */
    uint32_t n;        /* n_containers */
} SlotMap;

/* A map for ids below n_containers, at most `capacity` of them at once. */
static inline void slot_map_init(SlotMap *m, uint32_t capacity, uint32_t n_containers)
{
    open_table_id_init(&m->table, capacity);
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
    open_table_free(&m->table);
    g_free(m->present);
    m->present = NULL;
}

/* Bytes of the table (sized by the cache) and of the bits (by the store). */
static inline size_t slot_map_bytes(const SlotMap *m)
{
    return open_table_bytes(&m->table);
}

static inline size_t slot_map_bit_bytes(const SlotMap *m)
{
    return ((size_t)m->n / 64 + 1) * sizeof(uint64_t);
}

static inline gboolean slot_map_present(const SlotMap *m, ContainerId id)
{
    return (m->present[id / 64] >> (id % 64) & 1) != 0;
}

/* The whole map: the table's invariants, and each of its ids below
 * n_containers with its present bit, one bit per id. O(table +
 * n_containers / 64). */
static inline gboolean slot_map_check(const SlotMap *m)
{
    uint64_t bits = 0;
    if (!open_table_id_check(&m->table))
        return FALSE;
    for (uint32_t b = 0; b <= m->table.mask; b++) {
        if (open_table_entry(&m->table, b) == OPEN_TABLE_NONE)
            continue;
        ContainerId id = open_table_id_at(&m->table, b);
        if (id >= m->n || !slot_map_present(m, id))
            return FALSE;
    }
    for (size_t w = 0; w <= m->n / 64; w++)
        bits += (uint64_t)__builtin_popcountll(m->present[w]);
    return bits == m->table.used;
}

static inline uint32_t slot_map_get(const SlotMap *m, ContainerId id)
{
    if (!slot_map_present(m, id))
        return SLOT_MAP_NONE;
    return open_table_id_get(&m->table, id);
}

/* id -> slot; id (below n_containers) must not be in the map, and the map
 * must have fewer than capacity entries. */
static inline void slot_map_put(SlotMap *m, ContainerId id, uint32_t slot)
{
    open_table_id_put(&m->table, slot, id);
    m->present[id / 64] |= 1ull << (id % 64);
    DESTOR_CHECK(id < m->n && open_table_id_get(&m->table, id) == slot);
}

/* Remove id (nothing if absent). */
static inline void slot_map_remove(SlotMap *m, ContainerId id)
{
    if (!slot_map_present(m, id))
        return;
    m->present[id / 64] &= ~(1ull << (id % 64));
    open_table_id_remove_at(&m->table, open_table_id_find(&m->table, id));
    DESTOR_CHECK(open_table_id_find(&m->table, id) == OPEN_TABLE_NONE);
}

#endif
