/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_cache_readers.c: several threads reading through one chunk
 * cache in real mode (the chunk log in a scratch directory, smaller than
 * what they read, so that they admit, and the log reclaims, under each other), each
 * with a reader of its own (chunk_cache_reader_new): every byte as the
 * store holds it, every access and request counted once (also with each
 * request read ahead, the waits for its SSD reads made without the
 * cache's lock); one reader of its
 * own decides exactly as chunk_cache_read does; and two readers' store
 * reads of chunks the cache does not hold run at the same time. */
#include "cache/chunk/chunk_cache.h"
#include "storage/container.h"
#include "util/error.h"
#include "unit.h"
#include "unit_tmpdir.h"
#include "chunk_cache_real_options.h"

#include <string.h>

#define CSIZE (256u * 1024)
#define CONTAINERS 12
#define PER_CONTAINER 24
#define CHUNK_LEN 8192
#define CHUNKS (CONTAINERS * PER_CONTAINER)
#define THREADS 8

typedef struct {
    ContainerSource source;
    uint8_t *containers[CONTAINERS];
    /* the overlap test: a read waits (a while at most) for `want` reads
     * to be inside at once; the most seen inside */
    GMutex lock;
    GCond cond;
    guint inside, most, want;
} TestSource;

static gboolean test_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    TestSource *t = (TestSource *)self;
    if (id >= CONTAINERS) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "container %u: past the end", id);
        return FALSE;
    }
    g_mutex_lock(&t->lock);
    t->inside++;
    t->most = MAX(t->most, t->inside);
    g_cond_broadcast(&t->cond);
    gint64 until = g_get_monotonic_time() + 5 * G_TIME_SPAN_SECOND;
    while (t->inside < t->want && g_cond_wait_until(&t->cond, &t->lock, until))
        ;
    g_mutex_unlock(&t->lock);
    memcpy(buf, t->containers[id], CSIZE);
    g_mutex_lock(&t->lock);
    t->inside--;
    g_mutex_unlock(&t->lock);
    return TRUE;
}

static void chunk_bytes(int i, uint8_t *data)
{
    for (int k = 0; k < CHUNK_LEN; k++)
        data[k] = (uint8_t)(i * 131 + k * 7 + (k >> 8) + (k >> 11) * i);
}

static void build(TestSource *t, ChunkRef refs[CHUNKS])
{
    memset(t, 0, sizeof *t);
    t->source = (ContainerSource){ .read = test_read, .container_size = CSIZE };
    g_mutex_init(&t->lock);
    g_cond_init(&t->cond);
    for (int c = 0; c < CONTAINERS; c++) {
        t->containers[c] = g_malloc0(CSIZE);
        ContainerBuilder b;
        container_builder_init(&b, t->containers[c], CSIZE, (ContainerId)c);
        for (int j = 0; j < PER_CONTAINER; j++) {
            int i = c * PER_CONTAINER + j;
            uint8_t data[CHUNK_LEN];
            chunk_bytes(i, data);
            fingerprint_compute(FP_SHA1, data, sizeof data, &refs[i].fp);
            refs[i].container = (ContainerId)c;
            refs[i].length = CHUNK_LEN;
            refs[i].offset = container_builder_add(&b, &refs[i].fp, data, sizeof data);
        }
        container_builder_seal(&b, FP_SHA1);
    }
}

static void source_free(TestSource *t)
{
    for (int c = 0; c < CONTAINERS; c++)
        g_free(t->containers[c]);
    g_cond_clear(&t->cond);
    g_mutex_clear(&t->lock);
}

static ChunkCache *open_real(TestSource *t, const char *dir, ChunkFetch fetch)
{
    ChunkCacheOptions o;
    chunk_cache_real_options(&o, &t->source, dir, 1u << 20 /* under half of what is read */, fetch, CHUNK_LEN);
    GError *err = NULL;
    ChunkCache *c = chunk_cache_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

#define REQUESTS 40
#define REQUEST_CHUNKS 16

/* Request q of a stream seeded `seed`: REQUEST_CHUNKS chunk numbers, runs
 * of neighbours from a skewed start (some hit, some miss). */
static void request_chunks(guint32 seed, int q, int out[REQUEST_CHUNKS])
{
    GRand *g = g_rand_new_with_seed(seed * 7919u + (guint32)q);
    int at = g_rand_int_range(g, 0, 4) == 0 ? g_rand_int_range(g, 0, CHUNKS) : g_rand_int_range(g, 0, CHUNKS / 4);
    for (int k = 0; k < REQUEST_CHUNKS; k++) {
        if (g_rand_int_range(g, 0, 5) == 0)
            at = g_rand_int_range(g, 0, CHUNKS);
        out[k] = at;
        at = (at + 1) % CHUNKS;
    }
    g_rand_free(g);
}

typedef struct {
    ChunkCache *cache;
    const ChunkRef *refs;
    guint32 seed;
    ChunkCacheReader *reader; /* NULL: chunk_cache_read */
    guint bad;                /* bytes not as the store holds them, or failed reads */
    gboolean ahead;           /* each request's chunks announced first (chunk_cache_read_ahead) and read
                                 through chunk_cache_reader_read_buf, as the mount's file_output does */
} Stream;

/* The stream's requests, each chunk compared with its bytes. */
static gpointer run_stream(gpointer p)
{
    Stream *s = p;
    uint8_t got[CHUNK_LEN], want[CHUNK_LEN];
    ChunkCacheBuf buf = { NULL, 0 };
    for (int q = 0; q < REQUESTS; q++) {
        int ids[REQUEST_CHUNKS];
        request_chunks(s->seed, q, ids);
        if (s->ahead) {
            ChunkRef announced[REQUEST_CHUNKS];
            for (int k = 0; k < REQUEST_CHUNKS; k++)
                announced[k] = s->refs[ids[k]];
            chunk_cache_read_ahead(s->cache, announced, REQUEST_CHUNKS);
        }
        if (s->reader)
            chunk_cache_reader_request_begin(s->reader, 0);
        else
            chunk_cache_request_begin(s->cache, 0);
        for (int k = 0; k < REQUEST_CHUNKS; k++) {
            ChunkCachePosition pos = { (uint64_t)s->seed << 32 | (uint64_t)(q * REQUEST_CHUNKS + k), 0, CHUNK_LEN };
            GError *err = NULL;
            gboolean ok;
            const uint8_t *bytes = got;
            if (s->ahead) {
                ok = chunk_cache_reader_read_buf(s->reader, &s->refs[ids[k]], &pos, &buf, &err);
                bytes = buf.data;
            } else {
                ok = s->reader ? chunk_cache_reader_read(s->reader, &s->refs[ids[k]], &pos, got, &err)
                               : chunk_cache_read(s->cache, &s->refs[ids[k]], &pos, got, &err);
            }
            chunk_bytes(ids[k], want);
            if (!ok || memcmp(bytes, want, CHUNK_LEN) != 0)
                s->bad++;
            g_clear_error(&err);
        }
        if (s->reader)
            chunk_cache_reader_request_end(s->reader);
        else
            chunk_cache_request_end(s->cache);
    }
    g_free(buf.data);
    return NULL;
}

/* THREADS readers at once: every byte right, every access and request
 * counted once, hits and misses both seen, the log never damaged. */
static void concurrent(ChunkFetch fetch, gboolean ahead, const char *name)
{
    TestSource t;
    ChunkRef refs[CHUNKS];
    build(&t, refs);
    char *dir = g_build_filename(tmpdir, name, NULL);
    ChunkCache *c = open_real(&t, dir, fetch);
    Stream streams[THREADS];
    GThread *th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        streams[i] = (Stream){ c, refs, (guint32)i + 1, chunk_cache_reader_new(c), 0, ahead };
        th[i] = g_thread_new("reader", run_stream, &streams[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        g_thread_join(th[i]);
        CU_ASSERT_EQUAL(streams[i].bad, 0);
        chunk_cache_reader_free(streams[i].reader);
    }
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.requests, THREADS * REQUESTS);
    CU_ASSERT_EQUAL(r.c.accesses, THREADS * REQUESTS * REQUEST_CHUNKS);
    CU_ASSERT_EQUAL(r.c.hits + r.c.misses, r.c.accesses);
    CU_ASSERT(r.c.hits > 0 && r.c.misses > 0 && r.c.log_dropped + r.c.evictions > 0); /* the log's reclaim drops */
    CU_ASSERT_EQUAL(r.c.damaged, 0);
    CU_ASSERT_TRUE(chunk_cache_close(c, NULL));
    /* what the threads left behind reads back right after a reopen */
    c = open_real(&t, dir, fetch);
    Stream again = { c, refs, 99, NULL, 0, FALSE };
    run_stream(&again);
    CU_ASSERT_EQUAL(again.bad, 0);
    CU_ASSERT_TRUE(chunk_cache_close(c, NULL));
    source_free(&t);
    g_free(dir);
}

static void test_concurrent_chunk(void)
{
    concurrent(CHUNK_FETCH_CHUNK, FALSE, "conc-chunk");
}

static void test_concurrent_container(void)
{
    concurrent(CHUNK_FETCH_CONTAINER, FALSE, "conc-container");
}

/* Each request announced first: the threads wait for their read-ahead
 * batches without the cache's lock, take the buffers read ahead, and put
 * (which waits for every batch being read) under each other. */
static void test_concurrent_ahead(void)
{
    concurrent(CHUNK_FETCH_CONTAINER, TRUE, "conc-ahead");
}

/* One reader of its own makes chunk_cache_read's decisions: the same
 * stream through each, on two caches alike, ends in the same counts and
 * the same modelled request times. */
static void test_one_reader_agrees(void)
{
    TestSource t;
    ChunkRef refs[CHUNKS];
    build(&t, refs);
    char *da = g_build_filename(tmpdir, "agree-a", NULL), *db = g_build_filename(tmpdir, "agree-b", NULL);
    ChunkCache *a = open_real(&t, da, CHUNK_FETCH_CONTAINER), *b = open_real(&t, db, CHUNK_FETCH_CONTAINER);
    Stream sa = { a, refs, 5, NULL, 0 }, sb = { b, refs, 5, chunk_cache_reader_new(b), 0 };
    run_stream(&sa);
    run_stream(&sb);
    chunk_cache_reader_free(sb.reader);
    CU_ASSERT_EQUAL(sa.bad + sb.bad, 0);
    ChunkCacheReport ra, rb;
    chunk_cache_report(a, &ra);
    chunk_cache_report(b, &rb);
    CU_ASSERT_EQUAL(ra.c.requests, rb.c.requests);
    CU_ASSERT_EQUAL(ra.c.requests_hit, rb.c.requests_hit);
    CU_ASSERT_EQUAL(ra.c.hits, rb.c.hits);
    CU_ASSERT_EQUAL(ra.c.misses, rb.c.misses);
    CU_ASSERT_EQUAL(ra.c.admissions, rb.c.admissions);
    CU_ASSERT_EQUAL(ra.c.evictions, rb.c.evictions);
    CU_ASSERT_EQUAL(ra.c.hdd_reads, rb.c.hdd_reads);
    CU_ASSERT_EQUAL(ra.c.offers_admitted, rb.c.offers_admitted);
    CU_ASSERT_DOUBLE_EQUAL(ra.c.model_request_s, rb.c.model_request_s, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ra.c.model_request_max_s, rb.c.model_request_max_s, 1e-9);
    CU_ASSERT(ra.c.misses > 0 && ra.c.hits > 0);
    CU_ASSERT_TRUE(chunk_cache_close(a, NULL));
    CU_ASSERT_TRUE(chunk_cache_close(b, NULL));
    source_free(&t);
    g_free(da);
    g_free(db);
}

/* Two readers missing chunks the cache does not hold read the store at
 * the same time: each store read waits for the other to come in (5 s at
 * most), which it never could while one held the cache's lock. */
static gpointer one_miss(gpointer p)
{
    Stream *s = p;
    uint8_t got[CHUNK_LEN], want[CHUNK_LEN];
    ChunkCachePosition pos = { s->seed, 0, CHUNK_LEN };
    const ChunkRef *ref = &s->refs[(s->seed - 1) * PER_CONTAINER]; /* a container each */
    chunk_cache_reader_request_begin(s->reader, 0);
    GError *err = NULL;
    gboolean ok = chunk_cache_reader_read(s->reader, ref, &pos, got, &err);
    chunk_cache_reader_request_end(s->reader);
    chunk_bytes((int)(s->seed - 1) * PER_CONTAINER, want);
    if (!ok || memcmp(got, want, CHUNK_LEN) != 0)
        s->bad++;
    g_clear_error(&err);
    return NULL;
}

static void test_misses_overlap(void)
{
    TestSource t;
    ChunkRef refs[CHUNKS];
    build(&t, refs);
    char *dir = g_build_filename(tmpdir, "overlap", NULL);
    ChunkCache *c = open_real(&t, dir, CHUNK_FETCH_CONTAINER);
    t.want = 2;
    Stream s[2];
    GThread *th[2];
    for (int i = 0; i < 2; i++) {
        s[i] = (Stream){ c, refs, (guint32)i + 1, chunk_cache_reader_new(c), 0 };
        th[i] = g_thread_new("miss", one_miss, &s[i]);
    }
    for (int i = 0; i < 2; i++) {
        g_thread_join(th[i]);
        CU_ASSERT_EQUAL(s[i].bad, 0);
        chunk_cache_reader_free(s[i].reader);
    }
    CU_ASSERT_EQUAL(t.most, 2);
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.misses, 2);
    CU_ASSERT_EQUAL(r.c.requests, 2);
    CU_ASSERT_TRUE(chunk_cache_close(c, NULL));
    source_free(&t);
    g_free(dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk cache, readers of their own", make_tmp, remove_tmp);
    CU_add_test(s, "8 threads, fetch chunk: bytes and counts", test_concurrent_chunk);
    CU_add_test(s, "8 threads, fetch container: bytes and counts", test_concurrent_container);
    CU_add_test(s, "8 threads reading ahead: bytes and counts", test_concurrent_ahead);
    CU_add_test(s, "one reader decides as chunk_cache_read", test_one_reader_agrees);
    CU_add_test(s, "two misses read the store at once", test_misses_overlap);
}

UNIT_MAIN(add_suites)
