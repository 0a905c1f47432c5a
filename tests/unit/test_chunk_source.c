/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_source.c: the chunk-level read seam over containers
 * (src/read/container_chunks.c), on real containers built in memory behind
 * a ContainerSource that serves them, counting its reads: a chunk comes back
 * as its recipe names it; chunks of one container cost one read; a recipe
 * naming another chunk, or bytes outside the container, is a mismatch; a
 * source that fails is an error, not a mismatch; a stale copy is read again
 * from the origin (the reread op) and served when the origin holds the
 * chunk; touch on an ids-only source moves no bytes; chunks stored back to
 * back come as one run, which stops before a chunk its recipe misnames. */
#include "read/container_chunks.h"
#include "storage/container.h"
#include "util/error.h"
#include "unit.h"

#include <string.h>

#define CSIZE (128u * 1024)
#define CHUNKS 3
#define CHUNK_LEN 1000

typedef struct {
    ContainerSource source;
    uint8_t *good, *stale; /* the store's container 0, and a copy of other bytes */
    gboolean serve_stale, fail;
    unsigned reads, rereads;
} TestSource;

static gboolean test_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    TestSource *t = (TestSource *)self;
    t->reads++;
    if (t->fail || id != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "read container %u: test failure", id);
        return FALSE;
    }
    if (buf != NULL)
        memcpy(buf, t->serve_stale ? t->stale : t->good, CSIZE);
    return TRUE;
}

static gboolean test_reread(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    TestSource *t = (TestSource *)self;
    t->rereads++;
    t->serve_stale = FALSE;
    return test_read(self, id, buf, err);
}

static void build(uint8_t *buf, uint8_t seed, ChunkRef refs[CHUNKS])
{
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, 0);
    for (int i = 0; i < CHUNKS; i++) {
        uint8_t data[CHUNK_LEN];
        memset(data, seed + i, sizeof data);
        fingerprint_compute(FP_SHA1, data, sizeof data, &refs[i].fp);
        refs[i].container = 0;
        refs[i].length = CHUNK_LEN;
        refs[i].offset = container_builder_add(&b, &refs[i].fp, data, sizeof data);
    }
    container_builder_seal(&b, FP_SHA1);
}

/* The store's container (chunks of bytes 1, 2, 3: refs) and a stale copy
 * of others (other), and a chunk source of 4 containers over them. */
static ChunkSource *fixture(TestSource *t, ChunkRef refs[CHUNKS], ChunkRef other[CHUNKS])
{
    *t = (TestSource){ .source = { test_read, CSIZE, test_reread, NULL } };
    t->good = g_malloc0(CSIZE);
    t->stale = g_malloc0(CSIZE);
    build(t->good, 1, refs);
    build(t->stale, 100, other);
    return container_chunks_new(&t->source, 4);
}

static void test_reads_checks_and_rereads(void)
{
    TestSource t;
    ChunkRef refs[CHUNKS], other[CHUNKS];
    ChunkSource *cs = fixture(&t, refs, other);
    GError *mismatch = NULL, *err = NULL;

    for (int i = 0; i < CHUNKS; i++) {
        const uint8_t *p = chunk_source_read(cs, &refs[i], &mismatch, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL(p[0], 1 + i);
        CU_ASSERT_EQUAL(p[CHUNK_LEN - 1], 1 + i);
    }
    CU_ASSERT_EQUAL(chunk_source_fetches(cs), 1); /* one container, read once */

    ChunkRef wrong = refs[1];
    wrong.fp = other[1].fp;
    CU_ASSERT_PTR_NULL(chunk_source_read(cs, &wrong, &mismatch, &err));
    CU_ASSERT_PTR_NOT_NULL(mismatch);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(t.rereads, 1); /* the origin was asked before it counted as damage */
    g_clear_error(&mismatch);
    ChunkRef outside = refs[0];
    outside.offset = CSIZE - 10;
    CU_ASSERT_PTR_NULL(chunk_source_read(cs, &outside, &mismatch, &err));
    CU_ASSERT_TRUE(g_error_matches(mismatch, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&mismatch);

    /* a stale copy: the origin's own bytes are asked for and served */
    chunk_source_clear(cs);
    t.serve_stale = TRUE;
    const uint8_t *p = chunk_source_read(cs, &refs[2], &mismatch, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p[0], 3);
    CU_ASSERT_EQUAL(t.rereads, 2);

    /* a source that fails: an error, not a mismatch */
    chunk_source_clear(cs);
    t.fail = TRUE;
    CU_ASSERT_PTR_NULL(chunk_source_read(cs, &refs[0], &mismatch, &err));
    CU_ASSERT_PTR_NULL(mismatch);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_IO));
    g_clear_error(&err);
    chunk_source_free(cs);

    /* ids only: touch reaches the source once per container, with no bytes */
    t.fail = FALSE;
    unsigned before = t.reads;
    cs = container_chunks_new_ids_only(&t.source, 4);
    for (int i = 0; i < CHUNKS; i++)
        CU_ASSERT_TRUE(chunk_source_touch(cs, &refs[i], NULL));
    CU_ASSERT_EQUAL(t.reads - before, 1);
    CU_ASSERT_EQUAL(chunk_source_fetches(cs), 1);
    chunk_source_free(cs);
    g_free(t.good);
    g_free(t.stale);
}

/* Runs: chunks stored back to back come in one piece (the container's
 * bytes in a row); a run stops before a chunk the container does not hold
 * as the recipe names it, which then reads alone as a mismatch; a run
 * never goes past max. */
static void test_runs(void)
{
    TestSource t;
    ChunkRef refs[CHUNKS], other[CHUNKS];
    ChunkSource *cs = fixture(&t, refs, other);
    GError *mismatch = NULL, *err = NULL;
    guint n = 0;
    const uint8_t *p = chunk_source_read_run(cs, refs, CHUNKS, &n, &mismatch, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(n, CHUNKS);
    CU_ASSERT_TRUE(p[0] == 1 && p[CHUNK_LEN] == 2 && p[CHUNKS * CHUNK_LEN - 1] == CHUNKS);
    CU_ASSERT_TRUE(chunk_source_read_run(cs, refs, 2, &n, &mismatch, &err) != NULL && n == 2);

    ChunkRef forged[CHUNKS] = { refs[0], refs[1], refs[2] };
    forged[1].fp = other[1].fp;
    CU_ASSERT_TRUE(chunk_source_read_run(cs, forged, CHUNKS, &n, &mismatch, &err) != NULL && n == 1);
    CU_ASSERT_PTR_NULL(chunk_source_read_run(cs, forged + 1, CHUNKS - 1, &n, &mismatch, &err));
    CU_ASSERT_TRUE(g_error_matches(mismatch, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    CU_ASSERT_PTR_NULL(err);
    g_clear_error(&mismatch);
    ChunkRef apart[2] = { refs[0], refs[2] }; /* not back to back */
    CU_ASSERT_TRUE(chunk_source_read_run(cs, apart, 2, &n, &mismatch, &err) != NULL && n == 1);
    chunk_source_free(cs);
    g_free(t.good);
    g_free(t.stale);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_source", NULL, NULL);
    CU_add_test(s, "reads, checks and rereads", test_reads_checks_and_rereads);
    CU_add_test(s, "runs of chunks stored back to back", test_runs);
}

UNIT_MAIN(add_suites)
