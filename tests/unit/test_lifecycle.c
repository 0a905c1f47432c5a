/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_lifecycle.c: the small structures delete and gc rest on: the sorted
 * set of live chunk locations, the list of freed containers (round trip,
 * damage, the committed count it carries), and the tombstone of a deleted
 * job (readers refuse it, listing keeps it). */
#include "lifecycle/live_chunks.h"
#include "recipe/job_catalog.h"
#include "recipe/job_tombstone.h"
#include "store/freed_list.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <glib/gstdio.h>
#include <string.h>

static void test_live_chunks(void)
{
    GArray *c = live_chunks_new();
    live_chunks_add(c, 5, 64, 100);
    live_chunks_add(c, 2, 900, 10);
    live_chunks_add(c, 5, 64, 100); /* the same chunk named twice */
    live_chunks_add(c, 2, 64, 836);
    live_chunks_add(c, 9, 64, 7);
    live_chunks_seal(c);
    CU_ASSERT_EQUAL(c->len, 4);
    CU_ASSERT_EQUAL(live_chunks_first(c, 2), 0);
    CU_ASSERT_EQUAL(live_chunks_first(c, 3), 2); /* the next container's first */
    CU_ASSERT_EQUAL(live_chunks_first(c, 5), 2);
    CU_ASSERT_EQUAL(live_chunks_first(c, 10), 4);
    CU_ASSERT_EQUAL(live_chunks_find(c, 2, 900), 1);
    CU_ASSERT_EQUAL(live_chunks_find(c, 9, 64), 3);
    CU_ASSERT_EQUAL(live_chunks_find(c, 2, 65), -1);
    CU_ASSERT_EQUAL(live_chunks_find(c, 4, 64), -1);
    g_array_unref(c);
}

static void test_freed_list(void)
{
    uint32_t count = 99;
    GArray *ids = freed_list_load(tmpdir, &count, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ids); /* no file: an empty list */
    CU_ASSERT_EQUAL(ids->len, 0);
    CU_ASSERT_EQUAL(count, 0);
    ContainerId some[] = { 1, 4, 5, 17 };
    g_array_append_vals(ids, some, G_N_ELEMENTS(some));
    CU_ASSERT_TRUE(freed_list_publish(tmpdir, ids, 20, NULL));
    g_array_unref(ids);
    ids = freed_list_load(tmpdir, &count, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ids);
    CU_ASSERT_EQUAL(count, 20);
    CU_ASSERT_EQUAL(ids->len, 4);
    CU_ASSERT_TRUE(freed_list_has(ids, 1) && freed_list_has(ids, 17) && freed_list_has(ids, 5));
    CU_ASSERT_FALSE(freed_list_has(ids, 0) || freed_list_has(ids, 6) || freed_list_has(ids, 18));
    g_array_unref(ids);

    /* one flipped byte: damage, an INTEGRITY error */
    char *path = g_build_filename(tmpdir, FREED_LIST_FILE, NULL);
    gchar *bytes = NULL;
    gsize len = 0;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &bytes, &len, NULL));
    bytes[21] ^= 1;
    CU_ASSERT_TRUE(file_publish_atomic(path, bytes, len, NULL));
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(freed_list_load(tmpdir, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    g_unlink(path);
    g_free(bytes);
    g_free(path);
}

static void test_tombstone(void)
{
    JobManifest m = { .job_id = 3, .source_root = "src", .containers_total = 7, .container_size = 131072 };
    char *dir = job_dir_path(tmpdir, 3);
    CU_ASSERT_EQUAL_FATAL(g_mkdir_with_parents(dir, 0755), 0);
    CU_ASSERT_TRUE_FATAL(job_manifest_publish(dir, &m, NULL));
    CU_ASSERT_FALSE(job_is_deleted(tmpdir, 3));
    CU_ASSERT_TRUE(job_tombstone_publish(tmpdir, 3, 1700000000, NULL));
    CU_ASSERT_TRUE(job_is_deleted(tmpdir, 3));

    JobManifest got;
    GError *err = NULL;
    CU_ASSERT_FALSE(job_manifest_load(tmpdir, 3, &got, &err)); /* readers refuse it */
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    CU_ASSERT_PTR_NOT_NULL(err != NULL ? strstr(err->message, "was deleted") : NULL);
    g_clear_error(&err);
    CU_ASSERT_TRUE_FATAL(job_manifest_load_any(tmpdir, 3, &got, NULL)); /* its id and count stay */
    CU_ASSERT_EQUAL(got.containers_total, 7);
    job_manifest_clear(&got);

    GArray *all = job_catalog_list(tmpdir, NULL), *live = job_catalog_list_live(tmpdir, NULL);
    CU_ASSERT_TRUE_FATAL(all != NULL && live != NULL);
    CU_ASSERT_EQUAL(all->len, 1);
    CU_ASSERT_EQUAL(live->len, 0);
    g_array_unref(all);
    g_array_unref(live);
    g_free(dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("lifecycle", make_tmp, remove_tmp);
    CU_add_test(s, "live chunk locations", test_live_chunks);
    CU_add_test(s, "freed containers list", test_freed_list);
    CU_add_test(s, "deleted job tombstone", test_tombstone);
}

UNIT_MAIN(add_suites)
