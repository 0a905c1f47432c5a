/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_structure_checks.c: each structure's sanity check (the `*_check()`
 * functions util/check.h runs after every step in a checking build) holds
 * on a structure built by its own operations and fails on one broken by
 * hand: open_table (plain and tagged), the slot map, ghost lists, the slot
 * heap, the chunk log's index and space map, the buckets' index. */
#include "cache/layouts/buckets/chunk_buckets_index.h"
#include "cache/layouts/log/chunk_log_space.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/key_table.h"
#include "cache/structures/slot_heap.h"
#include "cache/structures/slot_map.h"
#include "unit.h"

#include <string.h>

/* Bucket b, the last of its cluster, moved past the empty bucket after it:
 * its entry is no longer reachable from its home. Returns where it went. */
static uint32_t unreachable(OpenTable *t, uint32_t *b)
{
    while (open_table_entry(t, *b) == OPEN_TABLE_NONE || open_table_entry(t, (*b + 1) & t->mask) != OPEN_TABLE_NONE)
        *b = (*b + 1) & t->mask;
    uint32_t far = (*b + 2) & t->mask;
    while (open_table_entry(t, far) != OPEN_TABLE_NONE)
        far = (far + 1) & t->mask;
    open_table_set(t, far, open_table_entry(t, *b), t->wide ? open_table_tag(t, *b) : 0);
    open_table_set(t, *b, OPEN_TABLE_NONE, 0);
    return far;
}

static void test_open_table(void)
{
    enum { N = 40 };
    uint64_t keys[N];
    KeyTable t;
    key_table_init(&t);
    for (uint32_t e = 0; e < N; e++) {
        keys[e] = (uint64_t)e * 0x1234567;
        key_table_put(&t, keys, e);
    }
    key_table_remove(&t, keys, 7);
    CU_ASSERT_TRUE(key_table_check(&t, keys));
    uint32_t b = 0, far = unreachable(&t, &b);
    CU_ASSERT_FALSE(key_table_check(&t, keys));
    open_table_set(&t, b, open_table_entry(&t, far), 0);
    open_table_set(&t, far, OPEN_TABLE_NONE, 0);
    CU_ASSERT_TRUE(key_table_check(&t, keys));
    t.used++; /* a count that is not the entries' */
    CU_ASSERT_FALSE(key_table_check(&t, keys));
    t.used--;
    key_table_free(&t);
}

static void test_tagged_table(void)
{
    enum { N = 40 };
    uint32_t ids[N];
    OpenTable t;
    open_table_init(&t, 64, 75, OPEN_TABLE_TAGGED);
    for (uint32_t e = 0; e < N; e++) {
        ids[e] = e * 7919;
        open_table_put(&t, ids, e, open_table_id_hash_of);
    }
    open_table_remove(&t, ids, 3, open_table_id_hash_of);
    CU_ASSERT_TRUE(open_table_check(&t, ids, open_table_id_hash_of));
    for (uint32_t e = 0; e < N; e++) /* an id table's tag is its id */
        CU_ASSERT_EQUAL(open_table_id_unhash((uint32_t)open_table_id_hash(ids[e] ^ 0xdeadbeefu)), ids[e] ^ 0xdeadbeefu);
    uint32_t b = 0;
    while (open_table_entry(&t, b) == OPEN_TABLE_NONE)
        b++;
    uint32_t e = open_table_entry(&t, b), tag = open_table_tag(&t, b);
    open_table_set(&t, b, e, tag + 1); /* a tag that is not its entry's hash */
    CU_ASSERT_FALSE(open_table_check(&t, ids, open_table_id_hash_of));
    open_table_set(&t, b, e, tag);
    uint32_t far = unreachable(&t, &b);
    CU_ASSERT_FALSE(open_table_check(&t, ids, open_table_id_hash_of));
    open_table_set(&t, b, open_table_entry(&t, far), open_table_tag(&t, far));
    open_table_set(&t, far, OPEN_TABLE_NONE, 0);
    CU_ASSERT_TRUE(open_table_check(&t, ids, open_table_id_hash_of));
    open_table_free(&t);
}

static void test_slot_map(void)
{
    enum { CAP = 40 };
    SlotMap m;
    slot_map_init(&m, CAP, 10000);
    for (uint32_t s = 0; s < CAP; s++)
        slot_map_put(&m, s * 131 % 10000, s);
    slot_map_remove(&m, 5 * 131);
    CU_ASSERT_TRUE(slot_map_check(&m));
    uint32_t b = 0, far = unreachable(&m.table, &b);
    CU_ASSERT_FALSE(slot_map_check(&m));
    open_table_set(&m.table, b, open_table_entry(&m.table, far), open_table_tag(&m.table, far));
    open_table_set(&m.table, far, OPEN_TABLE_NONE, 0);
    CU_ASSERT_TRUE(slot_map_check(&m));
    /* a present bit without its entry */
    m.present[9999 / 64] |= 1ull << (9999 % 64);
    CU_ASSERT_FALSE(slot_map_check(&m));
    m.present[9999 / 64] &= ~(1ull << (9999 % 64));
    /* an entry without its present bit */
    m.present[131 / 64] &= ~(1ull << (131 % 64));
    CU_ASSERT_FALSE(slot_map_check(&m));
    slot_map_free(&m);
}

static void test_ghost_list(void)
{
    GhostList g;
    ghost_list_init(&g, 16);
    for (ContainerId id = 0; id < 24; id++)
        ghost_list_push_to(&g, id % 2, id * 7);
    ghost_list_take(&g, 21 * 7);
    CU_ASSERT_TRUE(ghost_list_check(&g));
    g.len[1]++;
    CU_ASSERT_FALSE(ghost_list_check(&g));
    g.len[1]--;
    g.id[g.oldest[0]] = 999; /* a node no longer found under its id */
    CU_ASSERT_FALSE(ghost_list_check(&g));
    ghost_list_free(&g);
}

typedef struct {
    uint32_t key;
    CacheSlot slot;
} Entry;

static inline gboolean entry_less(const void *ctx, const Entry *a, const Entry *b)
{
    (void)ctx;
    return a->key < b->key;
}

SLOT_HEAP_DEFINE(TestHeap, test_heap, Entry, entry_less)

static void test_slot_heap(void)
{
    TestHeap h;
    test_heap_init(&h, 32, NULL);
    for (CacheSlot s = 0; s < 32; s++)
        test_heap_insert(&h, (Entry){ .key = (s * 37) % 32, .slot = s });
    test_heap_remove(&h, 5);
    CU_ASSERT_TRUE(test_heap_check(&h));
    test_heap_of(&h, test_heap_top(&h)->slot)->key = 1000; /* a key changed and not moved */
    CU_ASSERT_FALSE(test_heap_check(&h));
    test_heap_sink(&h, test_heap_top(&h)->slot);
    CU_ASSERT_TRUE(test_heap_check(&h));
    h.pos[h.entry[3].slot] = 4; /* a wrong position */
    CU_ASSERT_FALSE(test_heap_check(&h));
    test_heap_free(&h);
}

static void test_chunk_log_space(void)
{
    ChunkLogSpace sp;
    chunk_log_space_init(&sp, 64 * 1024, 4, CHUNK_LOG_EVICT, NULL, NULL);
    for (uint32_t i = 0; i < 400; i++) { /* more than 4 segments: reclaims */
        Fingerprint fp;
        fingerprint_compute(FP_SHA1, &i, sizeof i, &fp);
        CU_ASSERT_TRUE(chunk_log_space_put(&sp, &fp, 1000 + i, 900 + i, 0, NULL));
    }
    CU_ASSERT_TRUE(chunk_log_space_check(&sp));
    uint32_t e = 0;
    while (chunk_log_index_entry(&sp.index, e)->length == 0)
        e++;
    ChunkLogEntry *en = chunk_log_index_entry(&sp.index, e);
    en->stored++; /* its segment's live bytes no longer add up */
    CU_ASSERT_TRUE(chunk_log_index_check(&sp.index));
    CU_ASSERT_FALSE(chunk_log_space_check(&sp));
    en->stored--;
    en->fp.bytes[0] ^= 1; /* not found under its fingerprint */
    CU_ASSERT_FALSE(chunk_log_index_check(&sp.index));
    en->fp.bytes[0] ^= 1;
    CU_ASSERT_TRUE(chunk_log_space_check(&sp));
    chunk_log_space_clear(&sp);
}

static void test_buckets_index(void)
{
    ChunkBucketsIndex x;
    chunk_buckets_index_init(&x, 8, 16);
    chunk_buckets_index_mark(&x, 3, 2, 4, 0xbeef);
    chunk_buckets_index_mark(&x, 3, 6, 2, 0x1234);
    chunk_buckets_index_mark(&x, 5, 0, 16, 0x4242);
    chunk_buckets_index_unmark(&x, 3, 2);
    CU_ASSERT_TRUE(chunk_buckets_index_check(&x));
    x.prefix[3 * 16 + 7] = 0x9999; /* a chunk's tail with another prefix */
    CU_ASSERT_FALSE(chunk_buckets_index_check(&x));
    x.prefix[3 * 16 + 7] = 0x1234;
    x.chunks++;
    CU_ASSERT_FALSE(chunk_buckets_index_check(&x));
    chunk_buckets_index_clear(&x);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("structure checks", NULL, NULL);
    CU_add_test(s, "open_table", test_open_table);
    CU_add_test(s, "open_table with tags (fp_table)", test_tagged_table);
    CU_add_test(s, "slot map", test_slot_map);
    CU_add_test(s, "ghost lists", test_ghost_list);
    CU_add_test(s, "slot heap", test_slot_heap);
    CU_add_test(s, "chunk log index and space map", test_chunk_log_space);
    CU_add_test(s, "buckets index", test_buckets_index);
}

UNIT_MAIN(add_suites)
