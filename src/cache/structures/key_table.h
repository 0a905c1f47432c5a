/* SPDX-License-Identifier: GPL-3.0-or-later */
/* key_table.h: an index from 64-bit keys (source addresses, chunk
 * identities) to small dense entry numbers, for the chunk policies'
 * metadata caches: an open_table.h over entry numbers; the keys live in
 * the caller's per-entry array, handed to every call (it may move when it
 * grows). */
#ifndef DESTOR_CACHE_KEY_TABLE_H
#define DESTOR_CACHE_KEY_TABLE_H

#include "cache/structures/open_table.h"

#include <glib.h>
#include <stdint.h>

#define KEY_TABLE_NONE OPEN_TABLE_NONE

typedef OpenTable KeyTable;

static inline uint64_t key_table_hash(uint64_t k)
{
    return ((k ^ (k >> 31)) * 0x9e3779b97f4a7c15ull) >> 32; /* the product's high half */
}

static inline uint64_t key_table_hash_of(const void *keys, uint32_t e)
{
    return key_table_hash(((const uint64_t *)keys)[e]);
}

static inline gboolean key_table_same(const void *keys, uint32_t e, const void *k)
{
    return ((const uint64_t *)keys)[e] == *(const uint64_t *)k;
}

static inline void key_table_init(KeyTable *t)
{
    open_table_init(t, 64, 50);
}

static inline void key_table_free(KeyTable *t)
{
    open_table_free(t);
}

static inline uint32_t key_table_get(const KeyTable *t, const uint64_t *keys, uint64_t k)
{
    return open_table_get(t, keys, key_table_hash(k), &k, key_table_same);
}

/* Add entry e (keys[e] not yet in the table). */
static inline void key_table_put(KeyTable *t, const uint64_t *keys, uint32_t e)
{
    open_table_put(t, keys, e, key_table_hash_of);
}

/* Remove entry e (in the table). */
static inline void key_table_remove(KeyTable *t, const uint64_t *keys, uint32_t e)
{
    open_table_remove(t, keys, e, key_table_hash_of);
}

static inline size_t key_table_bytes(const KeyTable *t)
{
    return open_table_bytes(t);
}

#endif
