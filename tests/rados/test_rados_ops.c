/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_rados_ops.c: the `rados` container store's ops against a real
 * cluster (run by rados_ops.sh, which starts one and names it in
 * CEPH_CONF and RADOS_POOL): write, count, read, stamp, a container never
 * overwritten (and a store that failed a write writing nothing more), free
 * and live (what garbage collection joins through), the writer's lock (a
 * second writer refused, a reader not, renewed past its duration, released
 * on close; its expiry is rados_errors.sh's), the namespace's claim, and a
 * missing pool or conf; and the range read of one chunk (chunk_read.h):
 * one rados_read of the chunk's bytes at its offset, checked against its
 * fingerprint. */
#include "storage/chunk_read.h"
#include "storage/container.h"
#include "storage/container_store.h"
#include "util/error.h"
#include "unit.h"

#include <string.h>
#include <unistd.h>

#define CSIZE (128u * 1024)

static ContainerStoreRados target(const char *ns)
{
    return (ContainerStoreRados){ .conf = getenv("CEPH_CONF"), .pool = getenv("RADOS_POOL"), .ns = ns,
                                  .timeout = 10, .lock_duration = 3 };
}

static ContainerStore *open_ns(const char *ns, gboolean writable, GError **err)
{
    ContainerStoreRados t = target(ns);
    return container_store_open_at(CONTAINER_STORE_RADOS, NULL, &t, CSIZE, writable, err);
}

static uint8_t *build(ContainerId id)
{
    uint8_t *buf = g_malloc(CSIZE);
    uint8_t data[3000];
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, id);
    for (int i = 0; i < 5; i++) {
        memset(data, (int)(id * 7 + (ContainerId)i), sizeof data);
        Fingerprint fp;
        fingerprint_compute(FP_SHA1, data, sizeof data, &fp);
        container_builder_add(&b, &fp, data, sizeof data);
    }
    container_builder_seal(&b, FP_SHA1);
    return buf;
}

static void expect_error(GError **err, int code)
{
    CU_ASSERT_TRUE(*err != NULL && (*err)->code == code);
    g_clear_error(err);
}

static gboolean is_live(ContainerStore *cs, ContainerId id)
{
    gboolean live = TRUE;
    GError *err = NULL;
    CU_ASSERT_TRUE(container_store_live(cs, id, &live, &err));
    return live;
}

static uint32_t count_of(ContainerStore *cs)
{
    uint32_t count = 0;
    GError *err = NULL;
    CU_ASSERT_TRUE(container_store_count(cs, &count, &err));
    return count;
}

static void test_write_read_free(void)
{
    GError *err = NULL;
    ContainerStore *cs = open_ns("ops", TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_EQUAL(count_of(cs), 0);
    for (ContainerId id = 0; id < 3; id++) {
        uint8_t *buf = build(id);
        CU_ASSERT_TRUE(container_store_write(cs, id, buf, &err));
        g_free(buf);
    }
    CU_ASSERT_TRUE(container_store_sync(cs, &err));
    CU_ASSERT_EQUAL(count_of(cs), 3);
    ContainerSource *src = container_store_source(cs);
    uint8_t *buf = g_malloc(CSIZE);
    CU_ASSERT_TRUE(container_source_read(src, 1, buf, &err));
    CU_ASSERT_EQUAL(container_id_of(buf), 1);
    uint32_t stamp = 0;
    CU_ASSERT_TRUE(src->stamp(src, 1, &stamp, &err));
    CU_ASSERT_EQUAL(stamp, container_stamp(buf, CSIZE));
    /* each chunk by its range alone, as the container's metadata places it */
    for (uint32_t i = 0; i < container_chunk_count(buf); i++) {
        Fingerprint fp;
        uint32_t off, len;
        container_chunk_entry(buf, CSIZE, i, &fp, &off, &len);
        uint8_t *chunk = g_malloc(len);
        ChunkReadCost cost = { 0, 0 };
        CU_ASSERT_TRUE(chunk_read(src, 1, off, len, FP_SHA1, &fp, chunk, &cost, &err));
        CU_ASSERT(memcmp(chunk, buf + off, len) == 0);
        CU_ASSERT(cost.reads == 1 && cost.bytes_read == len);
        fp.bytes[0] ^= 1; /* not this chunk: damage, never its bytes */
        CU_ASSERT_FALSE(chunk_read(src, 1, off, len, FP_SHA1, &fp, chunk, NULL, &err));
        expect_error(&err, DESTOR_ERROR_INTEGRITY);
        g_free(chunk);
    }
    uint8_t small[16];
    Fingerprint none = { { 0 } };
    CU_ASSERT_FALSE(src->read_range(src, 1, CSIZE - 8, 16, small, &err)); /* past the container's end */
    expect_error(&err, DESTOR_ERROR_USAGE);
    CU_ASSERT_FALSE(chunk_read(src, 7, 64, 16, FP_SHA1, &none, small, NULL, &err)); /* no such container */
    expect_error(&err, DESTOR_ERROR_INTEGRITY);
    /* Never overwritten: a second write of id 1 is refused (by the write, or
     * the sync after it, as writes are asynchronous), the object kept; the
     * store writes nothing more. */
    uint8_t *other = build(2);
    CU_ASSERT_FALSE(container_store_write(cs, 1, other, &err) && container_store_sync(cs, &err));
    expect_error(&err, DESTOR_ERROR_LOCKED);
    CU_ASSERT_FALSE(container_store_write(cs, 3, other, &err));
    expect_error(&err, DESTOR_ERROR_LOCKED);
    g_free(other);
    CU_ASSERT_TRUE(container_source_read(src, 1, buf, &err));
    CU_ASSERT_EQUAL(container_id_of(buf), 1);
    CU_ASSERT_FALSE(container_source_read(src, 3, buf, &err));
    expect_error(&err, DESTOR_ERROR_INTEGRITY);
    /* free: not live, not readable, neighbours untouched, the count kept
     * (the newest container emptied, not removed). */
    CU_ASSERT_TRUE(is_live(cs, 0) && is_live(cs, 2));
    CU_ASSERT_FALSE(is_live(cs, 7));
    CU_ASSERT_TRUE(container_store_free(cs, 0, &err));
    CU_ASSERT_TRUE(container_store_free(cs, 2, &err));
    CU_ASSERT_FALSE(is_live(cs, 0) || is_live(cs, 2));
    CU_ASSERT_TRUE(is_live(cs, 1));
    CU_ASSERT_EQUAL(count_of(cs), 3);
    CU_ASSERT_FALSE(container_source_read(src, 0, buf, &err));
    expect_error(&err, DESTOR_ERROR_INTEGRITY);
    CU_ASSERT_FALSE(container_source_read(src, 2, buf, &err));
    expect_error(&err, DESTOR_ERROR_INTEGRITY);
    CU_ASSERT_FALSE(src->read_range(src, 2, 64, 100, buf, &err)); /* freed: an empty object */
    expect_error(&err, DESTOR_ERROR_INTEGRITY);
    CU_ASSERT_FALSE(container_store_free(cs, 0, &err));
    expect_error(&err, DESTOR_ERROR_INTEGRITY);
    CU_ASSERT_TRUE(container_source_read(src, 1, buf, &err));
    g_free(buf);
    container_store_close(cs);
}

/* One writer: a second is refused while the first holds the lock (readers
 * are not), and gets it once the first closes. */
static void test_one_writer(void)
{
    GError *err = NULL;
    ContainerStore *first = open_ns("lock", TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_PTR_NULL(open_ns("lock", TRUE, &err));
    expect_error(&err, DESTOR_ERROR_LOCKED);
    ContainerStore *reader = open_ns("lock", FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL(reader);
    container_store_close(reader);
    /* Held past its duration: the renewals keep it. */
    sleep(4);
    CU_ASSERT_TRUE(container_store_sync(first, &err));
    CU_ASSERT_PTR_NULL(open_ns("lock", TRUE, &err));
    expect_error(&err, DESTOR_ERROR_LOCKED);
    container_store_close(first);
    ContainerStore *second = open_ns("lock", TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL(second);
    container_store_close(second);
}

/* The namespace is one store's: the identity recorded by the first writer;
 * another identity is refused to writers and readers, and no identity to
 * readers; an identity without containers may be taken over. */
static void test_claim(void)
{
    GError *err = NULL;
    const uint8_t a[16] = { 1 }, b[16] = { 2 };
    ContainerStore *cs = open_ns("claim", TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_TRUE(container_store_claim(cs, a, sizeof a, TRUE, &err));
    CU_ASSERT_TRUE(container_store_claim(cs, b, sizeof b, TRUE, &err)); /* no container yet */
    uint8_t *buf = build(0);
    CU_ASSERT_TRUE(container_store_write(cs, 0, buf, &err));
    g_free(buf);
    CU_ASSERT_TRUE(container_store_claim(cs, b, sizeof b, TRUE, &err));
    CU_ASSERT_FALSE(container_store_claim(cs, a, sizeof a, TRUE, &err));
    expect_error(&err, DESTOR_ERROR_CONFIG);
    container_store_close(cs);
    cs = open_ns("claim", FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_TRUE(container_store_claim(cs, b, sizeof b, FALSE, &err));
    CU_ASSERT_FALSE(container_store_claim(cs, a, sizeof a, FALSE, &err));
    expect_error(&err, DESTOR_ERROR_CONFIG);
    container_store_close(cs);
    /* A reader of a namespace no store claimed (a store claims it before
     * its store.meta exists): the wrong namespace, or one lost. */
    cs = open_ns("unclaimed", FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_FALSE(container_store_claim(cs, a, sizeof a, FALSE, &err));
    expect_error(&err, DESTOR_ERROR_CONFIG);
    container_store_close(cs);
}

static void test_bad_target(void)
{
    GError *err = NULL;
    ContainerStoreRados t = target("x");
    t.pool = "no-such-pool";
    CU_ASSERT_PTR_NULL(container_store_open_at(CONTAINER_STORE_RADOS, NULL, &t, CSIZE, FALSE, &err));
    expect_error(&err, DESTOR_ERROR_CONFIG);
    t = target("x");
    t.conf = "/nonexistent/ceph.conf";
    CU_ASSERT_PTR_NULL(container_store_open_at(CONTAINER_STORE_RADOS, NULL, &t, CSIZE, FALSE, &err));
    expect_error(&err, DESTOR_ERROR_CONFIG);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("rados_ops", NULL, NULL);
    CU_add_test(s, "write, read, never overwritten, free and live", test_write_read_free);
    CU_add_test(s, "one writer", test_one_writer);
    CU_add_test(s, "the namespace's claim", test_claim);
    CU_add_test(s, "missing pool or conf", test_bad_target);
}

UNIT_MAIN(add_suites)
