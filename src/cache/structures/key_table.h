/* SPDX-License-Identifier: GPL-3.0-or-later */
/* key_table.h: an index from 64-bit keys (source addresses, chunk
 * identities) to small dense entry numbers, for the chunk policies'
 * metadata caches. Open addressing with linear probing over entry numbers
 * (4 bytes a bucket, at most half used, deletion by backward shift); the
 * keys live in the caller's per-entry array, handed to every call (it may
 * move when it grows). */
#ifndef DESTOR_CACHE_KEY_TABLE_H
#define DESTOR_CACHE_KEY_TABLE_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define KEY_TABLE_NONE UINT32_MAX

typedef struct {
    uint32_t *bucket;
    uint32_t mask;
    uint32_t used;
} KeyTable;

static inline uint32_t key_table_home(const KeyTable *t, uint64_t k)
{
    return (uint32_t)(((k ^ (k >> 31)) * 0x9e3779b97f4a7c15ull) >> 32) & t->mask;
}

static inline void key_table_init(KeyTable *t)
{
    t->mask = 63;
    t->used = 0;
    t->bucket = g_new(uint32_t, 64);
    memset(t->bucket, 0xff, 64 * sizeof(uint32_t));
}

static inline void key_table_free(KeyTable *t)
{
    g_free(t->bucket);
    t->bucket = NULL;
}

static inline uint32_t key_table_get(const KeyTable *t, const uint64_t *keys, uint64_t k)
{
    for (uint32_t b = key_table_home(t, k);; b = (b + 1) & t->mask) {
        uint32_t e = t->bucket[b];
        if (e == KEY_TABLE_NONE || keys[e] == k)
            return e;
    }
}

static inline void key_table_insert_raw(KeyTable *t, const uint64_t *keys, uint32_t e)
{
    uint32_t b = key_table_home(t, keys[e]);
    while (t->bucket[b] != KEY_TABLE_NONE)
        b = (b + 1) & t->mask;
    t->bucket[b] = e;
}

/* Add entry e (keys[e] not yet in the table). */
static inline void key_table_put(KeyTable *t, const uint64_t *keys, uint32_t e)
{
    if (2 * (uint64_t)(t->used + 1) > (uint64_t)t->mask + 1) {
        uint32_t *old = t->bucket, n = t->mask + 1;
        t->mask = 2 * n - 1;
        t->bucket = g_new(uint32_t, 2 * (size_t)n);
        memset(t->bucket, 0xff, 2 * (size_t)n * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++)
            if (old[i] != KEY_TABLE_NONE)
                key_table_insert_raw(t, keys, old[i]);
        g_free(old);
    }
    key_table_insert_raw(t, keys, e);
    t->used++;
}

/* Remove entry e (in the table). */
static inline void key_table_remove(KeyTable *t, const uint64_t *keys, uint32_t e)
{
    uint32_t b = key_table_home(t, keys[e]);
    while (t->bucket[b] != e) {
        g_assert(t->bucket[b] != KEY_TABLE_NONE);
        b = (b + 1) & t->mask;
    }
    for (uint32_t j = (b + 1) & t->mask;; j = (j + 1) & t->mask) {
        uint32_t x = t->bucket[j];
        if (x == KEY_TABLE_NONE)
            break;
        uint32_t h = key_table_home(t, keys[x]);
        if (((j - h) & t->mask) >= ((j - b) & t->mask)) {
            t->bucket[b] = x;
            b = j;
        }
    }
    t->bucket[b] = KEY_TABLE_NONE;
    t->used--;
}

static inline size_t key_table_bytes(const KeyTable *t)
{
    return (size_t)(t->mask + 1) * sizeof(uint32_t);
}

#endif
