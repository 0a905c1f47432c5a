/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache_reader.c: cache readers (cache_reader.h): requests of
 * several readers that overlap each count as one, with the modelled
 * latency of their own accesses and the decisions of the same accesses
 * made one at a time; readers in threads at once lose no count. */
#include "cache/container/cache_reader.h"
#include "test_cache_util.h"
#include "unit.h"

static void access_through(CacheReader *r, ContainerId id)
{
    GError *err = NULL;
    CU_ASSERT_TRUE(container_source_read(cache_reader_source(r), id, NULL, &err));
    g_clear_error(&err);
}

/* One request of the cache's own of the accesses ids[0..n): its model. */
static double own_request(CacheCore *c, const ContainerId *ids, size_t n)
{
    cache_core_request_begin(c, 0);
    test_run(c, ids, n);
    return cache_core_request_end(c);
}

static void test_overlapping_requests(void)
{
    CacheCore *c = test_sim_open(test_policy("lru"), NULL, 4, 10, NULL);
    CacheCore *ref = test_sim_open(test_policy("lru"), NULL, 4, 10, NULL);
    CacheReader *a = cache_reader_new(c), *b = cache_reader_new(c);
    /* a: 1 (miss) ... 1 (hit); b, inside a's: 2 (miss); then b again: 1, 2 (hits) */
    cache_reader_request_begin(a);
    cache_reader_request_begin(b);
    access_through(a, 1);
    access_through(b, 2);
    access_through(a, 1);
    double mb = cache_reader_request_end(b);
    cache_reader_request_begin(b);
    access_through(b, 1);
    access_through(b, 2);
    double mb2 = cache_reader_request_end(b);
    double ma = cache_reader_request_end(a);
    /* the same accesses in the same order, a request each as they fell */
    const ContainerId one = 1, two = 2, both[] = { 1, 2 };
    double r1 = own_request(ref, &one, 1), r2 = own_request(ref, &two, 1), r3 = own_request(ref, &one, 1);
    double r4 = own_request(ref, both, 2);
    CU_ASSERT_DOUBLE_EQUAL(ma, r1 + r3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mb, r2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mb2, r4, 1e-12);
    const CacheCounters *k = cache_core_counters(c), *kr = cache_core_counters(ref);
    CU_ASSERT_EQUAL(k->requests, 3);
    CU_ASSERT_EQUAL(k->requests_hit, 1); /* b's second: a missed, b's first missed */
    CU_ASSERT_EQUAL(k->accesses, 5);
    CU_ASSERT_EQUAL(k->hits, kr->hits);
    CU_ASSERT_EQUAL(k->misses, kr->misses);
    CU_ASSERT_EQUAL(k->admissions, kr->admissions);
    CU_ASSERT_DOUBLE_EQUAL(k->model_request_s, ma + mb + mb2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(k->model_access_s, kr->model_access_s, 1e-12);
    /* the cache's own bracket is not the readers' */
    cache_core_request_begin(c, 0);
    access_through(a, 3);
    CU_ASSERT_DOUBLE_EQUAL(cache_core_request_end(c), 0.0, 0.0);
    CU_ASSERT_EQUAL(cache_core_counters(c)->requests, 4);
    cache_reader_free(a);
    cache_reader_free(b);
    cache_core_close(c, NULL);
    cache_core_close(ref, NULL);
}

#define THREADS 4
#define REQUESTS 400

typedef struct {
    CacheCore *c;
    uint64_t seed;
    uint64_t accesses;
} Worker;

static gpointer work(gpointer p)
{
    Worker *w = p;
    CacheReader *r = cache_reader_new(w->c);
    for (int i = 0; i < REQUESTS; i++) {
        cache_reader_request_begin(r);
        uint64_t n = 1 + test_rand(&w->seed) % 3;
        for (uint64_t k = 0; k < n; k++)
            access_through(r, (ContainerId)(test_rand(&w->seed) % 40));
        w->accesses += n;
        cache_reader_request_end(r);
    }
    cache_reader_free(r);
    return NULL;
}

static void test_readers_in_threads(void)
{
    CacheCore *c = test_sim_open(test_policy("lru"), NULL, 8, 40, NULL);
    Worker w[THREADS];
    GThread *t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (Worker){ .c = c, .seed = 77 + (uint64_t)i };
        t[i] = g_thread_new("reader", work, &w[i]);
    }
    uint64_t accesses = 0;
    for (int i = 0; i < THREADS; i++) {
        g_thread_join(t[i]);
        accesses += w[i].accesses;
    }
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->requests, (uint64_t)THREADS * REQUESTS);
    CU_ASSERT_EQUAL(k->accesses, accesses);
    CU_ASSERT_EQUAL(k->hits + k->misses, accesses);
    CU_ASSERT(k->requests_hit <= k->requests);
    CU_ASSERT(cache_core_cached(c) <= cache_core_capacity(c));
    cache_core_close(c, NULL);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("cache reader", NULL, NULL);
    CU_add_test(s, "overlapping requests count as one each", test_overlapping_requests);
    CU_add_test(s, "readers in threads at once", test_readers_in_threads);
}

UNIT_MAIN(add_suites)
