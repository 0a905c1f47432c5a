/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_policy_wlfu.c: wlfu (src/cache/policies/container/wlfu.c) by hand on a short
 * sequence that exercises every branch of its admission (free slot, more
 * frequent, a tie with and without a ghost hit, a ghost entry pushed out),
 * its memory within 8 bytes per stored container at caches of 20% and 10%,
 * and a scan that is never written once the cache holds containers read
 * twice. The decision-by-decision check against the Python model is
 * tests/policy_ref/check_reference.py; saved state is covered for every
 * policy by test_cache_core's split restart. */
#include "unit.h"
#include "test_cache_util.h"

typedef struct {
    TestEnv e;
    CachePolicySettings *settings;
    void *st;
} Run;

static void run_open(Run *r, uint32_t capacity, uint32_t n, const char *const *keys)
{
    r->settings = cache_policy_settings_new();
    for (size_t i = 0; keys && keys[i] != NULL; i += 2)
        test_set(r->settings, keys[i], keys[i + 1]);
    test_env_init(&r->e, test_policy("wlfu"), r->settings, capacity, n, ACCESS_COUNTS_EXACT);
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

/* C = 2 (a ghost list of 1 id), 8 containers, counts never aged. Comments:
 * the count a of the miss, the victim and its recorded count b. */
static void test_by_hand(void)
{
    static const uint32_t seq[] = {
        1, 2, /* free slots */
        3,    /* a 1, victim 1 (b 1, older than 2): a tie, no ghost hit: refused, ghost [3] */
        3,    /* a 2 > b 1: replaces 1 */
        4,    /* a 1, victim 2 (b 1): refused, ghost [4] */
        5,    /* refused, ghost [5]: 4 pushed out */
        4,    /* a 2 > b 1: replaces 2 (a ghost miss, not needed) */
        5,    /* a 2, victim 3 (b 2, older than 4): a tie with a ghost hit: replaces 3 */
        6,    /* a 1 < 2: refused, ghost [6] */
        6,    /* a tie with a ghost hit: replaces 4 (older than 5) */
        4,    /* a 3 > b 2: replaces 5 */
        7, 7, /* refused; then a tie with a ghost hit: replaces 6 */
        4,    /* a hit */
    };
    const char *const keys[] = { "wlfu-age-window", "0", NULL };
    Run r;
    run_open(&r, 2, 8, keys);
    GString *log = g_string_new(NULL);
    test_env_drive(&r.e, r.st, seq, 0, G_N_ELEMENTS(seq), log);
    CU_ASSERT_STRING_EQUAL(log->str, "a a r e1 r r e2 e3 r e4 e5 r e6 h ");
    CU_ASSERT_EQUAL(counter(&r, "admitted_tie_ghost"), 3);
    CU_ASSERT_EQUAL(counter(&r, "refused_not_above"), 5);
    CU_ASSERT_EQUAL(counter(&r, "ghost_hits"), 4);
    CU_ASSERT_EQUAL(counter(&r, "agings"), 0);
    g_string_free(log, TRUE);
    run_close(&r);
}

static void test_memory_per_container(void)
{
    const uint32_t stores[] = { 1000, 1226, 1294, 1300, 10000, 1000000 };
    for (size_t i = 0; i < G_N_ELEMENTS(stores); i++) {
        for (uint32_t share = 10; share <= 20; share += 10) {
            Run r;
            uint32_t n = stores[i], cap = n / 100 * share;
            run_open(&r, cap, n, NULL);
            double per = (double)r.e.ops->memory(r.st) / n;
            if (per > 8.0)
                fprintf(stderr, "\nwlfu: %.2f B per container at n %u, C %u\n", per, n, cap);
            CU_ASSERT(per <= 8.0);
            run_close(&r);
        }
    }
}

/* 50 containers read twice each fill a cache of 50; then 5,000 others, read
 * once each, are all refused (count 1 against 2), the newest 25 of them
 * remembered: nothing more is written and the hot set stays. */
static void test_scan_is_not_written(void)
{
    enum { C = 50, SCAN = 5000 };
    uint32_t n = C + SCAN;
    uint32_t *seq = g_new(uint32_t, 2 * C + SCAN + C);
    size_t len = 0;
    for (uint32_t i = 0; i < 2 * C; i++)
        seq[len++] = i % C;
    for (uint32_t i = 0; i < SCAN; i++)
        seq[len++] = C + i;
    for (uint32_t i = 0; i < C; i++)
        seq[len++] = i;
    Run r;
    run_open(&r, C, n, NULL);
    GString *log = g_string_new(NULL);
    test_env_drive(&r.e, r.st, seq, 0, len, log);
    size_t hits = 0, writes = 0;
    for (const char *p = log->str; *p; p++)
        if (p == log->str || p[-1] == ' ') {
            hits += *p == 'h';
            writes += *p == 'a' || *p == 'e';
        }
    CU_ASSERT_EQUAL(writes, C);
    CU_ASSERT_EQUAL(hits, 2 * C);
    CU_ASSERT_EQUAL(counter(&r, "refused_not_above"), SCAN);
    g_string_free(log, TRUE);
    g_free(seq);
    run_close(&r);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("wlfu", NULL, NULL);
    CU_add_test(s, "every admission branch by hand", test_by_hand);
    CU_add_test(s, "memory <= 8 B per stored container at 20% and 10%", test_memory_per_container);
    CU_add_test(s, "a scan is never written", test_scan_is_not_written);
}

UNIT_MAIN(add_suites)
