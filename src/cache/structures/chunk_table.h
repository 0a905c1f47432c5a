/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_table.h: the chunk cache's index from fingerprint to slot, an
 * open_table.h over slot numbers; the fingerprints themselves live in the
 * core's per-slot array, which the table is handed at every call (it may
 * move when it grows). Bucket choice: the fingerprint's first 8 bytes (a
 * cryptographic digest: uniform), mixed. */
#ifndef DESTOR_CACHE_CHUNK_TABLE_H
#define DESTOR_CACHE_CHUNK_TABLE_H

#include "cache/structures/open_table.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define CHUNK_TABLE_EMPTY OPEN_TABLE_NONE

typedef OpenTable ChunkTable;

static inline uint64_t chunk_table_key(const Fingerprint *fp)
{
    uint64_t k;
    memcpy(&k, fp->bytes, sizeof k);
    return k;
}

static inline uint64_t chunk_table_hash(const Fingerprint *fp)
{
    uint64_t k = chunk_table_key(fp);
    return ((k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull) >> 32; /* the product's high half */
}

static inline uint64_t chunk_table_hash_of(const void *fps, uint32_t slot)
{
    return chunk_table_hash(&((const Fingerprint *)fps)[slot]);
}

static inline gboolean chunk_table_same(const void *fps, uint32_t slot, const void *fp)
{
    return memcmp(((const Fingerprint *)fps)[slot].bytes, ((const Fingerprint *)fp)->bytes, FP_SLOT) == 0;
}

static inline void chunk_table_init(ChunkTable *t)
{
    open_table_init(t, 64, 50);
}

static inline void chunk_table_free(ChunkTable *t)
{
    open_table_free(t);
}

/* The slot holding fp, or CHUNK_TABLE_EMPTY. */
static inline uint32_t chunk_table_get(const ChunkTable *t, const Fingerprint *fps, const Fingerprint *fp)
{
    return open_table_get(t, fps, chunk_table_hash(fp), fp, chunk_table_same);
}

/* Add slot (fps[slot] not yet in the table). */
static inline void chunk_table_put(ChunkTable *t, const Fingerprint *fps, uint32_t slot)
{
    open_table_put(t, fps, slot, chunk_table_hash_of);
}

/* Remove slot (fps[slot] in the table). */
static inline void chunk_table_remove(ChunkTable *t, const Fingerprint *fps, uint32_t slot)
{
    open_table_remove(t, fps, slot, chunk_table_hash_of);
}

static inline size_t chunk_table_bytes(const ChunkTable *t)
{
    return open_table_bytes(t);
}

#endif
