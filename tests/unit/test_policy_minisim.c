/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_policy_minisim.c: the invariants of minisim (src/cache/policies/
 * minisim.c) that its reference model does not state: its memory stays
 * within 8 bytes per stored container at caches of 20% and 10%, its
 * sample is the share of containers its definition says, a scan writes
 * only the first fill, on a workload where only recency pays it follows
 * the recency rule and beats its own frequency candidate (wlfu), and on a
 * stationary Zipf workload it decides as wlfu does. The
 * decision-by-decision check against the Python model is
 * tests/policy_ref/check_reference.py. */
#include "unit.h"
#include "test_cache_util.h"

/* minisim alone over n containers and `capacity` slots, keys as "key",
 * "value" pairs (NULL-terminated, or NULL). */
typedef struct {
    TestEnv e;
    CachePolicySettings *settings;
    void *st;
} Run;

static void run_open(Run *r, const char *policy, uint32_t capacity, uint32_t n, const char *const *keys)
{
    r->settings = cache_policy_settings_new();
    for (size_t i = 0; keys && keys[i] != NULL; i += 2)
        test_set(r->settings, keys[i], keys[i + 1]);
    test_env_init(&r->e, test_policy(policy), r->settings, capacity, n, ACCESS_COUNTS_EXACT);
    r->st = test_env_create(&r->e);
}

static void run_close(Run *r)
{
    r->e.ops->destroy(r->st);
    test_env_free(&r->e);
    cache_policy_settings_free(r->settings);
}

static uint64_t counter(const Run *r, const char *name)
{
    for (size_t i = 0; i < r->e.ops->n_counters; i++)
        if (strcmp(r->e.ops->counters[i].name, name) == 0)
            return r->e.counters[i];
    CU_FAIL_FATAL("no such counter");
    return 0;
}

/* Hits and admissions in a driver log. */
static void tally(const GString *log, size_t *hits, size_t *writes)
{
    *hits = *writes = 0;
    for (const char *p = log->str; *p; p++)
        if (p == log->str || p[-1] == ' ') {
            *hits += *p == 'h';
            *writes += *p == 'a' || *p == 'e';
        }
}

static void test_memory_per_container(void)
{
    const uint32_t stores[] = { 1000, 1226, 1294, 1300, 10000, 1000000 };
    for (size_t i = 0; i < G_N_ELEMENTS(stores); i++) {
        for (uint32_t share = 10; share <= 20; share += 10) {
            Run r;
            uint32_t n = stores[i], cap = n / 100 * share;
            run_open(&r, "minisim", cap, n, NULL);
            double per = (double)r.e.ops->memory(r.st) / n;
            if (per > 8.0)
                fprintf(stderr, "\nminisim: %.2f B per container at n %u, C %u\n", per, n, cap);
            CU_ASSERT(per <= 8.0);
            run_close(&r);
        }
    }
}

/* Uniform accesses over 100,000 containers, C 500: m / C = 6.4% of the
 * containers are sampled, so about as many of the accesses. */
static void test_sample_share(void)
{
    Run r;
    uint32_t n = 100000;
    run_open(&r, "minisim", 500, n, NULL);
    uint32_t *seq = g_new(uint32_t, 200000);
    uint64_t st = 7;
    for (size_t i = 0; i < 200000; i++)
        seq[i] = (uint32_t)(test_rand(&st) % n);
    test_env_drive(&r.e, r.st, seq, 0, 200000, NULL);
    double share = (double)counter(&r, "sampled_accesses") / 200000;
    CU_ASSERT(share > 0.058 && share < 0.070);
    g_free(seq);
    run_close(&r);
}

/* Every container read once: mini R admits every miss and scores -1 each,
 * mini F only its first fill (a newcomer of count 1 ties a victim of count
 * 1 without a ghost hit), so D < 0 once R's writes exceed F's, the rule
 * stays F, and the real cache writes its first fill of C and no more. */
static void test_scan_writes_only_the_fill(void)
{
    Run r;
    uint32_t n = 5000;
    run_open(&r, "minisim", 100, n, NULL);
    uint32_t *seq = g_new(uint32_t, n);
    for (uint32_t i = 0; i < n; i++)
        seq[i] = i;
    GString *log = g_string_new(NULL);
    test_env_drive(&r.e, r.st, seq, 0, n, log);
    size_t hits, writes;
    tally(log, &hits, &writes);
    CU_ASSERT_EQUAL(hits, 0);
    CU_ASSERT_EQUAL(writes, 100);
    CU_ASSERT_EQUAL(counter(&r, "switches"), 0);
    CU_ASSERT_EQUAL(counter(&r, "misses_by_recency"), 0);
    CU_ASSERT_EQUAL(counter(&r, "refused_not_above"), n - 100);
    g_string_free(log, TRUE);
    g_free(seq);
    run_close(&r);
}

/* A sliding working set: access i reads one of the 40 containers
 * [i / 20, i / 20 + 40), so every container is read for a while and then
 * never again, and old containers carry larger counts than the current
 * ones. C 32 (every container sampled): F keeps the old ones (a newcomer
 * is seldom above them), R keeps the recent ones. */
static uint32_t *sliding(size_t len)
{
    uint32_t *seq = g_new(uint32_t, len);
    uint64_t st = 11;
    for (size_t i = 0; i < len; i++)
        seq[i] = (uint32_t)(i / 20 + test_rand(&st) % 40);
    return seq;
}

static void test_recency_workload_follows_recency(void)
{
    const size_t len = 40000;
    uint32_t n = len / 20 + 40;
    uint32_t *seq = sliding(len);
    size_t hits[2], writes[2];
    const char *policies[2] = { "minisim", "wlfu" };
    for (int p = 0; p < 2; p++) {
        Run r;
        run_open(&r, policies[p], 32, n, NULL);
        GString *log = g_string_new(NULL);
        test_env_drive(&r.e, r.st, seq, 0, len, log);
        tally(log, &hits[p], &writes[p]);
        if (p == 0) {
            CU_ASSERT(counter(&r, "switches") >= 1);
            CU_ASSERT(counter(&r, "misses_by_recency") > counter(&r, "refused_not_above"));
        }
        g_string_free(log, TRUE);
        run_close(&r);
    }
    CU_ASSERT(hits[0] > hits[1] + len / 10);
    g_free(seq);
}

/* A write price of 1000: R's writes outweigh any hits, so on the same
 * sliding workload minisim stays with F (fewer writes than at price 1). */
static void test_write_price_steers(void)
{
    const size_t len = 40000;
    uint32_t n = len / 20 + 40;
    uint32_t *seq = sliding(len);
    const char *dear[] = { "minisim-write-price", "1000", NULL };
    Run r;
    run_open(&r, "minisim", 32, n, dear);
    test_env_drive(&r.e, r.st, seq, 0, len, NULL);
    CU_ASSERT(counter(&r, "misses_by_recency") < len / 20);
    run_close(&r);
    g_free(seq);
}

/* A stationary skewed workload (test_trace: density ~ x^-2/3) over 2,000
 * containers, C 200: F, wlfu, scores far above LRU (R) at a write price of
 * 1, so minisim follows F throughout and its every decision is wlfu's. */
static void test_stationary_decides_as_wlfu(void)
{
    const size_t len = 60000;
    uint32_t n = 2000;
    uint32_t *seq = test_trace(5, n, len);
    GString *log[2];
    const char *policies[2] = { "minisim", "wlfu" };
    for (int p = 0; p < 2; p++) {
        Run r;
        run_open(&r, policies[p], 200, n, NULL);
        log[p] = g_string_new(NULL);
        test_env_drive(&r.e, r.st, seq, 0, len, log[p]);
        if (p == 0)
            CU_ASSERT_EQUAL(counter(&r, "misses_by_recency"), 0);
        run_close(&r);
    }
    CU_ASSERT_STRING_EQUAL(log[0]->str, log[1]->str);
    g_string_free(log[0], TRUE);
    g_string_free(log[1], TRUE);
    g_free(seq);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("minisim", NULL, NULL);
    CU_add_test(s, "memory <= 8 B per stored container at 20% and 10%", test_memory_per_container);
    CU_add_test(s, "sample share m / C", test_sample_share);
    CU_add_test(s, "a scan writes only the first fill", test_scan_writes_only_the_fill);
    CU_add_test(s, "recency workload: follows R, beats wlfu", test_recency_workload_follows_recency);
    CU_add_test(s, "write price steers to F", test_write_price_steers);
    CU_add_test(s, "stationary skewed workload: decides as wlfu", test_stationary_decides_as_wlfu);
}

UNIT_MAIN(add_suites)
