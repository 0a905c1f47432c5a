/* slot_map.h: which slot of the cache holds a container, for the cached
 * containers only, so that the core keeps nothing per stored container but
 * its access count (access_counts.h). An open-addressing hash table with
 * linear probing and backward-shift deletion (no tombstones: a lookup never
 * walks past the cluster it belongs to):
 *   size   the smallest power of two >= 2 x capacity, at least 4 (so the
 *          table is at most half full): 16 to 32 bytes a slot
 *   home   (id x 0x9E3779B1 mod 2^32) >> (32 - log2 size), Fibonacci hashing
 *   empty  an entry whose id is CACHE_NO_CONTAINER
 * Every operation is O(1) expected. */
#ifndef DESTOR_CACHE_SLOT_MAP_H
#define DESTOR_CACHE_SLOT_MAP_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

#define SLOT_MAP_EMPTY UINT32_MAX /* an id no store has (ids are below n_containers <= 2^32 - 1) */
#define SLOT_MAP_NONE UINT32_MAX  /* get(): not cached */

typedef struct {
    ContainerId id; /* SLOT_MAP_EMPTY: a free entry */
    uint32_t slot;
} SlotMapEntry;

typedef struct {
    SlotMapEntry *e;
    uint32_t mask;  /* size - 1 */
    unsigned shift; /* 32 - log2 size */
} SlotMap;

static inline void slot_map_init(SlotMap *m, uint32_t capacity)
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
}

static inline void slot_map_free(SlotMap *m)
{
    g_free(m->e);
    m->e = NULL;
}

static inline size_t slot_map_bytes(const SlotMap *m)
{
    return ((size_t)m->mask + 1) * sizeof(SlotMapEntry);
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

static inline uint32_t slot_map_get(const SlotMap *m, ContainerId id)
{
    uint32_t i = slot_map_find(m, id);
    return m->e[i].id == id ? m->e[i].slot : SLOT_MAP_NONE;
}

/* id -> slot; id must not be in the map, and the map must have fewer than
 * capacity entries. */
static inline void slot_map_put(SlotMap *m, ContainerId id, uint32_t slot)
{
    uint32_t i = slot_map_find(m, id);
    m->e[i].id = id;
    m->e[i].slot = slot;
}

/* Remove id (nothing if absent); the entries after it in its cluster that
 * may move back (their home is not between the hole and them) fill the hole. */
static inline void slot_map_remove(SlotMap *m, ContainerId id)
{
    uint32_t hole = slot_map_find(m, id);
    if (m->e[hole].id != id)
        return;
    for (uint32_t j = (hole + 1) & m->mask; m->e[j].id != SLOT_MAP_EMPTY; j = (j + 1) & m->mask) {
        uint32_t home = slot_map_home(m, m->e[j].id);
        if (((j - home) & m->mask) >= ((j - hole) & m->mask)) {
            m->e[hole] = m->e[j];
            hole = j;
        }
    }
    m->e[hole].id = SLOT_MAP_EMPTY;
}

#endif
