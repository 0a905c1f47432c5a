/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_container_writer.c: the container writer (src/storage/container_writer.c)
 * with several writes in flight: every submitted container lands in its
 * slot whatever the waits in between, a wait for "at most n left" returns
 * only once the older ones are written, and a failed write is reported by
 * every later wait and stops the writes queued after it. */
#include "storage/container.h"
#include "storage/container_store.h"
#include "storage/container_writer.h"
#include "util/error.h"
#include "unit.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

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
    ContainerStore *pool = container_store_open(CONTAINER_STORE_POOL, dir, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    ContainerWriter *w = container_writer_new(pool, DEPTH);
    uint8_t *bufs[CONTAINERS];
    uint8_t *got = g_malloc(CSIZE);
    guint unfinished = 0;
    gboolean ok = TRUE;
    for (ContainerId id = 0; id < CONTAINERS; id++) {
        if (unfinished == DEPTH) { /* the oldest must be written before a fourth goes out */
            ok &= container_writer_wait(w, --unfinished, &err);
            ContainerId oldest = id - DEPTH;
            CU_ASSERT_TRUE(container_source_read(container_store_source(pool), oldest, got, &err));
            CU_ASSERT_EQUAL(memcmp(got, bufs[oldest], CSIZE), 0);
        }
        bufs[id] = container_for(id);
        container_writer_submit(w, id, bufs[id]);
        unfinished++;
    }
    ok &= container_writer_wait(w, 0, &err);
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_PTR_NULL(err);
    container_writer_free(w);
    uint32_t count = 0;
    CU_ASSERT_TRUE(container_store_count(pool, &count, &err));
    CU_ASSERT_EQUAL(count, CONTAINERS);
    for (ContainerId id = 0; id < CONTAINERS; id++) {
        CU_ASSERT_TRUE(container_source_read(container_store_source(pool), id, got, &err));
        CU_ASSERT_EQUAL(memcmp(got, bufs[id], CSIZE), 0);
        g_aligned_free(bufs[id]);
    }
    g_free(got);
    container_store_close(pool);
    remove_pool(dir, path);
}

/* A write that fails (past a file-size limit of two containers: EFBIG)
 * is reported by every wait after it (a job must not read a later wait's
 * TRUE as "written"), and the write queued after it, which would succeed,
 * is dropped: the pool never holds a container written after a failed one. */
static void test_failed_write_stops_the_rest(void)
{
    char *dir, *path = pool_path(&dir);
    GError *err = NULL;
    ContainerStore *pool = container_store_open(CONTAINER_STORE_POOL, dir, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    uint8_t *past_limit = container_for(2), *first = container_for(0);
    struct rlimit saved, limit;
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &saved), 0);
    limit = saved;
    limit.rlim_cur = 2 * CSIZE;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &limit), 0);
    ContainerWriter *w = container_writer_new(pool, DEPTH);
    container_writer_submit(w, 2, past_limit);
    container_writer_submit(w, 0, first);
    gboolean first_wait = container_writer_wait(w, 0, &err);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    CU_ASSERT_FALSE(first_wait);
    CU_ASSERT_PTR_NOT_NULL(err);
    g_clear_error(&err);
    CU_ASSERT_FALSE(container_writer_wait(w, 0, &err));
    CU_ASSERT_PTR_NOT_NULL(err);
    g_clear_error(&err);
    container_writer_free(w);
    GStatBuf st;
    CU_ASSERT_EQUAL(g_stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, 0); /* container 0 was not written */
    g_aligned_free(past_limit);
    g_aligned_free(first);
    container_store_close(pool);
    remove_pool(dir, path);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("container writer", NULL, NULL);
    CU_add_test(s, "a ring of writes in flight", test_ring_of_writes);
    CU_add_test(s, "a failed write is reported by every wait, the rest dropped", test_failed_write_stops_the_rest);
}

UNIT_MAIN(add_suites)
