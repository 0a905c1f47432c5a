/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_recorder.c: the recording ChunkSource of trace compile at chunk
 * granularity (src/read/chunk_recorder.c): each access is written down at
 * the position the chunk cache's source would give the cache (the address
 * of the located (file, index), the touched part; unlocated: the whole
 * chunk at its fingerprint's address); a reference met again reuses its
 * table entry, one that differs in any field gets its own; a container past
 * the pool is an INTEGRITY error and records nothing. */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/chunk_table.h"
#include "read/chunk_recorder.h"
#include "util/error.h"
#include "unit.h"

#include <string.h>

static ChunkRef ref(uint8_t fp, ContainerId container, uint32_t offset, uint32_t length)
{
    ChunkRef r = { .container = container, .offset = offset, .length = length };
    memset(r.fp.bytes, fp, sizeof r.fp.bytes);
    return r;
}

static void test_records(void)
{
    ChunkRecording rec = { g_array_new(FALSE, FALSE, sizeof(ChunkRef)),
                           g_array_new(FALSE, FALSE, sizeof(ChunkTouch)) };
    ChunkSource *s = chunk_recorder_new(&rec, 4);
    ChunkRef a = ref(1, 3, 100, 4096), b = ref(2, 0, 0, 2000), a_elsewhere = ref(1, 2, 100, 4096);
    GError *err = NULL;
    ChunkPosition p0 = { .file = 77, .index = 0, .offset = 0, .length = 4096 };
    chunk_source_locate(s, &p0);
    CU_ASSERT_TRUE(chunk_source_touch(s, &a, &err));
    ChunkPosition p1 = { .file = 77, .index = 1, .offset = 10, .length = 90 };
    chunk_source_locate(s, &p1);
    CU_ASSERT_TRUE(chunk_source_touch(s, &b, &err));
    ChunkPosition p2 = { .file = 99, .index = 5, .offset = 1, .length = 2 };
    chunk_source_locate(s, &p2);
    CU_ASSERT_TRUE(chunk_source_touch(s, &a, &err));
    CU_ASSERT_TRUE(chunk_source_touch(s, &a_elsewhere, &err)); /* not located */
    ChunkRef past = ref(3, 4, 0, 10);
    CU_ASSERT_FALSE(chunk_source_touch(s, &past, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    CU_ASSERT_EQUAL(chunk_source_fetches(s), 0);

    CU_ASSERT_EQUAL_FATAL(rec.chunks->len, 3);
    CU_ASSERT_EQUAL_FATAL(rec.touches->len, 4);
    const ChunkRef *t = (const ChunkRef *)(const void *)rec.chunks->data;
    CU_ASSERT(memcmp(&t[0], &a, sizeof a) == 0 && memcmp(&t[1], &b, sizeof b) == 0 &&
              memcmp(&t[2], &a_elsewhere, sizeof a) == 0);
    const ChunkTouch *x = (const ChunkTouch *)(const void *)rec.touches->data;
    CU_ASSERT(x[0].chunk == 0 && x[0].address == chunk_address(77, 0) && x[0].touch_offset == 0 &&
              x[0].touch_length == 4096);
    CU_ASSERT(x[1].chunk == 1 && x[1].address == chunk_address(77, 1) && x[1].touch_offset == 10 &&
              x[1].touch_length == 90);
    CU_ASSERT(x[2].chunk == 0 && x[2].address == chunk_address(99, 5) && x[2].touch_offset == 1 &&
              x[2].touch_length == 2);
    CU_ASSERT(x[3].chunk == 2 && x[3].address == chunk_address(chunk_table_key(&a.fp), 0) &&
              x[3].touch_offset == 0 && x[3].touch_length == 4096);
    chunk_source_free(s);
    g_array_unref(rec.chunks);
    g_array_unref(rec.touches);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_recorder", NULL, NULL);
    CU_add_test(s, "positions, table entries, the pool's bound", test_records);
}

UNIT_MAIN(add_suites)
