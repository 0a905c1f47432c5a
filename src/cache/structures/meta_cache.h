/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meta_cache.h: the metadata cache of the dedup-aware chunk policies
 * (CacheDedup's D-LRU and D-ARC, CDAC): source addresses, each naming the
 * chunk it holds, in a bounded set of entries. Entries are dense numbers
 * reused after removal; a policy keeps its own per-entry state (an LRU
 * position, CDAC's counters and bitmap) in arrays indexed by them, sized by
 * meta_cache_size(). Metadata only: no SSD bytes. */
#ifndef DESTOR_CACHE_META_CACHE_H
#define DESTOR_CACHE_META_CACHE_H

#include "cache/structures/key_table.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    uint64_t *address; /* per entry */
    uint64_t *chunk;   /* per entry: the chunk's identity (ChunkAccess.chunk) */
    uint32_t size;     /* entries the arrays hold */
    uint32_t taken;    /* entries ever used: each below it is live or free */
    uint32_t *free_entries;
    uint32_t n_free;
    uint32_t capacity; /* live entries at most (the policy keeps to it) */
    KeyTable table;    /* address -> entry */
} MetaCache;

/* A metadata cache's entries: `factor` per chunk of `avg_chunk` bytes in a
 * data cache of `capacity_bytes` (at least 1). */
static inline uint32_t meta_cache_entries(uint64_t capacity_bytes, uint32_t avg_chunk, double factor)
{
    double n = factor * (double)capacity_bytes / (double)(avg_chunk ? avg_chunk : 1);
    return n < 1 ? 1 : n > (double)(UINT32_MAX / 2) ? UINT32_MAX / 2 : (uint32_t)n;
}

static inline void meta_cache_init(MetaCache *m, uint32_t capacity)
{
    memset(m, 0, sizeof *m);
    m->capacity = capacity ? capacity : 1;
    key_table_init(&m->table);
}

static inline void meta_cache_free(MetaCache *m)
{
    g_free(m->address);
    g_free(m->chunk);
    g_free(m->free_entries);
    key_table_free(&m->table);
}

static inline uint32_t meta_cache_live(const MetaCache *m)
{
    return m->taken - m->n_free;
}

static inline gboolean meta_cache_full(const MetaCache *m)
{
    return meta_cache_live(m) >= m->capacity;
}

/* The entry of `address`, or KEY_TABLE_NONE. */
static inline uint32_t meta_cache_find(const MetaCache *m, uint64_t address)
{
    return key_table_get(&m->table, m->address, address);
}

/* Add `address` -> `chunk` (address not present); returns its entry. */
static inline uint32_t meta_cache_add(MetaCache *m, uint64_t address, uint64_t chunk)
{
    uint32_t e;
    if (m->n_free > 0) {
        e = m->free_entries[--m->n_free];
    } else {
        if (m->taken == m->size) {
            uint32_t n = m->size ? 2 * m->size : 256;
            m->address = g_renew(uint64_t, m->address, n);
            m->chunk = g_renew(uint64_t, m->chunk, n);
            m->free_entries = g_renew(uint32_t, m->free_entries, n);
            m->size = n;
        }
        e = m->taken++;
    }
    m->address[e] = address;
    m->chunk[e] = chunk;
    key_table_put(&m->table, m->address, e);
    return e;
}

static inline void meta_cache_remove(MetaCache *m, uint32_t e)
{
    key_table_remove(&m->table, m->address, e);
    m->free_entries[m->n_free++] = e;
}

static inline size_t meta_cache_bytes(const MetaCache *m)
{
    return (size_t)m->size * (2 * sizeof(uint64_t) + sizeof(uint32_t)) + key_table_bytes(&m->table);
}

#endif
