/* SPDX-License-Identifier: GPL-3.0-or-later */
/* open_table.h: the one open-addressing table of the cache's and the
 * indexes' tables from a key to a small dense entry number (chunk_table.h:
 * fingerprint -> slot; key_table.h: 64-bit key -> entry; slot_map.h:
 * container -> slot; ghost_list.h: container -> ghost node;
 * chunk_log_index.c and index/fp_table.c: fingerprint -> entry). Linear
 * probing over entry numbers, 4 bytes a bucket, at most `load` percent of
 * the buckets used (doubling past it), deletion by backward shift (no
 * tombstones). The keys live in the caller's per-entry array, handed to
 * every call (it may move when it grows); each table supplies the hash of
 * a key (a 64-bit mix whose low bits pick the home bucket) and the test of
 * a probed entry against the key sought. open_table_check() and the
 * cluster checks after each step hold the invariants (util/check.h). */
#ifndef DESTOR_CACHE_OPEN_TABLE_H
#define DESTOR_CACHE_OPEN_TABLE_H

#include "util/check.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define OPEN_TABLE_NONE UINT32_MAX

typedef struct {
    uint32_t *bucket; /* entry numbers, OPEN_TABLE_NONE where empty */
    uint32_t mask;    /* buckets - 1 */
    uint32_t used;
    uint32_t load;    /* at most this percent of the buckets used */
} OpenTable;

/* The hash of entry e's key in keys. */
typedef uint64_t (*OpenTableHashOf)(const void *keys, uint32_t e);
/* Does entry e's key in keys equal `key`? */
typedef gboolean (*OpenTableSame)(const void *keys, uint32_t e, const void *key);

/* Keys that are 32-bit ids in a uint32_t array (ghost lists, the slot
 * map): Fibonacci hashing, the high half of id x 2^64 / golden ratio. */
static inline uint64_t open_table_id_hash(uint32_t id)
{
    return ((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32;
}

static inline uint64_t open_table_id_hash_of(const void *ids, uint32_t e)
{
    return open_table_id_hash(((const uint32_t *)ids)[e]);
}

static inline gboolean open_table_id_same(const void *ids, uint32_t e, const void *id)
{
    return ((const uint32_t *)ids)[e] == *(const uint32_t *)id;
}

static inline uint32_t open_table_home(const OpenTable *t, uint64_t hash)
{
    return (uint32_t)hash & t->mask;
}

/* `buckets` (a power of two) to start with, at most `load` percent used. */
static inline void open_table_init(OpenTable *t, uint32_t buckets, uint32_t load)
{
    g_assert(buckets >= 2 && (buckets & (buckets - 1)) == 0 && load > 0 && load < 100);
    t->mask = buckets - 1;
    t->used = 0;
    t->load = load;
    t->bucket = g_new(uint32_t, buckets);
    memset(t->bucket, 0xff, (size_t)buckets * sizeof(uint32_t));
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

/* The bucket holding the entry whose key is `key`, or OPEN_TABLE_NONE. */
static inline uint32_t open_table_find(const OpenTable *t, const void *keys, uint64_t hash, const void *key,
                                       OpenTableSame same)
{
    for (uint32_t b = open_table_home(t, hash);; b = (b + 1) & t->mask) {
        uint32_t e = t->bucket[b];
        if (e == OPEN_TABLE_NONE)
            return OPEN_TABLE_NONE;
        if (same(keys, e, key))
            return b;
    }
}

/* Is every entry of the cluster (run of used buckets) holding bucket b, or
 * of the one after b when b is empty, reachable from its home without
 * crossing an empty bucket? O(the cluster). */
static inline gboolean open_table_cluster_ok(const OpenTable *t, const void *keys, uint32_t b,
                                             OpenTableHashOf hash_of)
{
    if (t->used == 0)
        return TRUE;
    uint32_t empty = b; /* the empty bucket before the cluster */
    while (t->bucket[empty] != OPEN_TABLE_NONE)
        empty = (empty - 1) & t->mask;
    for (uint32_t j = (empty + 1) & t->mask; t->bucket[j] != OPEN_TABLE_NONE; j = (j + 1) & t->mask)
        if (((j - open_table_home(t, hash_of(keys, t->bucket[j]))) & t->mask) >= ((j - empty) & t->mask))
            return FALSE;
    return TRUE;
}

/* The whole table: every entry reachable from its home, `used` of them,
 * within the load. O(the buckets). */
static inline gboolean open_table_check(const OpenTable *t, const void *keys, OpenTableHashOf hash_of)
{
    uint64_t n = 0, empty = 0;
    for (uint32_t b = 0; b <= t->mask; b++) {
        if (t->bucket[b] == OPEN_TABLE_NONE) {
            empty++;
            continue;
        }
        n++;
        if (t->bucket[(b - 1) & t->mask] == OPEN_TABLE_NONE && !open_table_cluster_ok(t, keys, b, hash_of))
            return FALSE; /* each cluster checked once, from its first bucket */
    }
    return n == t->used && empty > 0 && 100 * n <= (uint64_t)t->load * (t->mask + 1);
}

static inline uint32_t open_table_insert_raw(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    uint32_t b = open_table_home(t, hash_of(keys, e));
    while (t->bucket[b] != OPEN_TABLE_NONE)
        b = (b + 1) & t->mask;
    t->bucket[b] = e;
    return b;
}

/* Add entry e (its key not yet in the table), doubling the buckets first
 * when that would make more than `load` percent of them used. */
static inline void open_table_put(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    if (100 * (uint64_t)(t->used + 1) > (uint64_t)t->load * (t->mask + 1)) {
        uint32_t *old = t->bucket, n = t->mask + 1;
        g_assert(n <= UINT32_MAX / 2);
        t->mask = 2 * n - 1;
        t->bucket = g_new(uint32_t, 2 * (size_t)n);
        memset(t->bucket, 0xff, 2 * (size_t)n * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++)
            if (old[i] != OPEN_TABLE_NONE)
                open_table_insert_raw(t, keys, old[i], hash_of);
        g_free(old);
        DESTOR_CHECK(open_table_check(t, keys, hash_of));
    }
    uint32_t b = open_table_insert_raw(t, keys, e, hash_of);
    t->used++;
    DESTOR_CHECK(open_table_cluster_ok(t, keys, b, hash_of));
}

/* Empty bucket b (in use): later entries of its probe run move back into
 * the hole when their home is not cyclically in (hole, them]. */
static inline void open_table_remove_at(OpenTable *t, const void *keys, uint32_t b, OpenTableHashOf hash_of)
{
    uint32_t at = b;
    for (uint32_t j = (b + 1) & t->mask;; j = (j + 1) & t->mask) {
        uint32_t x = t->bucket[j];
        if (x == OPEN_TABLE_NONE)
            break;
        uint32_t h = open_table_home(t, hash_of(keys, x));
        if (((j - h) & t->mask) >= ((j - b) & t->mask)) {
            t->bucket[b] = x;
            b = j;
        }
    }
    t->bucket[b] = OPEN_TABLE_NONE;
    t->used--;
    DESTOR_CHECK(open_table_cluster_ok(t, keys, at, hash_of) && open_table_cluster_ok(t, keys, b, hash_of));
}

/* The bucket holding entry e (in the table). */
static inline uint32_t open_table_bucket_of(const OpenTable *t, const void *keys, uint32_t e,
                                            OpenTableHashOf hash_of)
{
    uint32_t b = open_table_home(t, hash_of(keys, e));
    while (t->bucket[b] != e) {
        g_assert(t->bucket[b] != OPEN_TABLE_NONE);
        b = (b + 1) & t->mask;
    }
    return b;
}

/* Remove entry e (in the table). */
static inline void open_table_remove(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    open_table_remove_at(t, keys, open_table_bucket_of(t, keys, e, hash_of), hash_of);
}

static inline size_t open_table_bytes(const OpenTable *t)
{
    return (size_t)(t->mask + 1) * sizeof(uint32_t);
}

/* OPEN_TABLE_TYPED(prefix, Key, hash, equal): the functions of a table
 * over an array of Key: prefix_init, _free, _find (the entry of a key, or
 * OPEN_TABLE_NONE), _put, _remove, _bytes and _check, for a hash(const Key
 * *) and an equal(const Key *, const Key *) of the table's own. */
#define OPEN_TABLE_TYPED(prefix, Key, hash, equal)                                                            \
    static inline uint64_t prefix##_hash_of(const void *keys, uint32_t e)                                   \
    {                                                                                                         \
        return hash(&((const Key *)keys)[e]);                                                                 \
    }                                                                                                         \
    static inline gboolean prefix##_same(const void *keys, uint32_t e, const void *key)                       \
    {                                                                                                         \
        return equal(&((const Key *)keys)[e], (const Key *)key);                                              \
    }                                                                                                         \
    static inline void prefix##_init(OpenTable *t)                                                            \
    {                                                                                                         \
        open_table_init(t, 64, 50);                                                                           \
    }                                                                                                         \
    static inline void prefix##_free(OpenTable *t)                                                            \
    {                                                                                                         \
        open_table_free(t);                                                                                   \
    }                                                                                                         \
    static inline uint32_t prefix##_find(const OpenTable *t, const Key *keys, const Key *key)                 \
    {                                                                                                         \
        return open_table_get(t, keys, hash(key), key, prefix##_same);                                        \
    }                                                                                                         \
    /* Add entry e (keys[e] not yet in the table). */                                                         \
    static inline void prefix##_put(OpenTable *t, const Key *keys, uint32_t e)                                \
    {                                                                                                         \
        open_table_put(t, keys, e, prefix##_hash_of);                                                         \
    }                                                                                                         \
    /* Remove entry e (in the table). */                                                                      \
    static inline void prefix##_remove(OpenTable *t, const Key *keys, uint32_t e)                             \
    {                                                                                                         \
        open_table_remove(t, keys, e, prefix##_hash_of);                                                      \
    }                                                                                                         \
    static inline size_t prefix##_bytes(const OpenTable *t)                                                   \
    {                                                                                                         \
        return open_table_bytes(t);                                                                           \
    }                                                                                                         \
    static inline gboolean prefix##_check(const OpenTable *t, const Key *keys)                                \
    {                                                                                                         \
        return open_table_check(t, keys, prefix##_hash_of);                                                   \
    }

#endif
