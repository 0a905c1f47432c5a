/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_rewrite_policy.c: each rewrite rule of rewrite_policy.c on small
 * segments whose right answer is worked out by hand: capping keeps the
 * level's most used containers, CFL acts only below its requirement and on
 * hardly used containers, CBR stays within its limit, HAR rewrites the
 * sparse containers whatever the algorithm, and nothing placed already
 * (a repeat, a new chunk) is ever rewritten. */
#include "backup/rewrite_policy.h"
#include "unit.h"

#define KIB 1024u
#define CONTAINER (100 * KIB)

static RewriteConfig config(RewriteAlgorithm a)
{
    RewriteConfig rc;
    rewrite_config_init(&rc);
    rc.algorithm = a;
    return rc;
}

/* n items of `len` bytes in container c */
static guint put(RewriteItem *items, guint at, guint n, ContainerId c, uint32_t len)
{
    for (guint i = 0; i < n; i++)
        items[at + i] = (RewriteItem){ .container = c, .length = len };
    return at + n;
}

static guint rewritten_in(const RewriteItem *items, guint n, ContainerId c)
{
    guint k = 0;
    for (guint i = 0; i < n; i++)
        k += items[i].container == c && items[i].rewrite;
    return k;
}

static void test_capping(void)
{
    RewriteConfig rc = config(REWRITE_CAPPING);
    rc.capping_level = 2;
    RewritePolicy p;
    rewrite_policy_init(&p, &rc, CONTAINER, NULL, 30);
    RewriteItem items[16];
    guint n = put(items, 0, 5, 7, KIB);     /* container 7: 5 KiB */
    n = put(items, n, 1, 3, KIB);           /* container 3: 1 KiB, the least */
    n = put(items, n, 4, 9, KIB);           /* container 9: 4 KiB */
    n = put(items, n, 2, 4, KIB);           /* container 4: 2 KiB */
    n = put(items, n, 3, REWRITE_NOT_STORED, KIB); /* new chunks */
    items[n] = (RewriteItem){ .container = REWRITE_NOT_STORED, .length = KIB, .repeat = TRUE };
    n++;
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 7), 0);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 9), 0);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 4), 2);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 3), 1);
    for (guint i = 12; i < n; i++)
        CU_ASSERT_FALSE(items[i].rewrite);
    CU_ASSERT_EQUAL(p.rewritten_bytes, 3 * KIB);
    CU_ASSERT_EQUAL(p.bytes, 16 * KIB);
    CU_ASSERT_EQUAL(p.stored_bytes, 6 * KIB); /* 3 new + 3 rewritten; the repeat is placed */
    CU_ASSERT_EQUAL(g_hash_table_size(p.referenced), 2);
    /* ties keep the older container */
    n = put(items, 0, 2, 20, KIB);
    n = put(items, n, 2, 10, KIB);
    rc.capping_level = 1;
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 10), 0);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 20), 2);
    rewrite_policy_clear(&p);
}

static void test_cfl(void)
{
    RewriteConfig rc = config(REWRITE_CFL);
    rc.cfl_require = 0.6;
    rc.cfl_usage_threshold = 0.05; /* 5 KiB of a 100 KiB container */
    RewritePolicy p;
    rewrite_policy_init(&p, &rc, CONTAINER, NULL, 30);
    RewriteItem items[64];
    /* 40 KiB spread over 8 containers: CFL is 1/8 once decided, but the
     * first segment sees an empty job (CFL 1) and rewrites nothing */
    guint n = 0;
    for (ContainerId c = 0; c < 8; c++)
        n = put(items, n, 5, c, KIB);
    rewrite_policy_decide(&p, items, n);
    for (guint i = 0; i < n; i++)
        CU_ASSERT_FALSE(items[i].rewrite);
    CU_ASSERT_DOUBLE_EQUAL(rewrite_policy_cfl(&p), 1.0 / 8.0, 1e-9);
    /* now fragmented: containers with under 5 KiB in the segment go */
    n = put(items, 0, 4, 30, KIB);
    n = put(items, n, 6, 31, KIB);
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 30), 4);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 31), 0);
    rewrite_policy_clear(&p);
}

static void test_cbr_limit(void)
{
    RewriteConfig rc = config(REWRITE_CBR);
    rc.cbr_limit = 0.25;
    rc.cbr_minimal_utility = 0.5;
    RewritePolicy p;
    rewrite_policy_init(&p, &rc, CONTAINER, NULL, 30);
    RewriteItem items[128];
    guint n = put(items, 0, 60, 1, KIB);   /* utility 0.4: never */
    n = put(items, n, 20, 2, KIB);         /* utility 0.8 */
    n = put(items, n, 10, 3, KIB);         /* utility 0.9: first */
    n = put(items, n, 10, REWRITE_NOT_STORED, KIB);
    rewrite_policy_decide(&p, items, n);   /* budget: 25 KiB of 100 */
    CU_ASSERT_EQUAL(rewritten_in(items, n, 1), 0);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 3), 10);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 2), 15);
    CU_ASSERT_EQUAL(p.rewritten_bytes, 25 * KIB);
    CU_ASSERT_TRUE(p.rewritten_bytes <= rc.cbr_limit * p.bytes);
    rewrite_policy_clear(&p);
}

static void test_har_and_switch(void)
{
    RewriteConfig rc = config(REWRITE_NO);
    rc.har = TRUE;
    GHashTable *sparse = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_hash_table_add(sparse, GUINT_TO_POINTER(5));
    g_hash_table_add(sparse, GUINT_TO_POINTER(0)); /* id 0 is a key like any other */
    RewritePolicy p;
    rewrite_policy_init(&p, &rc, CONTAINER, sparse, 30);
    RewriteItem items[16];
    guint n = put(items, 0, 3, 5, KIB);
    n = put(items, n, 2, 0, KIB);
    n = put(items, n, 4, 6, KIB);
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 5), 3);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 0), 2);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 6), 0);
    rewrite_policy_clear(&p);

    /* the CFL switch: capping acts only while the job's CFL is low */
    rc = config(REWRITE_CAPPING);
    rc.capping_level = 1;
    rc.cfl_switch = TRUE;
    rc.cfl_require = 0.6;
    rewrite_policy_init(&p, &rc, CONTAINER, NULL, 30);
    n = put(items, 0, 2, 1, KIB);
    n = put(items, n, 1, 2, KIB);
    rewrite_policy_decide(&p, items, n); /* empty job: CFL 1, off */
    CU_ASSERT_EQUAL(rewritten_in(items, n, 2), 0);
    rewrite_policy_decide(&p, items, n); /* CFL 1/2 now: on */
    CU_ASSERT_EQUAL(rewritten_in(items, n, 2), 1);
    rewrite_policy_clear(&p);
}

/* The cache-aware filter keeps what the restore cache would hold anyway. */
static void test_cache_aware(void)
{
    RewriteConfig rc = config(REWRITE_NO);
    rc.har = TRUE;
    rc.cache_aware = TRUE;
    GHashTable *sparse = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_hash_table_add(sparse, GUINT_TO_POINTER(5));
    RewritePolicy p;
    rewrite_policy_init(&p, &rc, CONTAINER, sparse, 2); /* a restore cache of 2 containers */
    RewriteItem items[16];
    guint n = put(items, 0, 1, 7, KIB);    /* 7 kept: in the cache */
    n = put(items, n, 1, 5, KIB);          /* 5: rewritten (not in the cache yet) */
    n = put(items, n, 1, 7, KIB);
    n = put(items, n, 1, 5, KIB);          /* 5 again: still not read, still rewritten */
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 5), 2); /* rewritten, so never read: never held */
    rewrite_policy_clear(&p);

    /* capping: container 2 is read in one segment and capped in the next,
     * while the restore cache still holds it: kept */
    rc = config(REWRITE_CAPPING);
    rc.capping_level = 1;
    rc.cache_aware = TRUE;
    rewrite_policy_init(&p, &rc, CONTAINER, NULL, 4);
    n = put(items, 0, 3, 2, KIB);
    n = put(items, n, 1, 1, KIB);          /* capped, rewritten: 1 is not held */
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 1), 1);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 2), 0);
    n = put(items, 0, 3, 3, KIB);
    n = put(items, n, 1, 2, KIB);          /* capped, but 2 is held: kept */
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 2), 0);
    rewrite_policy_clear(&p);
    /* the same without the filter rewrites it */
    rc.cache_aware = FALSE;
    rewrite_policy_init(&p, &rc, CONTAINER, NULL, 4);
    n = put(items, 0, 3, 2, KIB);
    n = put(items, n, 1, 1, KIB);
    rewrite_policy_decide(&p, items, n);
    n = put(items, 0, 3, 3, KIB);
    n = put(items, n, 1, 2, KIB);
    rewrite_policy_decide(&p, items, n);
    CU_ASSERT_EQUAL(rewritten_in(items, n, 2), 1);
    rewrite_policy_clear(&p);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("rewrite_policy", NULL, NULL);
    CU_add_test(s, "capping keeps the most used containers", test_capping);
    CU_add_test(s, "cfl acts below its requirement", test_cfl);
    CU_add_test(s, "cbr within its limit", test_cbr_limit);
    CU_add_test(s, "har and the cfl switch", test_har_and_switch);
    CU_add_test(s, "cache-aware filter", test_cache_aware);
}

UNIT_MAIN(add_suites)
