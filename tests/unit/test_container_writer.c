/* test_container_writer.c: the container writer (src/storage/container_writer.c)
 * with several writes in flight: every submitted container lands in its
 * slot whatever the waits in between, a wait for "at most n left" returns
 * only once the older ones are written, and a failed write is reported by
 * every later wait. */
#include "storage/container.h"
#include "storage/container_pool.h"
#include "storage/container_writer.h"
#include "util/error.h"
#include "unit.h"

#include <glib/gstdio.h>
#include <string.h>

#define CSIZE (64u * 1024)
#define DEPTH 3
#define CONTAINERS 8

/* A sealed container of one chunk whose bytes are all `id`. */
static uint8_t *container_for(ContainerId id)
{
    uint8_t *buf = g_aligned_alloc(1, CSIZE, CONTAINER_ALIGN);
    uint8_t data[1000];
    memset(data, (int)id, sizeof data);
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, data, sizeof data, &fp);
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, id);
    container_builder_add(&b, &fp, data, sizeof data);
    container_builder_seal(&b, FP_SHA1);
    return buf;
}

static char *pool_path(char **dir)
{
    *dir = g_dir_make_tmp("destor-test-XXXXXX", NULL);
    return g_build_filename(*dir, "containers.pool", NULL);
}

static void remove_pool(char *dir, char *path)
{
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* Submissions up to the depth, each buffer reused only after a wait says
 * its write is done, as the job writer does. */
static void test_ring_of_writes(void)
{
    char *dir, *path = pool_path(&dir);
    GError *err = NULL;
    ContainerPool *pool = container_pool_open(path, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    ContainerWriter *w = container_writer_new(pool, DEPTH);
    uint8_t *bufs[CONTAINERS];
    guint unfinished = 0;
    gboolean ok = TRUE;
    for (ContainerId id = 0; id < CONTAINERS; id++) {
        if (unfinished == DEPTH) /* the oldest must be written before a fourth goes out */
            ok &= container_writer_wait(w, --unfinished, &err);
        bufs[id] = container_for(id);
        container_writer_submit(w, id, bufs[id]);
        unfinished++;
    }
    ok &= container_writer_wait(w, 0, &err);
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_PTR_NULL(err);
    container_writer_free(w);
    uint32_t count = 0;
    CU_ASSERT_TRUE(container_pool_count(pool, &count, &err));
    CU_ASSERT_EQUAL(count, CONTAINERS);
    uint8_t *got = g_malloc(CSIZE);
    for (ContainerId id = 0; id < CONTAINERS; id++) {
        CU_ASSERT_TRUE(container_source_read(container_pool_source(pool), id, got, &err));
        CU_ASSERT_EQUAL(memcmp(got, bufs[id], CSIZE), 0);
        g_aligned_free(bufs[id]);
    }
    g_free(got);
    container_pool_close(pool);
    remove_pool(dir, path);
}

/* A pool opened read-only refuses every write: the first wait says so, and
 * so does every wait after it (a job must not read a later wait's TRUE as
 * "written"). */
static void test_failed_write_reported_by_every_wait(void)
{
    char *dir, *path = pool_path(&dir);
    GError *err = NULL;
    ContainerPool *pool = container_pool_open(path, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    container_pool_close(pool);
    pool = container_pool_open(path, CSIZE, FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    ContainerWriter *w = container_writer_new(pool, DEPTH);
    uint8_t *a = container_for(0), *b = container_for(1);
    container_writer_submit(w, 0, a);
    container_writer_submit(w, 1, b);
    CU_ASSERT_FALSE(container_writer_wait(w, 0, &err));
    CU_ASSERT_PTR_NOT_NULL(err);
    g_clear_error(&err);
    CU_ASSERT_FALSE(container_writer_wait(w, 0, &err));
    CU_ASSERT_PTR_NOT_NULL(err);
    g_clear_error(&err);
    container_writer_free(w);
    uint32_t count = 1;
    CU_ASSERT_TRUE(container_pool_count(pool, &count, &err));
    CU_ASSERT_EQUAL(count, 0);
    g_aligned_free(a);
    g_aligned_free(b);
    container_pool_close(pool);
    remove_pool(dir, path);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("container writer", NULL, NULL);
    CU_add_test(s, "a ring of writes in flight", test_ring_of_writes);
    CU_add_test(s, "a failed write is reported by every wait", test_failed_write_reported_by_every_wait);
}

UNIT_MAIN(add_suites)
