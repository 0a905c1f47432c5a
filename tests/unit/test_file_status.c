/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_file_status.c: the file_status format (round trip, every damage an
 * INTEGRITY error) and the walk order the files cache merges the parent's
 * records in: a directory's contents right after it, before a sibling whose
 * name extends the directory's ("d/x" before "d.x", though '.' < '/'). */
#include "backup/files_cache.h"
#include "recipe/file_status.h"
#include "util/error.h"
#include "util/le.h"
#include "unit.h"

#include <string.h>

static void test_round_trip_and_damage(void)
{
    FileStatusTable t;
    ChunkSizes sizes = { 2048, 8192, 65536 };
    file_status_table_init(&t, 9, 1234567890123456789LL, CHUNK_FASTCDC, &sizes);
    FileStatus a = { 1, 2, -3, 999999999, FILE_STATUS_CHANGED }, b = { UINT64_MAX, 7, 1700000000, 5, 0 };
    g_array_append_val(t.entries, a);
    g_array_append_val(t.entries, b);
    size_t len;
    uint8_t *p = file_status_encode(&t, &len);
    CU_ASSERT_EQUAL(len, FILE_STATUS_HEADER_SIZE + 2 * FILE_STATUS_ENTRY_SIZE + 4);
    FileStatusTable back;
    GError *err = NULL;
    CU_ASSERT_TRUE(file_status_decode(p, len, 9, "fs", &back, &err));
    CU_ASSERT_EQUAL(back.start_ns, t.start_ns);
    CU_ASSERT_EQUAL(back.chunk_algorithm, CHUNK_FASTCDC);
    CU_ASSERT_EQUAL(back.chunk_sizes.max_size, 65536);
    CU_ASSERT_EQUAL(back.entries->len, 2);
    CU_ASSERT_EQUAL(memcmp(back.entries->data, t.entries->data, 2 * sizeof(FileStatus)), 0);
    file_status_table_clear(&back);
    /* another job's file, a flipped byte, a cut file: damage */
    CU_ASSERT_FALSE(file_status_decode(p, len, 8, "fs", &back, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);
    for (size_t i = 0; i < len; i += 7) {
        p[i] ^= 0x10;
        CU_ASSERT_FALSE(file_status_decode(p, len, 9, "fs", &back, &err));
        CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
        g_clear_error(&err);
        p[i] ^= 0x10;
    }
    CU_ASSERT_FALSE(file_status_decode(p, len - FILE_STATUS_ENTRY_SIZE, 9, "fs", &back, &err));
    g_clear_error(&err);
    g_free(p);
    file_status_table_clear(&t);
}

static int order(const char *a, const char *b)
{
    int c = files_cache_walk_order((const uint8_t *)a, strlen(a), (const uint8_t *)b, strlen(b));
    return c < 0 ? -1 : c > 0;
}

static void test_walk_order(void)
{
    /* the walker's order over one tree, each path after the one before */
    static const char *const walk[] = { "a", "d", "d/e", "d/e/x", "d/z", "d.x", "da", "\xc3\xa9" };
    for (size_t i = 0; i < G_N_ELEMENTS(walk); i++) {
        CU_ASSERT_EQUAL(order(walk[i], walk[i]), 0);
        for (size_t j = i + 1; j < G_N_ELEMENTS(walk); j++) {
            CU_ASSERT_EQUAL(order(walk[i], walk[j]), -1);
            CU_ASSERT_EQUAL(order(walk[j], walk[i]), 1);
        }
    }
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("file status", NULL, NULL);
    CU_add_test(s, "file_status round-trips; damage is an integrity error", test_round_trip_and_damage);
    CU_add_test(s, "the files cache's walk order is the walker's", test_walk_order);
}

UNIT_MAIN(add_suites)
