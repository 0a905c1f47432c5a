/* SPDX-License-Identifier: GPL-3.0-or-later */
/* open_table.h: the one open-addressing table of the cache's and the
 * indexes' tables from a key to a small dense entry number (chunk_table.h:
 * fingerprint -> slot; key_table.h: 64-bit key -> entry; ghost_list.h:
 * container -> ghost node; slot_map.h: container -> slot (an id table,
 * below); chunk_log_index.c and index/fp_table.c: fingerprint -> entry). Linear
 * probing over entry numbers, 4 bytes a bucket (8 where each bucket keeps
 * its entry's hash as a tag), at most `load` percent of the buckets used
 * (doubling past it), deletion by backward shift (no tombstones). The keys
 * live in the caller's per-entry array, handed to every call (it may move
 * when it grows); each table supplies the hash of a key (a 64-bit mix whose
 * low bits pick the home bucket) and the test of a probed entry against
 * the key sought. open_table_check() and the cluster checks after each
 * step hold the invariants (util/check.h). */
#ifndef DESTOR_CACHE_OPEN_TABLE_H
#define DESTOR_CACHE_OPEN_TABLE_H

#include "util/check.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define OPEN_TABLE_NONE UINT32_MAX

typedef struct {
    uint32_t *bucket; /* per bucket its entry number (OPEN_TABLE_NONE where
                         empty) and, when `wide`, the entry's hash (low 32
                         bits) beside it, so a probe and a move read no key */
    uint16_t wide;    /* 1: tagged buckets (8 bytes), 0: entry numbers only */
    uint16_t load;    /* at most this percent of the buckets used */
    uint32_t mask;    /* buckets - 1 */
    uint32_t used;
    uint32_t limit;   /* so at most this many: load percent of the buckets,
                         rounded down (a put past it doubles them) */
} OpenTable;

/* The hash of entry e's key in keys. */
typedef uint64_t (*OpenTableHashOf)(const void *keys, uint32_t e);
/* Does entry e's key in keys equal `key`? */
typedef gboolean (*OpenTableSame)(const void *keys, uint32_t e, const void *key);

/* Keys that are 32-bit ids in a uint32_t array (ghost lists, the slot
 * map): Fibonacci hashing (the id times 2^32 over the golden ratio, an odd
 * number, so a bijection of the 32 bits) with the product's high half
 * folded into its low half (x ^= x >> 15, also a bijection), so that the
 * home's low bits depend on the id's high bits too. One multiply: the
 * slot map hashes at every put and removal. */
static inline uint64_t open_table_id_hash(uint32_t id)
{
    id *= 0x9e3779b1u;
    id ^= id >> 15;
    return id;
}

static inline uint64_t open_table_id_hash_of(const void *ids, uint32_t e)
{
    return open_table_id_hash(((const uint32_t *)ids)[e]);
}

static inline gboolean open_table_id_same(const void *ids, uint32_t e, const void *id)
{
    return ((const uint32_t *)ids)[e] == *(const uint32_t *)id;
}

/* The id whose hash is `hash`: the fold undone (x ^= x >> 15 twice more
 * reaches every bit), then the multiply (0x0e8b2f51 is 0x9e3779b1's
 * inverse mod 2^32). */
static inline uint32_t open_table_id_unhash(uint32_t hash)
{
    hash ^= (hash >> 15) ^ (hash >> 30);
    hash *= 0x0e8b2f51u;
    return hash;
}

static inline uint32_t open_table_home(const OpenTable *t, uint64_t hash)
{
    return (uint32_t)hash & t->mask;
}

/* The functions whose names end in _w take the table's layout (`wide`) as
 * an argument: the public ones pass t->wide, the id tables' (below) a
 * constant 1, so that the slot map's inlined probes, puts and removals
 * shift by a constant and test no layout. Always inlined, for that. */
#define OPEN_TABLE_W static inline __attribute__((always_inline))

/* Bucket b's entry (OPEN_TABLE_NONE: empty), and its tag (wide tables). */
OPEN_TABLE_W uint32_t open_table_entry_w(const OpenTable *t, uint32_t b, uint32_t wide)
{
    return t->bucket[(size_t)b << wide];
}

static inline uint32_t open_table_entry(const OpenTable *t, uint32_t b)
{
    return open_table_entry_w(t, b, t->wide);
}

static inline uint32_t open_table_tag(const OpenTable *t, uint32_t b)
{
    return t->bucket[((size_t)b << t->wide) + 1];
}

OPEN_TABLE_W void open_table_set_w(OpenTable *t, uint32_t b, uint32_t e, uint32_t tag, uint32_t wide)
{
    t->bucket[(size_t)b << wide] = e;
    if (wide)
        t->bucket[((size_t)b << 1) + 1] = tag;
}

static inline void open_table_set(OpenTable *t, uint32_t b, uint32_t e, uint32_t tag)
{
    open_table_set_w(t, b, e, tag, t->wide);
}

/* n empty buckets. */
static inline uint32_t *open_table_buckets(const OpenTable *t, size_t n)
{
    uint32_t *b = g_new(uint32_t, n << t->wide);
    memset(b, 0xff, (n << t->wide) * sizeof(uint32_t));
    return b;
}

/* What a bucket keeps beside its entry number: nothing (keys are read to
 * compare and to move entries), or the entry's hash as a tag (4 bytes a
 * bucket more: a probe reads the key only on a tag match, a move never). */
typedef enum { OPEN_TABLE_UNTAGGED, OPEN_TABLE_TAGGED } OpenTableTags;

/* `buckets` (a power of two) to start with, at most `load` percent used. */
static inline void open_table_init(OpenTable *t, uint32_t buckets, uint32_t load, OpenTableTags tags)
{
    g_assert(buckets >= 2 && (buckets & (buckets - 1)) == 0 && load > 0 && load < 100);
    t->mask = buckets - 1;
    t->used = 0;
    t->load = (uint16_t)load;
    t->limit = (uint32_t)((uint64_t)load * buckets / 100);
    t->wide = tags == OPEN_TABLE_TAGGED;
    t->bucket = open_table_buckets(t, buckets);
}

/* Tables that never grow (the slot map, the ghost lists) are made for at
 * most `max` entries: the smallest power of two >= 2 max buckets, at least
 * 4, so at most half of them are used. A put into one
 * (open_table_put_room) does no grow test: the caller keeps at most max
 * entries (a checking build checks). */
static inline uint32_t open_table_buckets_for(uint32_t max)
{
    uint32_t b = 4;
    while (b < 2 * (uint64_t)max)
        b <<= 1;
    return b;
}

static inline void open_table_init_for(OpenTable *t, uint32_t max, OpenTableTags tags)
{
    open_table_init(t, open_table_buckets_for(max), 50, tags);
}

static inline void open_table_free(OpenTable *t)
{
    g_free(t->bucket);
    t->bucket = NULL;
}

/* The hash (its low 32 bits are enough for a home) of bucket b's entry. */
OPEN_TABLE_W uint64_t open_table_hash_at_w(const OpenTable *t, const void *keys, uint32_t b, OpenTableHashOf hash_of,
                                           uint32_t wide)
{
    return wide ? t->bucket[((size_t)b << 1) + 1] : hash_of(keys, open_table_entry_w(t, b, 0));
}

static inline uint64_t open_table_hash_at(const OpenTable *t, const void *keys, uint32_t b, OpenTableHashOf hash_of)
{
    return open_table_hash_at_w(t, keys, b, hash_of, t->wide);
}

/* The bucket holding the entry whose key is `key` (of hash `hash`), or
 * OPEN_TABLE_NONE. */
OPEN_TABLE_W uint32_t open_table_find_w(const OpenTable *t, const void *keys, uint64_t hash, const void *key,
                                        OpenTableSame same, uint32_t wide)
{
    for (uint32_t b = open_table_home(t, hash);; b = (b + 1) & t->mask) {
        uint32_t e = open_table_entry_w(t, b, wide);
        if (e == OPEN_TABLE_NONE)
            return OPEN_TABLE_NONE;
        if ((!wide || t->bucket[((size_t)b << 1) + 1] == (uint32_t)hash) && same(keys, e, key))
            return b;
    }
}

static inline uint32_t open_table_find(const OpenTable *t, const void *keys, uint64_t hash, const void *key,
                                       OpenTableSame same)
{
    return open_table_find_w(t, keys, hash, key, same, t->wide);
}

/* The entry whose key is `key` (of hash `hash`), or OPEN_TABLE_NONE. */
OPEN_TABLE_W uint32_t open_table_get_w(const OpenTable *t, const void *keys, uint64_t hash, const void *key,
                                       OpenTableSame same, uint32_t wide)
{
    uint32_t b = open_table_find_w(t, keys, hash, key, same, wide);
    return b == OPEN_TABLE_NONE ? OPEN_TABLE_NONE : open_table_entry_w(t, b, wide);
}

static inline uint32_t open_table_get(const OpenTable *t, const void *keys, uint64_t hash, const void *key,
                                      OpenTableSame same)
{
    return open_table_get_w(t, keys, hash, key, same, t->wide);
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
    while (open_table_entry(t, empty) != OPEN_TABLE_NONE)
        empty = (empty - 1) & t->mask;
    for (uint32_t j = (empty + 1) & t->mask; open_table_entry(t, j) != OPEN_TABLE_NONE; j = (j + 1) & t->mask)
        if (((j - open_table_home(t, open_table_hash_at(t, keys, j, hash_of))) & t->mask) >= ((j - empty) & t->mask))
            return FALSE;
    return TRUE;
}

/* The whole table: every entry reachable from its home, its tag its
 * hash (hash_of NULL: an id table's, whose tags are its keys), `used` of
 * them, within the load. O(the buckets). */
static inline gboolean open_table_check(const OpenTable *t, const void *keys, OpenTableHashOf hash_of)
{
    uint64_t n = 0, empty = 0;
    for (uint32_t b = 0; b <= t->mask; b++) {
        uint32_t e = open_table_entry(t, b);
        if (e == OPEN_TABLE_NONE) {
            empty++;
            continue;
        }
        n++;
        if (t->wide && hash_of && open_table_tag(t, b) != (uint32_t)hash_of(keys, e))
            return FALSE;
        if (open_table_entry(t, (b - 1) & t->mask) == OPEN_TABLE_NONE && !open_table_cluster_ok(t, keys, b, hash_of))
            return FALSE; /* each cluster checked once, from its first bucket */
    }
    return n == t->used && empty > 0 && n <= t->limit &&
           t->limit == (uint32_t)((uint64_t)t->load * (t->mask + 1) / 100);
}

/* Place entry e of hash `hash` in the first empty bucket from its home. */
OPEN_TABLE_W uint32_t open_table_insert_raw_w(OpenTable *t, uint32_t e, uint64_t hash, uint32_t wide)
{
    uint32_t b = open_table_home(t, hash);
    while (open_table_entry_w(t, b, wide) != OPEN_TABLE_NONE)
        b = (b + 1) & t->mask;
    open_table_set_w(t, b, e, (uint32_t)hash, wide);
    return b;
}

/* Double the buckets (a put would pass the limit). Out of line: rare. */
static G_GNUC_NO_INLINE G_GNUC_UNUSED void open_table_double(OpenTable *t, const void *keys, OpenTableHashOf hash_of)
{
    OpenTable old = *t;
    g_assert(old.mask < UINT32_MAX / 2);
    t->mask = 2 * old.mask + 1;
    t->limit = (uint32_t)((uint64_t)t->load * (t->mask + 1) / 100);
    t->bucket = open_table_buckets(t, (size_t)t->mask + 1);
    for (uint32_t i = 0; i <= old.mask; i++)
        if (open_table_entry(&old, i) != OPEN_TABLE_NONE)
            open_table_insert_raw_w(t, open_table_entry(&old, i), open_table_hash_at(&old, keys, i, hash_of), t->wide);
    g_free(old.bucket);
    DESTOR_CHECK(open_table_check(t, keys, hash_of));
}

/* Add entry e (its key, of hash `hash`, not yet in the table). With
 * `grow`, the buckets are doubled first when that would make more than
 * `load` percent of them used; without, there must be room. */
OPEN_TABLE_W void open_table_put_hash_w(OpenTable *t, const void *keys, uint32_t e, uint64_t hash,
                                        OpenTableHashOf hash_of, uint32_t wide, gboolean grow)
{
    if (grow && t->used >= t->limit)
        open_table_double(t, keys, hash_of);
    DESTOR_CHECK(t->used < t->limit);
    uint32_t b = open_table_insert_raw_w(t, e, hash, wide);
    t->used++;
    DESTOR_CHECK(open_table_cluster_ok(t, keys, b, hash_of));
}

/* Add entry e (its key not yet in the table). */
static inline void open_table_put(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    open_table_put_hash_w(t, keys, e, hash_of(keys, e), hash_of, t->wide, TRUE);
}

/* The same into a table that never grows (open_table_init_for). */
static inline void open_table_put_room(OpenTable *t, const void *keys, uint32_t e, OpenTableHashOf hash_of)
{
    open_table_put_hash_w(t, keys, e, hash_of(keys, e), hash_of, t->wide, FALSE);
}

/* Empty bucket b (in use): later entries of its probe run move back into
 * the hole when their home is not cyclically in (hole, them]. */
OPEN_TABLE_W void open_table_remove_at_w(OpenTable *t, const void *keys, uint32_t b, OpenTableHashOf hash_of,
                                         uint32_t wide)
{
    uint32_t at = b;
    for (uint32_t j = (b + 1) & t->mask;; j = (j + 1) & t->mask) {
        uint32_t x = open_table_entry_w(t, j, wide);
        if (x == OPEN_TABLE_NONE)
            break;
        uint64_t hash = open_table_hash_at_w(t, keys, j, hash_of, wide);
        if (((j - open_table_home(t, hash)) & t->mask) >= ((j - b) & t->mask)) {
            open_table_set_w(t, b, x, (uint32_t)hash, wide);
            b = j;
        }
    }
    open_table_set_w(t, b, OPEN_TABLE_NONE, 0, wide);
    t->used--;
    DESTOR_CHECK(open_table_cluster_ok(t, keys, at, hash_of) && open_table_cluster_ok(t, keys, b, hash_of));
}

static inline void open_table_remove_at(OpenTable *t, const void *keys, uint32_t b, OpenTableHashOf hash_of)
{
    open_table_remove_at_w(t, keys, b, hash_of, t->wide);
}

/* The bucket holding entry e (in the table). */
static inline uint32_t open_table_bucket_of(const OpenTable *t, const void *keys, uint32_t e,
                                            OpenTableHashOf hash_of)
{
    uint32_t b = open_table_home(t, hash_of(keys, e));
    while (open_table_entry(t, b) != e) {
        g_assert(open_table_entry(t, b) != OPEN_TABLE_NONE);
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
    return ((size_t)(t->mask + 1) << t->wide) * sizeof(uint32_t);
}

/* Tables of 32-bit ids (the slot map), made for at most `max` entries
 * (they never grow), are tagged with open_table_id_hash(id), a bijection of
 * the 32 bits: a bucket's tag is its id. A probe, a move and a removal read the 8-byte buckets only, never a
 * key, as a table keeping its ids inline would; the table needs no array
 * of the ids. hash_of NULL (above) stands for "the tags are the keys". */
static inline void open_table_id_init(OpenTable *t, uint32_t max)
{
    open_table_init_for(t, max, OPEN_TABLE_TAGGED);
}

static inline gboolean open_table_tag_is_key(const void *keys, uint32_t e, const void *key)
{
    (void)keys, (void)e, (void)key;
    return TRUE;
}

/* The bucket holding id, or OPEN_TABLE_NONE. */
static inline uint32_t open_table_id_find(const OpenTable *t, uint32_t id)
{
    return open_table_find_w(t, NULL, open_table_id_hash(id), NULL, open_table_tag_is_key, 1);
}

/* The entry of id, or OPEN_TABLE_NONE. */
static inline uint32_t open_table_id_get(const OpenTable *t, uint32_t id)
{
    return open_table_get_w(t, NULL, open_table_id_hash(id), NULL, open_table_tag_is_key, 1);
}

/* The id of bucket b (in use). */
static inline uint32_t open_table_id_at(const OpenTable *t, uint32_t b)
{
    return open_table_id_unhash(open_table_tag(t, b));
}

/* Add entry e of id (not yet in the table). */
static inline void open_table_id_put(OpenTable *t, uint32_t e, uint32_t id)
{
    open_table_put_hash_w(t, NULL, e, open_table_id_hash(id), NULL, 1, FALSE);
}

/* Empty bucket b (in use). */
static inline void open_table_id_remove_at(OpenTable *t, uint32_t b)
{
    open_table_remove_at_w(t, NULL, b, NULL, 1);
}

static inline gboolean open_table_id_check(const OpenTable *t)
{
    return t->wide && open_table_check(t, NULL, NULL);
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
        open_table_init(t, 64, 50, OPEN_TABLE_UNTAGGED);                                                      \
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
