/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_access_counts.c: the cache's store-wide access counts
 * (src/cache/policy/access_counts.h, `cache-counters`) and the slot map
 * (src/cache/structures/slot_map.h) on their own: the count-min sketch's width, its
 * bound (never below the count), halving, saturation, raise and clear; the
 * three modes' count, reset, aging window and memory; cache.meta's conversions
 * between modes; and the slot map against a plain array over seeded random
 * puts and removals that fill a small table to capacity. */
#include "cache/policy/access_counts.h"
#include "cache/structures/slot_map.h"
#include "test_cache_util.h"
#include "unit.h"

static void test_count_min16_width(void)
{
    const uint32_t n[] = { 0, 1, 63, 64, 127, 128, 129, 1000, 1024, 1226, UINT32_MAX };
    const uint32_t w[] = { 64, 64, 64, 64, 64, 128, 128, 512, 1024, 1024, 1u << 31 };
    for (size_t i = 0; i < G_N_ELEMENTS(n); i++)
        CU_ASSERT_EQUAL(count_min16_width(n[i]), w[i]);
}

/* Over a skewed sequence on 1000 containers (width 512: collisions are
 * certain), no estimate is ever below the true count; halving takes every
 * counter and every estimate e to floor(e / 2); a counter stops at 65535. */
static void test_count_min16_counts_and_halves(void)
{
    enum { N = 1000, LEN = 60000 };
    CountMin16 k;
    count_min16_init(&k, N);
    uint32_t *truth = g_new0(uint32_t, N);
    uint64_t rng = 42;
    unsigned below = 0, exact = 0;
    for (int i = 0; i < LEN; i++) {
        ContainerId id = test_skewed_id(&rng, N);
        truth[id]++;
        if (count_min16_add(&k, id) < truth[id])
            below++;
    }
    for (ContainerId id = 0; id < N; id++) {
        if (count_min16_estimate(&k, id) < truth[id])
            below++;
        exact += count_min16_estimate(&k, id) == truth[id];
    }
    CU_ASSERT_EQUAL(below, 0);
    CU_ASSERT(exact > 0 && exact < N); /* collisions did happen (about two ids a counter) */

    uint16_t *before = g_memdup2(k.c, count_min16_bytes(&k));
    uint32_t est[N];
    for (ContainerId id = 0; id < N; id++)
        est[id] = count_min16_estimate(&k, id);
    count_min16_halve(&k);
    for (size_t i = 0; i < count_min16_cells(&k); i++)
        CU_ASSERT_EQUAL(k.c[i], before[i] / 2);
    for (ContainerId id = 0; id < N; id++)
        CU_ASSERT_EQUAL(count_min16_estimate(&k, id), est[id] / 2);
    g_free(before);

    ContainerId hot = 7;
    for (uint32_t i = 0; i < 70000; i++)
        count_min16_add(&k, hot);
    CU_ASSERT_EQUAL(count_min16_estimate(&k, hot), COUNT_MIN16_MAX);
    CU_ASSERT_EQUAL(count_min16_add(&k, hot), COUNT_MIN16_MAX);
    g_free(truth);
    count_min16_free(&k);
}

/* raise makes the estimate at least v and leaves larger counters alone;
 * clear takes the estimate to 0 and each counter down by the same amount. */
static void test_count_min16_raise_and_clear(void)
{
    CountMin16 k;
    count_min16_init(&k, 64);
    for (int i = 0; i < 5; i++)
        count_min16_add(&k, 3);
    count_min16_raise(&k, 3, 2);
    CU_ASSERT_EQUAL(count_min16_estimate(&k, 3), 5);
    count_min16_raise(&k, 3, 9);
    CU_ASSERT_EQUAL(count_min16_estimate(&k, 3), 9);
    count_min16_raise(&k, 4, 100000);
    CU_ASSERT_EQUAL(count_min16_estimate(&k, 4), COUNT_MIN16_MAX);
    size_t i0 = count_min16_index(&k, 3, 0), i1 = count_min16_index(&k, 3, 1);
    uint16_t c0 = k.c[i0], c1 = k.c[i1];
    count_min16_clear(&k, 3);
    CU_ASSERT_EQUAL(count_min16_estimate(&k, 3), 0);
    CU_ASSERT_EQUAL(k.c[i0], c0 - 9);
    CU_ASSERT_EQUAL(k.c[i1], c1 - 9);
    count_min16_free(&k);
}

/* Every mode over the same skewed sequence with a window of W accesses:
 * exact and compact counts equal a count kept here (halved at every W-th
 * access), the sketch is never below it; count() returns TRUE exactly at
 * the agings; reset takes a count to 0. */
static void test_modes_count_age_reset(void)
{
    enum { N = 500, LEN = 20000, W = 3000 };
    uint32_t *seq = test_trace(3, N, LEN);
    AccessCounts ex, sk, co;
    access_counts_init(&ex, ACCESS_COUNTS_EXACT, N);
    access_counts_init(&sk, ACCESS_COUNTS_SKETCH, N);
    access_counts_init(&co, ACCESS_COUNTS_COMPACT, N);
    access_counts_set_window(&ex, W);
    access_counts_set_window(&sk, W);
    access_counts_set_window(&co, W);
    uint32_t *truth = g_new0(uint32_t, N);
    unsigned agings = 0, below = 0;
    for (int i = 0; i < LEN; i++) {
        truth[seq[i]]++;
        gboolean aged = (i + 1) % W == 0;
        if (aged)
            for (int k = 0; k < N; k++)
                truth[k] /= 2;
        CU_ASSERT_EQUAL(access_counts_count(&ex, seq[i]), aged);
        CU_ASSERT_EQUAL(access_counts_count(&sk, seq[i]), aged);
        CU_ASSERT_EQUAL(access_counts_count(&co, seq[i]), aged);
        agings += aged;
    }
    for (ContainerId id = 0; id < N; id++) {
        CU_ASSERT_EQUAL(access_counts_get(&ex, id), truth[id]);
        CU_ASSERT_EQUAL(access_counts_get(&co, id), truth[id]);
        below += access_counts_get(&sk, id) < truth[id];
    }
    CU_ASSERT_EQUAL(below, 0);
    CU_ASSERT_EQUAL(agings, LEN / W);
    CU_ASSERT_EQUAL(ex.since_aging, LEN % W);
    ContainerId hot = seq[0];
    CU_ASSERT(access_counts_get(&ex, hot) > 0 && access_counts_get(&sk, hot) > 0);
    access_counts_reset(&ex, hot);
    access_counts_reset(&sk, hot);
    access_counts_reset(&co, hot);
    CU_ASSERT_EQUAL(access_counts_get(&ex, hot), 0);
    CU_ASSERT_EQUAL(access_counts_get(&sk, hot), 0);
    CU_ASSERT_EQUAL(access_counts_get(&co, hot), 0);
    access_counts_set_window(&co, 0);
    for (uint32_t i = 0; i < 70000; i++)
        access_counts_count(&co, hot);
    CU_ASSERT_EQUAL(access_counts_get(&co, hot), ACCESS_COUNTS_COMPACT_MAX); /* saturated */
    access_counts_clear(&ex);
    access_counts_clear(&sk);
    access_counts_clear(&co);
    g_free(truth);
    g_free(seq);
}

/* Exact: 4 bytes a container; compact: 2. Sketch: at most 4 and more than
 * 2 from 64 containers on (the largest power of two not above n). */
static void test_memory(void)
{
    const uint32_t n[] = { 64, 100, 1000, 1226, 4096, 5000, 100000 };
    for (size_t i = 0; i < G_N_ELEMENTS(n); i++) {
        AccessCounts ex, sk;
        access_counts_init(&ex, ACCESS_COUNTS_EXACT, n[i]);
        access_counts_init(&sk, ACCESS_COUNTS_SKETCH, n[i]);
        CU_ASSERT_EQUAL(access_counts_bytes(&ex), (size_t)4 * n[i]);
        AccessCounts co;
        access_counts_init(&co, ACCESS_COUNTS_COMPACT, n[i]);
        CU_ASSERT_EQUAL(access_counts_bytes(&co), (size_t)2 * n[i]);
        access_counts_clear(&co);
        CU_ASSERT(access_counts_bytes(&sk) <= (size_t)4 * n[i]);
        CU_ASSERT(access_counts_bytes(&sk) > (size_t)2 * n[i]);
        access_counts_clear(&ex);
        access_counts_clear(&sk);
    }
}

/* What cache.meta carries back: the same mode and size as it was; exact
 * counts of another store size as far as both go; exact into a sketch and
 * a sketch into exact counts never below the saved count; a sketch of
 * another width; cells that cannot be a sketch refused. */
static void test_import(void)
{
    enum { N = 300, LEN = 5000 };
    uint32_t *seq = test_trace(9, N, LEN);
    AccessCounts ex, sk;
    access_counts_init(&ex, ACCESS_COUNTS_EXACT, N);
    access_counts_init(&sk, ACCESS_COUNTS_SKETCH, N);
    for (int i = 0; i < LEN; i++) {
        access_counts_count(&ex, seq[i]);
        access_counts_count(&sk, seq[i]);
    }
    uint32_t *ex_cells = g_new(uint32_t, access_counts_cells(&ex));
    uint32_t *sk_cells = g_new(uint32_t, access_counts_cells(&sk));
    access_counts_export(&ex, ex_cells);
    access_counts_export(&sk, sk_cells);

    AccessCounts a;
    access_counts_init(&a, ACCESS_COUNTS_SKETCH, N);
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_SKETCH, sk_cells, access_counts_cells(&sk), 7));
    CU_ASSERT_EQUAL(memcmp(a.sketch.c, sk.sketch.c, access_counts_bytes(&sk)), 0);
    CU_ASSERT_EQUAL(a.since_aging, 0); /* no window: nothing to carry */
    access_counts_clear(&a);

    access_counts_init(&a, ACCESS_COUNTS_EXACT, N + 10);
    access_counts_set_window(&a, 100);
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_EXACT, ex_cells, N, 7));
    for (ContainerId id = 0; id < N + 10; id++)
        CU_ASSERT_EQUAL(access_counts_get(&a, id), id < N ? ex_cells[id] : 0);
    CU_ASSERT_EQUAL(a.since_aging, 7);
    access_counts_clear(&a);

    access_counts_init(&a, ACCESS_COUNTS_SKETCH, N);
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_EXACT, ex_cells, N, 0));
    for (ContainerId id = 0; id < N; id++)
        CU_ASSERT(access_counts_get(&a, id) >= ex_cells[id]);
    access_counts_clear(&a);

    access_counts_init(&a, ACCESS_COUNTS_EXACT, N);
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_SKETCH, sk_cells, access_counts_cells(&sk), 0));
    for (ContainerId id = 0; id < N; id++)
        CU_ASSERT_EQUAL(access_counts_get(&a, id), access_counts_get(&sk, id));
    access_counts_clear(&a);

    /* compact: exact counts saturate into it; it comes back as it was */
    ex_cells[1] = 100000;
    access_counts_init(&a, ACCESS_COUNTS_COMPACT, N);
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_EXACT, ex_cells, N, 0));
    CU_ASSERT_EQUAL(access_counts_get(&a, 1), ACCESS_COUNTS_COMPACT_MAX);
    for (ContainerId id = 2; id < N; id++)
        CU_ASSERT_EQUAL(access_counts_get(&a, id), ex_cells[id]);
    uint32_t *co_cells = g_new(uint32_t, N);
    access_counts_export(&a, co_cells);
    access_counts_clear(&a);
    access_counts_init(&a, ACCESS_COUNTS_EXACT, N);
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_COMPACT, co_cells, N, 0));
    for (ContainerId id = 0; id < N; id++)
        CU_ASSERT_EQUAL(access_counts_get(&a, id), co_cells[id]);
    co_cells[3] = 70000;
    CU_ASSERT_FALSE(access_counts_import(&a, ACCESS_COUNTS_COMPACT, co_cells, N, 0)); /* not 16 bits */
    g_free(co_cells);
    access_counts_clear(&a);

    access_counts_init(&a, ACCESS_COUNTS_SKETCH, 4 * N); /* twice the width */
    CU_ASSERT_TRUE(access_counts_import(&a, ACCESS_COUNTS_SKETCH, sk_cells, access_counts_cells(&sk), 0));
    for (ContainerId id = 0; id < N; id++)
        CU_ASSERT(access_counts_get(&a, id) >= access_counts_get(&sk, id));
    CU_ASSERT_FALSE(access_counts_import(&a, ACCESS_COUNTS_SKETCH, sk_cells, 3 * 64, 0)); /* not 2 rows */
    CU_ASSERT_FALSE(access_counts_import(&a, ACCESS_COUNTS_SKETCH, sk_cells, 2 * 96, 0)); /* not a power of two */
    sk_cells[5] = 70000;
    CU_ASSERT_FALSE(access_counts_import(&a, ACCESS_COUNTS_SKETCH, sk_cells, access_counts_cells(&sk), 0));
    access_counts_clear(&a);

    access_counts_clear(&ex);
    access_counts_clear(&sk);
    g_free(ex_cells);
    g_free(sk_cells);
    g_free(seq);
}

/* The slot map against an array, over puts and removals of random ids of
 * a large id space (so that homes collide and clusters wrap), the map
 * kept between half and completely full of its capacity. */
static void test_slot_map(void)
{
    enum { CAP = 50, IDS = 1000000, STEPS = 200000 };
    SlotMap m;
    slot_map_init(&m, CAP, IDS + 10);
    CU_ASSERT_EQUAL(slot_map_bytes(&m), 128 * 2 * sizeof(uint32_t));
    ContainerId held[CAP];
    uint32_t n = 0;
    uint64_t rng = 1;
    for (int step = 0; step < STEPS; step++) {
        gboolean put = n < CAP / 2 || (n < CAP && test_rand(&rng) % 2 == 0);
        if (put) {
            ContainerId id;
            do
                id = (ContainerId)(test_rand(&rng) % IDS);
            while (slot_map_get(&m, id) != SLOT_MAP_NONE);
            slot_map_put(&m, id, n);
            held[n++] = id;
        } else {
            uint32_t k = (uint32_t)(test_rand(&rng) % n);
            slot_map_remove(&m, held[k]);
            CU_ASSERT_EQUAL(slot_map_get(&m, held[k]), SLOT_MAP_NONE);
            held[k] = held[--n];
            if (k < n) { /* the moved id takes slot k */
                slot_map_remove(&m, held[k]);
                slot_map_put(&m, held[k], k);
            }
        }
        if (step % 97 == 0) {
            CU_ASSERT_TRUE(slot_map_check(&m));
            for (uint32_t k = 0; k < n; k++)
                CU_ASSERT_EQUAL(slot_map_get(&m, held[k]), k);
        }
    }
    uint32_t occupied = 0;
    for (uint32_t b = 0; b <= m.table.mask; b++)
        occupied += open_table_entry(&m.table, b) != OPEN_TABLE_NONE;
    CU_ASSERT_EQUAL(occupied, n);
    slot_map_remove(&m, IDS + 5); /* absent: nothing */
    for (uint32_t k = 0; k < n; k++)
        CU_ASSERT_EQUAL(slot_map_get(&m, held[k]), k);
    slot_map_free(&m);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("access counts", NULL, NULL);
    CU_add_test(s, "sketch width", test_count_min16_width);
    CU_add_test(s, "sketch: never below the count, halving, saturation", test_count_min16_counts_and_halves);
    CU_add_test(s, "sketch raise and clear", test_count_min16_raise_and_clear);
    CU_add_test(s, "every mode: count, age, reset", test_modes_count_age_reset);
    CU_add_test(s, "memory", test_memory);
    CU_add_test(s, "import from cache.meta", test_import);
    CU_add_test(s, "slot map against an array", test_slot_map);
}

UNIT_MAIN(add_suites)
