/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_read.c: the chunk miss path's range read (container_source.h
 * read_range, storage/chunk_read.h) on the pool and files stores: each
 * chunk comes back as written in one read of its own bytes; a damaged
 * chunk, a wrong fingerprint, a missing container and a range outside the
 * container are errors of the documented kinds; a source without a range
 * read falls back to the whole container. */
#include "storage/chunk_read.h"
#include "storage/container.h"
#include "storage/container_store.h"
#include "util/error.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define CSIZE (128u * 1024u)
#define N_CONTAINERS 3u
#define PER 9u

typedef struct {
    Fingerprint fp;
    ContainerId id;
    uint32_t offset, len;
    uint8_t *bytes;
} Written;

static Written chunks[N_CONTAINERS * PER];

/* Three containers of nine random chunks each, in a new store of `kind`. */
static ContainerStore *make_store(ContainerStoreKind kind, const char *name)
{
    char *dir = g_build_filename(tmpdir, name, NULL);
    g_mkdir_with_parents(dir, 0755);
    GError *err = NULL;
    ContainerStore *cs = container_store_open(kind, dir, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    GRand *r = g_rand_new_with_seed(11 + kind);
    uint8_t *buf = g_malloc(CSIZE);
    for (ContainerId id = 0; id < N_CONTAINERS; id++) {
        ContainerBuilder b;
        container_builder_init(&b, buf, CSIZE, id);
        for (uint32_t i = 0; i < PER; i++) {
            Written *w = &chunks[id * PER + i];
            g_free(w->bytes);
            w->len = (uint32_t)g_rand_int_range(r, 1, 12000);
            w->bytes = g_malloc(w->len);
            for (uint32_t k = 0; k < w->len; k++)
                w->bytes[k] = (uint8_t)g_rand_int(r);
            fingerprint_compute(FP_SHA1, w->bytes, w->len, &w->fp);
            CU_ASSERT_TRUE_FATAL(container_builder_fits(&b, w->len));
            w->id = id;
            w->offset = container_builder_add(&b, &w->fp, w->bytes, w->len);
        }
        container_builder_seal(&b, FP_SHA1);
        CU_ASSERT_TRUE(container_store_write(cs, id, buf, &err));
    }
    CU_ASSERT_TRUE(container_store_sync(cs, &err));
    g_clear_error(&err);
    g_free(buf);
    g_rand_free(r);
    g_free(dir);
    return cs;
}

static void flip_byte(ContainerStoreKind kind, const char *name, ContainerId id, uint32_t offset)
{
    char *path = kind == CONTAINER_STORE_POOL
                     ? g_build_filename(tmpdir, name, "containers.pool", NULL)
                     : g_strdup_printf("%s/%s/containers/%06x/%08x", tmpdir, name, id >> 8, id);
    off_t at = kind == CONTAINER_STORE_POOL ? (off_t)id * CSIZE + offset : (off_t)offset;
    int fd = open(path, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    uint8_t b;
    CU_ASSERT_EQUAL(pread(fd, &b, 1, at), 1);
    b ^= 0x01;
    CU_ASSERT_EQUAL(pwrite(fd, &b, 1, at), 1);
    close(fd);
    g_free(path);
}

/* A source that reads whole containers only (no range read). */
typedef struct {
    ContainerSource source;
    ContainerSource *inner;
} WholeOnly;

static gboolean whole_only_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    return container_source_read(((WholeOnly *)self)->inner, id, buf, err);
}

static void check_kind(ContainerStoreKind kind, const char *name)
{
    ContainerStore *cs = make_store(kind, name);
    ContainerSource *src = container_store_source(cs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src->read_range);
    uint8_t *buf = g_malloc(CSIZE);
    GError *err = NULL;
    for (uint32_t i = 0; i < N_CONTAINERS * PER; i++) {
        Written *w = &chunks[i];
        ChunkReadCost cost = {0, 0};
        memset(buf, 0, CSIZE);
        CU_ASSERT_TRUE(chunk_read(src, w->id, w->offset, w->len, FP_SHA1, &w->fp, buf, &cost, &err));
        CU_ASSERT(memcmp(buf, w->bytes, w->len) == 0);
        CU_ASSERT_EQUAL(cost.reads, 1);
        CU_ASSERT_EQUAL(cost.bytes_read, w->len); /* the chunk's bytes, not the container */
        g_clear_error(&err);
    }
    /* the whole-container fallback gives the same bytes at a container's cost */
    WholeOnly whole = {.source = {.read = whole_only_read, .container_size = CSIZE}, .inner = src};
    Written *w = &chunks[PER + 4];
    ChunkReadCost cost = {0, 0};
    CU_ASSERT_TRUE(chunk_read(&whole.source, w->id, w->offset, w->len, FP_SHA1, &w->fp, buf, &cost, &err));
    CU_ASSERT(memcmp(buf, w->bytes, w->len) == 0);
    CU_ASSERT_EQUAL(cost.bytes_read, CSIZE);

    /* another chunk's fingerprint: damage, never those bytes */
    CU_ASSERT_FALSE(chunk_read(src, w->id, w->offset, w->len, FP_SHA1, &chunks[0].fp, buf, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    /* a range outside the container */
    CU_ASSERT_FALSE(chunk_read(src, 0, CSIZE - 10, 11, FP_SHA1, &w->fp, buf, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
    CU_ASSERT_FALSE(chunk_read(src, 0, 10, 11, FP_SHA1, &w->fp, buf, NULL, &err)); /* in the header */
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
    /* a container that does not exist */
    CU_ASSERT_FALSE(chunk_read(src, N_CONTAINERS + 5, w->offset, w->len, FP_SHA1, &w->fp, buf, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    /* a flipped byte inside the chunk: damage on the range path and the whole path */
    flip_byte(kind, name, w->id, w->offset + w->len / 2);
    CU_ASSERT_FALSE(chunk_read(src, w->id, w->offset, w->len, FP_SHA1, &w->fp, buf, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    CU_ASSERT_FALSE(chunk_read(&whole.source, w->id, w->offset, w->len, FP_SHA1, &w->fp, buf, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    /* its neighbours are still served */
    Written *n = &chunks[PER + 5];
    CU_ASSERT_TRUE(chunk_read(src, n->id, n->offset, n->len, FP_SHA1, &n->fp, buf, NULL, &err));
    CU_ASSERT(memcmp(buf, n->bytes, n->len) == 0);
    g_clear_error(&err);
    g_free(buf);
    container_store_close(cs);
}

static void test_pool(void)
{
    check_kind(CONTAINER_STORE_POOL, "pool");
}

static void test_files(void)
{
    check_kind(CONTAINER_STORE_FILES, "files");
}

static int cleanup(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(chunks); i++)
        g_free(chunks[i].bytes);
    return remove_tmp();
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_read", make_tmp, cleanup);
    CU_add_test(s, "pool store", test_pool);
    CU_add_test(s, "files store", test_files);
}

UNIT_MAIN(add_suites)
