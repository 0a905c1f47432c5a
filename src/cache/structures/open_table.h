/* SPDX-License-Identifier: GPL-3.0-or-later */
/* open_table.h: the one open-addressing table of the cache's indexes from
 * a key to a small dense entry number (chunk_table.h: fingerprint -> slot;
 * key_table.h: 64-bit key -> entry). Linear probing over entry numbers,
 * 4 bytes a bucket, at most half the buckets used, deletion by backward
 * shift (no tombstones). The keys live in the caller's per-entry array,
 * handed to every call (it may move when it grows); each index supplies
 * the hash of a key (a 64-bit mix: its high half picks the home bucket)
 * and the test of a probed entry against the key sought. */
#ifndef DESTOR_CACHE_OPEN_TABLE_H
#define DESTOR_CACHE_OPEN_TABLE_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define OPEN_TABLE_NONE UINT32_MAX

typedef struct {
    uint32_t *bucket; /* entry numbers, OPEN_TABLE_NONE where empty */
    uint32_t mask;    /* buckets - 1 */
    uint32_t used;
} OpenTable;

/* The hash of entry e's key in keys. */
typedef uint64_t (*OpenTableHashOf)(const void *keys, uint32_t e);
/* Does entry e's key in keys equal `key`? */
typedef gboolean (*OpenTableSame)(const void *keys, uint32_t e, const void *key);

static inline uint32_t open_table_home(const OpenTable *t, uint64_t hash)
{
    return (uint32_t)(hash >> 32) & t->mask;
}

static inline void open_table_init(OpenTable *t)
{
    t->mask = 63;
    t->used = 0;
    t->bucket = g_new(uint32_t, t->mask + 1);
    memset(t->bucket, 0xff, (size_t)(t->mask + 1) * sizeof(uint32_t));
}

static inline void open_table_free(OpenTable *t)
{
    g_free(t->bucket);
    t->bucket = NULL;
}

/* The entry whose key is `key` (of hash `hash`), or OPEN_TABLE_NONE. */
static inline uint32_t open_table_get(const OpenTable *t, const void *keys, uint64_t hash, const void *key,
                                      OpenTableSame same)
{
    for (uint32_t b = open_table_home(t, hash);; b = (b + 1) & t->mask) {
        uint32_t e = t->bucket[b];
        if (e == OPEN_TABLE_NONE || same(keys, e, key))
            return e;
    }
}

static inline void open_table_insert_raw(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    uint32_t b = open_table_home(t, hash_of(keys, e));
    while (t->bucket[b] != OPEN_TABLE_NONE)
        b = (b + 1) & t->mask;
    t->bucket[b] = e;
}

/* Add entry e (its key not yet in the table), doubling the buckets first
 * when that would make more than half of them used. */
static inline void open_table_put(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    if (2 * (uint64_t)(t->used + 1) > (uint64_t)t->mask + 1) {
        uint32_t *old = t->bucket, n = t->mask + 1;
        t->mask = 2 * n - 1;
        t->bucket = g_new(uint32_t, 2 * (size_t)n);
        memset(t->bucket, 0xff, 2 * (size_t)n * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++)
            if (old[i] != OPEN_TABLE_NONE)
                open_table_insert_raw(t, keys, old[i], hash_of);
        g_free(old);
    }
    open_table_insert_raw(t, keys, e, hash_of);
    t->used++;
}

/* Remove entry e (in the table). */
static inline void open_table_remove(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    uint32_t b = open_table_home(t, hash_of(keys, e));
    while (t->bucket[b] != e) {
        g_assert(t->bucket[b] != OPEN_TABLE_NONE);
        b = (b + 1) & t->mask;
    }
    /* backward shift: move later entries of the probe run into the hole */
    for (uint32_t j = (b + 1) & t->mask;; j = (j + 1) & t->mask) {
        uint32_t x = t->bucket[j];
        if (x == OPEN_TABLE_NONE)
            break;
        uint32_t h = open_table_home(t, hash_of(keys, x));
        /* x may fill the hole at b if its home is not in (b, j] cyclically */
        if (((j - h) & t->mask) >= ((j - b) & t->mask)) {
            t->bucket[b] = x;
            b = j;
        }
    }
    t->bucket[b] = OPEN_TABLE_NONE;
    t->used--;
}

static inline size_t open_table_bytes(const OpenTable *t)
{
    return (size_t)(t->mask + 1) * sizeof(uint32_t);
}

#endif
