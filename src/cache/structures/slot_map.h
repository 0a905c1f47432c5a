/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_map.h: which slot of the cache holds a container, for the cached
 * containers only, so that the core keeps per stored container only its
 * access count (access_counts.h) and one bit here. The bit says whether
 * the container is cached at all, so a lookup of an uncached container (a
 * miss: most accesses) reads a bit of a small array, not the table. The
 * table: open addressing with linear probing and backward-shift deletion
 * (no tombstones: a lookup never walks past the cluster it belongs to):
 *   size   the smallest power of two >= 2 x capacity, at least 4 (so the
 *          table is at most half full): 16 to 32 bytes a slot
 *   home   (id x 0x9E3779B1 mod 2^32) >> (32 - log2 size), Fibonacci hashing
 *   empty  an entry whose id is SLOT_MAP_EMPTY (UINT32_MAX, as
 *          CACHE_NO_CONTAINER: no store has that id)
 * Every operation is O(1) expected. It keeps its entries inline (id and
 * slot) rather than being an open_table.h of slot numbers over the core's
 * ids: that one read more of memory per put and removal, and replayed
 * 10-20% slower in bench_cache_sim. slot_map_check() holds the invariants;
 * a checking build (util/check.h) checks each changed cluster. */
#ifndef DESTOR_CACHE_SLOT_MAP_H
#define DESTOR_CACHE_SLOT_MAP_H

#include "storage/container_source.h"
#include "util/check.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define SLOT_MAP_EMPTY UINT32_MAX /* an id no store has (ids are below n_containers <= 2^32 - 1) */
#define SLOT_MAP_NONE UINT32_MAX  /* get(): not cached */

typedef struct {
    ContainerId id; /* SLOT_MAP_EMPTY: a free entry */
    uint32_t slot;
} SlotMapEntry;

typedef struct {
    SlotMapEntry *e;
    uint32_t mask;     /* size - 1 */
    unsigned shift;    /* 32 - log2 size */
    uint64_t *present; /* n_containers bits: is the id in the table? */
    uint32_t n;        /* n_containers */
} SlotMap;

/* A map for ids below n_containers, at most `capacity` of them at once. */
static inline void slot_map_init(SlotMap *m, uint32_t capacity, uint32_t n_containers)
{
    uint64_t size = 4;
    unsigned bits = 2;
    while (size < 2 * (uint64_t)capacity) {
        size <<= 1;
        bits++;
    }
    m->e = g_new(SlotMapEntry, size);
    for (uint64_t i = 0; i < size; i++)
        m->e[i].id = SLOT_MAP_EMPTY;
    m->mask = (uint32_t)(size - 1);
    m->shift = 32 - bits;
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
    g_free(m->e);
    g_free(m->present);
    m->e = NULL;
    m->present = NULL;
}

/* Bytes of the table (sized by the cache) and of the bits (by the store). */
static inline size_t slot_map_bytes(const SlotMap *m)
{
    return ((size_t)m->mask + 1) * sizeof(SlotMapEntry);
}

static inline size_t slot_map_bit_bytes(const SlotMap *m)
{
    return ((size_t)m->n / 64 + 1) * sizeof(uint64_t);
}

static inline gboolean slot_map_present(const SlotMap *m, ContainerId id)
{
    return (m->present[id / 64] >> (id % 64) & 1) != 0;
}

static inline uint32_t slot_map_home(const SlotMap *m, ContainerId id)
{
    return (uint32_t)(id * 0x9E3779B1u) >> m->shift;
}

/* The entry of id, or the empty entry where it would go. */
static inline uint32_t slot_map_find(const SlotMap *m, ContainerId id)
{
    uint32_t i = slot_map_home(m, id);
    while (m->e[i].id != id && m->e[i].id != SLOT_MAP_EMPTY)
        i = (i + 1) & m->mask;
    return i;
}

/* Is every entry of the cluster holding entry i (of the one after i when
 * it is empty) reachable from its home without crossing an empty entry?
 * O(the cluster). */
static inline gboolean slot_map_cluster_ok(const SlotMap *m, uint32_t i)
{
    uint32_t empty = i;
    for (uint32_t n = 0; m->e[empty].id != SLOT_MAP_EMPTY; n++, empty = (empty - 1) & m->mask)
        if (n > m->mask)
            return FALSE; /* no empty entry at all */
    for (uint32_t j = (empty + 1) & m->mask; m->e[j].id != SLOT_MAP_EMPTY; j = (j + 1) & m->mask)
        if (((j - slot_map_home(m, m->e[j].id)) & m->mask) >= ((j - empty) & m->mask))
            return FALSE;
    return TRUE;
}

/* The whole map: every entry reachable from its home, with its present
 * bit, one bit per entry. O(table + n_containers / 64). */
static inline gboolean slot_map_check(const SlotMap *m)
{
    uint64_t entries = 0, bits = 0;
    for (uint32_t i = 0; i <= m->mask; i++) {
        ContainerId id = m->e[i].id;
        if (id == SLOT_MAP_EMPTY)
            continue;
        entries++;
        if (id >= m->n || !slot_map_present(m, id) ||
            (m->e[(i - 1) & m->mask].id == SLOT_MAP_EMPTY && !slot_map_cluster_ok(m, i)))
            return FALSE;
    }
    for (size_t w = 0; w <= m->n / 64; w++)
        bits += (uint64_t)__builtin_popcountll(m->present[w]);
    return bits == entries && entries <= m->mask / 2 + 1;
}

static inline uint32_t slot_map_get(const SlotMap *m, ContainerId id)
{
    if (!slot_map_present(m, id))
        return SLOT_MAP_NONE;
    uint32_t i = slot_map_find(m, id);
    return m->e[i].id == id ? m->e[i].slot : SLOT_MAP_NONE;
}

/* id -> slot; id (below n_containers) must not be in the map, and the map
 * must have fewer than capacity entries. */
static inline void slot_map_put(SlotMap *m, ContainerId id, uint32_t slot)
{
    uint32_t i = slot_map_find(m, id);
    m->e[i].id = id;
    m->e[i].slot = slot;
    m->present[id / 64] |= 1ull << (id % 64);
    DESTOR_CHECK(slot_map_cluster_ok(m, i));
}

/* Remove id (nothing if absent); the entries after it in its cluster that
 * may move back (their home is not between the hole and them) fill the hole. */
static inline void slot_map_remove(SlotMap *m, ContainerId id)
{
    if (!slot_map_present(m, id))
        return;
    m->present[id / 64] &= ~(1ull << (id % 64));
    uint32_t hole = slot_map_find(m, id);
    for (uint32_t j = (hole + 1) & m->mask; m->e[j].id != SLOT_MAP_EMPTY; j = (j + 1) & m->mask) {
        uint32_t home = slot_map_home(m, m->e[j].id);
        if (((j - home) & m->mask) >= ((j - hole) & m->mask)) {
            m->e[hole] = m->e[j];
            hole = j;
        }
    }
    m->e[hole].id = SLOT_MAP_EMPTY;
    DESTOR_CHECK(slot_map_cluster_ok(m, hole) && slot_map_cluster_ok(m, (hole - 1) & m->mask));
}

#endif
