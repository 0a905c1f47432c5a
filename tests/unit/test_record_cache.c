/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_record_cache.c: a read session's decoded file records
 * (record_cache.h): a record kept is handed out shared, by job and path;
 * the least recently used go first past the bound of chunk references; a
 * record larger than the bound is not kept; a second put of a key
 * replaces the first. */
#include "read/record_cache.h"
#include "unit.h"

#include <string.h>

/* A file record of `n` chunks, chunk i of length base + i. */
static FileRecord *record(const char *path, guint n, uint32_t base)
{
    FileRecord *r = file_record_new(ENTRY_FILE, path, strlen(path));
    for (guint i = 0; i < n; i++) {
        ChunkRef c = { .container = i, .offset = 0, .length = base + i };
        memset(c.fp.bytes, (int)(base + i), sizeof c.fp.bytes);
        g_array_append_val(r->chunks, c);
    }
    return r;
}

static gboolean same(const FileRecord *a, const FileRecord *b)
{
    return a->chunks->len == b->chunks->len &&
           memcmp(a->chunks->data, b->chunks->data, (size_t)a->chunks->len * sizeof(ChunkRef)) == 0 &&
           a->path->len == b->path->len && memcmp(a->path->data, b->path->data, a->path->len) == 0;
}

static void test_kept_and_shared(void)
{
    RecordCache *rc = record_cache_new(100);
    FileRecord *a = record("a", 10, 1);
    record_cache_put(rc, 1, "a", a);
    CU_ASSERT_PTR_NULL(record_cache_get(rc, 2, "a")); /* another job's */
    CU_ASSERT_PTR_NULL(record_cache_get(rc, 1, "b"));
    FileRecord *got = record_cache_get(rc, 1, "a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_TRUE(same(got, a));
    CU_ASSERT_TRUE(got->chunks == a->chunks); /* shared, not decoded again */
    file_record_free(a);                      /* the cache keeps its own share */
    FileRecord *again = record_cache_get(rc, 1, "a");
    CU_ASSERT_TRUE(again != NULL && again->chunks == got->chunks);
    file_record_free(got);
    file_record_free(again);
    CU_ASSERT_EQUAL(record_cache_chunks(rc), 10);
    record_cache_free(rc);
}

static void test_bound(void)
{
    RecordCache *rc = record_cache_new(100);
    FileRecord *a = record("a", 40, 1), *b = record("b", 40, 100), *c = record("c", 40, 200);
    FileRecord *big = record("big", 101, 50);
    record_cache_put(rc, 1, "a", a);
    record_cache_put(rc, 1, "b", b);
    FileRecord *touch = record_cache_get(rc, 1, "a"); /* a the most recent: b goes first */
    file_record_free(touch);
    record_cache_put(rc, 1, "c", c);
    CU_ASSERT_EQUAL(record_cache_chunks(rc), 80);
    FileRecord *x = record_cache_get(rc, 1, "a"), *y = record_cache_get(rc, 1, "b"), *z = record_cache_get(rc, 1, "c");
    CU_ASSERT_TRUE(x != NULL && same(x, a));
    CU_ASSERT_PTR_NULL(y);
    CU_ASSERT_TRUE(z != NULL && same(z, c));
    file_record_free(x);
    file_record_free(z);
    record_cache_put(rc, 1, "big", big); /* more than the bound: not kept, nothing pushed out */
    CU_ASSERT_PTR_NULL(record_cache_get(rc, 1, "big"));
    CU_ASSERT_EQUAL(record_cache_chunks(rc), 80);
    FileRecord *a2 = record("a", 5, 7);
    record_cache_put(rc, 1, "a", a2); /* replaces */
    x = record_cache_get(rc, 1, "a");
    CU_ASSERT_TRUE(x != NULL && same(x, a2));
    CU_ASSERT_EQUAL(record_cache_chunks(rc), 45);
    file_record_free(x);
    for (FileRecord **p = (FileRecord *[]){ a, b, c, big, a2, NULL }; *p != NULL; p++)
        file_record_free(*p);
    record_cache_free(rc);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("record cache", NULL, NULL);
    CU_add_test(s, "kept, shared, by job and path", test_kept_and_shared);
    CU_add_test(s, "least recent out past the bound; too large not kept; replaced", test_bound);
}

UNIT_MAIN(add_suites)
