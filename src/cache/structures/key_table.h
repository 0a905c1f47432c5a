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

static inline uint64_t key_table_hash(const uint64_t *k)
{
    return ((*k ^ (*k >> 31)) * 0x9e3779b97f4a7c15ull) >> 32; /* the product's high half */
}

static inline gboolean key_table_equal(const uint64_t *a, const uint64_t *b)
{
    return *a == *b;
}

OPEN_TABLE_TYPED(key_table, uint64_t, key_table_hash, key_table_equal)

/* The entry of key k, or KEY_TABLE_NONE. */
static inline uint32_t key_table_get(const KeyTable *t, const uint64_t *keys, uint64_t k)
{
    return key_table_find(t, keys, &k);
}

#endif
