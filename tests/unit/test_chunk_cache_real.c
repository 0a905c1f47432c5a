/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_cache_real.c: the chunk cache in real mode (the chunk log in
 * a scratch directory) over real containers built in memory behind a
 * ContainerSource that serves them: a chunk whose stored bytes are not its
 * fingerprint's (the container lists one fingerprint for other bytes) is
 * served as the store holds it but never cached, and its refusal is
 * counted in put_mismatched, not as an SSD write error (nor is it
 * offered: offers_mismatched); the chunks whose bytes are right are cached
 * and come back from the SSD byte for byte. */
#include "cache/chunk/chunk_cache.h"
#include "storage/container.h"
#include "util/error.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <string.h>

#define CSIZE (256u * 1024)
#define CHUNKS 8
#define CHUNK_LEN 8192

typedef struct {
    ContainerSource source;
    uint8_t *container; /* container 0 */
} TestSource;

static gboolean test_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    TestSource *t = (TestSource *)self;
    if (id != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "container %u: past the end", id);
        return FALSE;
    }
    memcpy(buf, t->container, CSIZE);
    return TRUE;
}

static void chunk_bytes(int i, uint8_t *data)
{
    for (int k = 0; k < CHUNK_LEN; k++)
        data[k] = (uint8_t)(i * 131 + k * 7 + (k >> 8));
}

/* Container 0 of CHUNKS chunks (refs); chunk `bad` is listed under the
 * fingerprint of other bytes than those stored. */
static void build(TestSource *t, ChunkRef refs[CHUNKS], int bad)
{
    *t = (TestSource){ .source = { .read = test_read, .container_size = CSIZE } };
    t->container = g_malloc0(CSIZE);
    ContainerBuilder b;
    container_builder_init(&b, t->container, CSIZE, 0);
    for (int i = 0; i < CHUNKS; i++) {
        uint8_t data[CHUNK_LEN];
        chunk_bytes(i == bad ? 1000 + i : i, data);
        fingerprint_compute(FP_SHA1, data, sizeof data, &refs[i].fp);
        chunk_bytes(i, data);
        refs[i].container = 0;
        refs[i].length = CHUNK_LEN;
        refs[i].offset = container_builder_add(&b, &refs[i].fp, data, sizeof data);
    }
    container_builder_seal(&b, FP_SHA1);
}

static ChunkCache *open_real(TestSource *t, const char *dir)
{
    ChunkCacheOptions o;
    memset(&o, 0, sizeof o);
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup("lru", &o.policy));
    o.capacity_bytes = 4u << 20;
    o.avg_chunk_size = CHUNK_LEN;
    o.container_size = CSIZE;
    o.fetch = CHUNK_FETCH_CONTAINER;
    o.mode = CACHE_MODE_REAL;
    device_model_params_default(&o.device);
    o.ssd_tbw_bytes = 1;
    o.directory = dir;
    memset(o.store_id, 7, sizeof o.store_id);
    o.fp_alg = FP_SHA1;
    o.backing = &t->source;
    o.segment_size = 64u * 1024;
    o.layout = CHUNK_LAYOUT_LOG;
    GError *err = NULL;
    ChunkCache *c = chunk_cache_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static void read_all(ChunkCache *c, const ChunkRef refs[CHUNKS])
{
    chunk_cache_request_begin(c, 0);
    for (int i = 0; i < CHUNKS; i++) {
        uint8_t got[CHUNK_LEN], want[CHUNK_LEN];
        ChunkCachePosition p = { (uint64_t)i + 1, 0, CHUNK_LEN };
        GError *err = NULL;
        CU_ASSERT_TRUE(chunk_cache_read(c, &refs[i], &p, got, &err));
        chunk_bytes(i, want);
        CU_ASSERT_EQUAL(memcmp(got, want, CHUNK_LEN), 0); /* as the store holds it */
        g_clear_error(&err);
    }
    chunk_cache_request_end(c);
}

/* The mismatched chunk is refused at the put, counted in put_mismatched;
 * the others are cached and hit the second time. */
static void test_put_mismatched(void)
{
    enum { BAD = 3 };
    TestSource t;
    ChunkRef refs[CHUNKS];
    build(&t, refs, BAD);
    char *dir = g_build_filename(tmpdir, "mismatch", NULL);
    ChunkCache *c = open_real(&t, dir);
    read_all(c, refs); /* the first miss offers the container's other chunks */
    ChunkCacheReport first, r;
    chunk_cache_report(c, &first);
    CU_ASSERT_EQUAL(first.c.offers_mismatched, 1);
    read_all(c, refs);
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.put_mismatched, 2); /* each of its two misses */
    CU_ASSERT_EQUAL(r.c.ssd_write_errors, 0);
    CU_ASSERT_EQUAL(r.c.hits - first.c.hits, CHUNKS - 1);
    CU_ASSERT_EQUAL(r.c.misses - first.c.misses, 1);
    CU_ASSERT_FALSE(chunk_cache_contains(c, &refs[BAD].fp));
    CU_ASSERT_TRUE(chunk_cache_contains(c, &refs[BAD + 1].fp));
    CU_ASSERT_TRUE(chunk_cache_close(c, NULL));
    g_free(t.container);
    g_free(dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk cache, real mode", make_tmp, remove_tmp);
    CU_add_test(s, "a put of mismatched bytes: put_mismatched", test_put_mismatched);
}

UNIT_MAIN(add_suites)
