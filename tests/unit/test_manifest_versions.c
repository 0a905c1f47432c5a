/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_manifest_versions.c: the manifest's two versions. Version 2 carries
 * the job's rewriting and fragmentation figures and round-trips them; a
 * version 1 manifest (an older store's) still decodes, without them; an
 * unknown version, or a version 2 manifest cut to version 1's layout, is
 * damage. */
#include "recipe/job_catalog.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/le.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <string.h>

/* A version 1 manifest of job 7 as an older destor wrote it. */
static uint8_t *v1_manifest(const char *root, size_t *len)
{
    size_t r = strlen(root);
    *len = MANIFEST_V1_FIXED_SIZE + 4 + r + 4;
    uint8_t *p = g_malloc0(*len);
    memcpy(p, MANIFEST_MAGIC, 8);
    le32_put(p + 8, 1);
    le32_put(p + 12, 7);
    le64_put(p + 24, 3);       /* files */
    le64_put(p + 56, 5u << 20); /* logical bytes */
    le32_put(p + 104, 128 * 1024);
    le32_put(p + MANIFEST_V1_FIXED_SIZE, (uint32_t)r);
    memcpy(p + MANIFEST_V1_FIXED_SIZE + 4, root, r);
    le32_put(p + *len - 4, checksum_crc32(CHECKSUM_CRC32_START, p, *len - 4));
    return p;
}

static void test_v1_still_opens(void)
{
    size_t len;
    uint8_t *p = v1_manifest("/old/tree", &len);
    JobManifest m;
    GError *err = NULL;
    CU_ASSERT_TRUE(job_manifest_decode(p, len, 7, "v1", &m, &err));
    CU_ASSERT_FALSE(m.has_fragmentation);
    CU_ASSERT_EQUAL(m.files, 3);
    CU_ASSERT_EQUAL(m.logical_bytes, 5u << 20);
    CU_ASSERT_EQUAL(m.rewritten_chunks, 0);
    CU_ASSERT_STRING_EQUAL(m.source_root, "/old/tree");
    job_manifest_clear(&m);
    /* an unknown version is damage, not a guess at its layout */
    for (uint32_t version = 0; version <= MANIFEST_VERSION + 1; version += MANIFEST_VERSION + 1) {
        le32_put(p + 8, version);
        le32_put(p + len - 4, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
        CU_ASSERT_FALSE(job_manifest_decode(p, len, 7, "v?", &m, &err));
        CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
        CU_ASSERT_PTR_NULL(m.source_root);
        g_clear_error(&err);
    }
    /* version 1's bytes claimed as version 2: the root length is not where version 2 has it */
    le32_put(p + 8, 2);
    le32_put(p + len - 4, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
    CU_ASSERT_FALSE(job_manifest_decode(p, len, 7, "v1 as v2", &m, &err));
    g_clear_error(&err);
    g_free(p);
}

static void test_v2_round_trip(void)
{
    char *dir = g_build_filename(tmpdir, "job", NULL);
    g_mkdir_with_parents(dir, 0700);
    JobManifest m = { .job_id = 4, .files = 9, .logical_bytes = 3u << 20, .chunks = 700, .new_chunks = 90,
                      .container_size = 128 * 1024, .has_fragmentation = TRUE, .rewritten_chunks = 41,
                      .rewritten_bytes = 41 * 4096, .restore_container_reads = 12,
                      .fragmentation_cache_containers = 30, .source_root = g_strdup("/new/tree") };
    GError *err = NULL;
    CU_ASSERT_TRUE(job_manifest_publish(dir, &m, &err));
    char *path = g_build_filename(dir, JOB_MANIFEST_FILE, NULL);
    uint8_t *p = NULL;
    size_t len = 0;
    CU_ASSERT_TRUE(file_read_whole(path, &p, &len, &err));
    CU_ASSERT_EQUAL(len, MANIFEST_FIXED_SIZE + 4 + strlen("/new/tree") + 4);
    CU_ASSERT_EQUAL(le32_get(p + 8), 2);
    JobManifest back;
    CU_ASSERT_TRUE(job_manifest_decode(p, len, 4, path, &back, &err));
    CU_ASSERT_TRUE(back.has_fragmentation);
    CU_ASSERT_EQUAL(back.rewritten_chunks, 41);
    CU_ASSERT_EQUAL(back.rewritten_bytes, 41 * 4096);
    CU_ASSERT_EQUAL(back.restore_container_reads, 12);
    CU_ASSERT_EQUAL(back.fragmentation_cache_containers, 30);
    CU_ASSERT_EQUAL(back.chunks, 700);
    CU_ASSERT_STRING_EQUAL(back.source_root, "/new/tree");
    CU_ASSERT_DOUBLE_EQUAL(job_manifest_containers_per_mib(&back), 4.0, 1e-12);
    job_manifest_clear(&back);
    /* the figures are under the CRC: one of them changed is damage */
    p[130] ^= 1;
    CU_ASSERT_FALSE(job_manifest_decode(p, len, 4, path, &back, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);
    g_free(p);
    g_free(path);
    job_manifest_clear(&m);
    g_free(dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("manifest versions", make_tmp, remove_tmp);
    CU_add_test(s, "a version 1 manifest still opens, without the figures", test_v1_still_opens);
    CU_add_test(s, "version 2 round-trips the rewriting and fragmentation figures", test_v2_round_trip);
}

UNIT_MAIN(add_suites)
