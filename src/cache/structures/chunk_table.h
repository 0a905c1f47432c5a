/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_table.h: the chunk cache's index from fingerprint to slot. Open
 * addressing with linear probing over slot numbers (4 bytes a bucket, at
 * most half the buckets used, deletion by backward shift, so no tombstones);
 * the fingerprints themselves live in the core's per-slot array, which the
 * table is handed at every call (it may move when it grows). Bucket choice:
 * the fingerprint's first 8 bytes (a cryptographic digest: uniform). */
#ifndef DESTOR_CACHE_CHUNK_TABLE_H
#define DESTOR_CACHE_CHUNK_TABLE_H

#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define CHUNK_TABLE_EMPTY UINT32_MAX

typedef struct {
    uint32_t *bucket;
    uint32_t mask; /* buckets - 1 */
    uint32_t used;
} ChunkTable;

static inline uint64_t chunk_table_key(const Fingerprint *fp)
{
    uint64_t k;
    memcpy(&k, fp->bytes, sizeof k);
    return k;
}

static inline uint32_t chunk_table_home(const ChunkTable *t, const Fingerprint *fp)
{
    uint64_t k = chunk_table_key(fp);
    return (uint32_t)((k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull >> 32) & t->mask;
}

static inline void chunk_table_init(ChunkTable *t)
{
    t->mask = 63;
    t->used = 0;
    t->bucket = g_new(uint32_t, t->mask + 1);
    memset(t->bucket, 0xff, (size_t)(t->mask + 1) * sizeof(uint32_t));
}

static inline void chunk_table_free(ChunkTable *t)
{
    g_free(t->bucket);
    t->bucket = NULL;
}

/* The slot holding fp, or CHUNK_TABLE_EMPTY. */
static inline uint32_t chunk_table_get(const ChunkTable *t, const Fingerprint *fps, const Fingerprint *fp)
{
    for (uint32_t b = chunk_table_home(t, fp);; b = (b + 1) & t->mask) {
        uint32_t s = t->bucket[b];
        if (s == CHUNK_TABLE_EMPTY)
            return s;
        if (memcmp(fps[s].bytes, fp->bytes, FP_SLOT) == 0)
            return s;
    }
}

static inline void chunk_table_insert_raw(ChunkTable *t, const Fingerprint *fps, uint32_t slot)
{
    uint32_t b = chunk_table_home(t, &fps[slot]);
    while (t->bucket[b] != CHUNK_TABLE_EMPTY)
        b = (b + 1) & t->mask;
    t->bucket[b] = slot;
}

/* Add slot (fps[slot] not yet in the table). */
static inline void chunk_table_put(ChunkTable *t, const Fingerprint *fps, uint32_t slot)
{
    if (2 * (uint64_t)(t->used + 1) > (uint64_t)t->mask + 1) {
        uint32_t *old = t->bucket, n = t->mask + 1;
        t->mask = 2 * n - 1;
        t->bucket = g_new(uint32_t, 2 * (size_t)n);
        memset(t->bucket, 0xff, 2 * (size_t)n * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++)
            if (old[i] != CHUNK_TABLE_EMPTY)
                chunk_table_insert_raw(t, fps, old[i]);
        g_free(old);
    }
    chunk_table_insert_raw(t, fps, slot);
    t->used++;
}

/* Remove slot (fps[slot] in the table). */
static inline void chunk_table_remove(ChunkTable *t, const Fingerprint *fps, uint32_t slot)
{
    uint32_t b = chunk_table_home(t, &fps[slot]);
    while (t->bucket[b] != slot) {
        g_assert(t->bucket[b] != CHUNK_TABLE_EMPTY);
        b = (b + 1) & t->mask;
    }
    /* backward shift: move later entries of the probe run into the hole */
    for (uint32_t j = (b + 1) & t->mask;; j = (j + 1) & t->mask) {
        uint32_t s = t->bucket[j];
        if (s == CHUNK_TABLE_EMPTY)
            break;
        uint32_t h = chunk_table_home(t, &fps[s]);
        /* s may fill the hole at b if its home is not in (b, j] cyclically */
        if (((j - h) & t->mask) >= ((j - b) & t->mask)) {
            t->bucket[b] = s;
            b = j;
        }
    }
    t->bucket[b] = CHUNK_TABLE_EMPTY;
    t->used--;
}

static inline size_t chunk_table_bytes(const ChunkTable *t)
{
    return (size_t)(t->mask + 1) * sizeof(uint32_t);
}

#endif
