/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_policy.c: the replacement policies (FIFO, LRU, both LFUs, PLC) run
 * by the cache core in simulation mode: hand-worked sequences (hits,
 * victims, admissions, the paper's In-Out Comparison example), properties
 * over long seeded random sequences, and agreement with plain reference
 * models written here. */
#include "cache/policy/chunk_policy.h"
#include "cache/policy/policy.h"
#include "test_cache_util.h"
#include "unit.h"

#include <stdlib.h>

/* ---------- registry ---------- */

/* Every registered policy is found by its name, once, in registry order
 * after "none": the list is the registry's, never a second one here. */
static void test_registry(void)
{
    const CachePolicyOps *ops = (const CachePolicyOps *)1;
    CU_ASSERT_TRUE(cache_policy_lookup("none", &ops));
    CU_ASSERT_PTR_NULL(ops);
    size_t n = cache_policy_count();
    CU_ASSERT_TRUE_FATAL(n > 0);
    const char *const *all = cache_policy_names();
    CU_ASSERT_STRING_EQUAL(all[0], "none");
    for (size_t i = 0; i < n; i++) {
        const CachePolicyOps *at = cache_policy_at(i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        CU_ASSERT_TRUE(cache_policy_lookup(at->name, &ops));
        CU_ASSERT_PTR_EQUAL(ops, at);
        CU_ASSERT_STRING_EQUAL(all[i + 1], at->name);
        for (size_t j = 0; j < i; j++)
            CU_ASSERT_STRING_NOT_EQUAL(cache_policy_at(j)->name, at->name);
    }
    /* then the chunk policies' names no container policy has, each once */
    size_t k = n + 1;
    for (size_t i = 0; i < chunk_policy_count(); i++) {
        const ChunkPolicyOps *cops = NULL;
        CU_ASSERT_TRUE(chunk_policy_lookup(chunk_policy_at(i)->name, &cops));
        CU_ASSERT_PTR_EQUAL(cops, chunk_policy_at(i));
        if (!cache_policy_lookup(cops->name, &ops))
            CU_ASSERT_STRING_EQUAL(all[k++], cops->name);
    }
    CU_ASSERT_PTR_NULL(all[k]);
    CU_ASSERT_FALSE(chunk_policy_lookup("none", &(const ChunkPolicyOps *){ NULL }));
    CU_ASSERT_FALSE(cache_policy_lookup("nosuch", &ops));
    CU_ASSERT_FALSE(cache_policy_lookup(NULL, &ops));
}

/* ---------- classic policies, by hand ---------- */

static const uint32_t classic_seq[] = { 1, 2, 3, 1, 4, 1, 2, 5, 4 };

static void check_victims(const TestLog *log, const uint32_t *want, guint n)
{
    CU_ASSERT_EQUAL_FATAL(log->evicted->len, n);
    for (guint i = 0; i < n; i++)
        CU_ASSERT_EQUAL(TEST_LOG_AT(log->evicted, i), want[i]);
}

static void check_cached(CacheCore *c, const uint32_t *want, size_t n)
{
    CU_ASSERT_EQUAL(cache_core_cached(c), n);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_TRUE(cache_core_contains(c, want[i]));
}

static void run_classic(const CachePolicyOps *ops, uint64_t hits, const uint32_t *victims,
                        guint n_victims, const uint32_t *final)
{
    CacheCore *c = test_sim_open(ops, NULL, 3, 10, NULL);
    TestLog log;
    test_log_init(&log);
    cache_core_set_observer(c, test_log_observer, &log);
    test_run(c, classic_seq, G_N_ELEMENTS(classic_seq));
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->accesses, 9);
    CU_ASSERT_EQUAL(k->hits, hits);
    CU_ASSERT_EQUAL(k->misses, 9 - hits);
    CU_ASSERT_EQUAL(k->admissions, 9 - hits); /* classic policies admit every miss */
    check_victims(&log, victims, n_victims);
    check_cached(c, final, 3);
    test_log_free(&log);
    cache_core_close(c, NULL);
}

static void test_fifo_by_hand(void)
{
    /* [1] [1 2] [1 2 3] hit1 [2 3 4] [3 4 1] [4 1 2] [1 2 5] [2 5 4] */
    const uint32_t victims[] = { 1, 2, 3, 4, 1 }, final[] = { 2, 5, 4 };
    run_classic(test_policy("fifo"), 1, victims, 5, final);
}

static void test_lru_by_hand(void)
{
    /* LRU..MRU: [1 2 3] hit1 [2 3 1] 4:[3 1 4] hit1 [3 4 1] 2:[4 1 2] 5:[1 2 5] 4:[2 5 4] */
    const uint32_t victims[] = { 2, 3, 4, 1 }, final[] = { 2, 5, 4 };
    run_classic(test_policy("lru"), 2, victims, 4, final);
}

static void test_lfu_by_hand(void)
{
    /* counts after 1 2 3 1: 1:2 2:1 3:1. 4 misses: 2 and 3 tie at 1, 2 is
     * less recently used -> 2. 1 hit (3). 2 misses (2): 3:1 4:1 tie -> 3.
     * 5 misses: 4:1 is least -> 4. 4 misses (2): 5:1 -> 5. */
    const uint32_t victims[] = { 2, 3, 4, 5 }, final[] = { 1, 2, 4 };
    run_classic(test_policy("lfu"), 2, victims, 4, final);
}

static void test_lfu_incache_by_hand(void)
{
    /* Capacity 2; counts are of every access, misses included.
     *   1 2 2 2      [1:1 2:3]
     *   3 3 3        3 evicts 1 (count 1)                    [2:3 3:3]
     *   1 1          1 evicts 2 (tie at 3, 2 is older)       [3:3 1:?]
     * lfu keeps 1's old count, so 1 has 3 and the tie goes against 3;
     * lfu-incache restarted it at 0 when it was evicted, so 1 has 2:
     *   4            lfu evicts 3, lfu-incache evicts 1. */
    const uint32_t seq[] = { 1, 2, 2, 2, 3, 3, 3, 1, 1, 4 };
    const uint32_t want_lfu[] = { 1, 2, 3 }, want_incache[] = { 1, 2, 1 };
    const CachePolicyOps *ops[] = { test_policy("lfu"), test_policy("lfu-incache") };
    const uint32_t *want[] = { want_lfu, want_incache };
    for (size_t k = 0; k < 2; k++) {
        CacheCore *c = test_sim_open(ops[k], NULL, 2, 10, NULL);
        TestLog log;
        test_log_init(&log);
        cache_core_set_observer(c, test_log_observer, &log);
        test_run(c, seq, G_N_ELEMENTS(seq));
        check_victims(&log, want[k], 3);
        test_log_free(&log);
        cache_core_close(c, NULL);
    }
}

static void test_lfu_tie_break_is_recency(void)
{
    /* all counts equal: LFU degenerates to LRU order on ties */
    CacheCore *c = test_sim_open(test_policy("lfu"), NULL, 2, 10, NULL);
    TestLog log;
    test_log_init(&log);
    cache_core_set_observer(c, test_log_observer, &log);
    const uint32_t seq[] = { 1, 2, 3, 4 };
    test_run(c, seq, 4);
    const uint32_t victims[] = { 1, 2 };
    check_victims(&log, victims, 2);
    test_log_free(&log);
    cache_core_close(c, NULL);
}

/* ---------- PLC, by hand ---------- */

static PlcTestParams plc_params(uint32_t filter, uint32_t delay, double factor,
                                    gboolean fixed_prio, uint32_t prio)
{
    PlcTestParams p = test_default_params();
    p.plc_filter_threshold = filter;
    p.plc_delay_threshold = delay;
    p.plc_inout_auto = factor == 0;
    p.plc_inout_factor = factor;
    p.plc_priority_mode = fixed_prio ? PLC_PRIORITY_FIXED : PLC_PRIORITY_HOTNESS;
    p.plc_initial_priority = prio;
    return p;
}

static void access_n(CacheCore *c, uint32_t id, unsigned times)
{
    for (unsigned i = 0; i < times; i++)
        CU_ASSERT_TRUE(cache_access(c, id, NULL, NULL));
}

static void test_plc_defaults(void)
{
    PlcTestParams p = test_default_params();
    CU_ASSERT_EQUAL(p.plc_filter_threshold, 4);
    CU_ASSERT_EQUAL(p.plc_delay_threshold, 2);
    CU_ASSERT_TRUE(p.plc_inout_auto);
    CU_ASSERT_EQUAL(p.plc_priority_mode, PLC_PRIORITY_HOTNESS);
    CU_ASSERT_FALSE(p.plc_delay_reset);
}

static void test_plc_filter(void)
{
    PlcTestParams p = plc_params(2, 2, 0, FALSE, 0);
    CacheCore *c = test_sim_open(test_policy("plc"), &p, 2, 10, NULL);
    access_n(c, 7, 2);
    CU_ASSERT_FALSE(cache_core_contains(c, 7)); /* counts 1 and 2: not above 2 */
    access_n(c, 7, 1);
    CU_ASSERT_TRUE(cache_core_contains(c, 7)); /* 3 > 2 */
    access_n(c, 7, 1);
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_popularity_filter"), 2);
    CU_ASSERT_EQUAL(k->admissions, 1);
    CU_ASSERT_EQUAL(k->hits, 1);
    cache_core_close(c, NULL);
}

/* plc.c's In-Out Comparison and f(), exposed for this test only. */
double plc_inout_f(uint32_t threshold, gboolean automatic, double factor, uint32_t a_access);
gboolean plc_inout_passes(uint32_t threshold, gboolean automatic, double factor, uint32_t b_access,
                          uint32_t b_ref, uint32_t a_access, uint32_t a_ref);
#define INOUT_PASSES(p, ...) plc_inout_passes((p)->plc_filter_threshold, (p)->plc_inout_auto, (p)->plc_inout_factor, __VA_ARGS__)
#define INOUT_F(p, a) plc_inout_f((p)->plc_filter_threshold, (p)->plc_inout_auto, (p)->plc_inout_factor, a)

static void test_plc_inout_function(void)
{
    /* the paper's example: threshold 5, f = 1.8 -> a newcomer needs >= 9 */
    PlcTestParams p = plc_params(5, 2, 1.8, FALSE, 0);
    CU_ASSERT_FALSE(INOUT_PASSES(&p, 8, 0, 100, 0));
    CU_ASSERT_TRUE(INOUT_PASSES(&p, 9, 0, 100, 0));
    CU_ASSERT_TRUE(INOUT_PASSES(&p, 6, 3, 100, 2)); /* larger reference_count */
    CU_ASSERT_FALSE(INOUT_PASSES(&p, 6, 2, 100, 2));
    /* auto: f(x) = clamp(x / threshold, 1, 2); a victim with 9 accesses -> 1.8 */
    p.plc_inout_auto = TRUE;
    CU_ASSERT_DOUBLE_EQUAL(INOUT_F(&p, 9), 1.8, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(INOUT_F(&p, 1), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(INOUT_F(&p, 1000), 2.0, 1e-12);
    CU_ASSERT_FALSE(INOUT_PASSES(&p, 8, 0, 9, 0));
    CU_ASSERT_TRUE(INOUT_PASSES(&p, 9, 0, 9, 0));
    CU_ASSERT_TRUE(INOUT_PASSES(&p, 10, 0, 1000, 0));
    CU_ASSERT_FALSE(INOUT_PASSES(&p, 9, 0, 1000, 0));
}

static void test_plc_inout_example(void)
{
    /* capacity 1, no delay, newcomers get inner_priority 0 so the clock
     * picks the cached container at once: only In-Out Comparison decides */
    PlcTestParams p = plc_params(5, 0, 1.8, TRUE, 0);
    CacheCore *c = test_sim_open(test_policy("plc"), &p, 1, 10, NULL);
    access_n(c, 1, 6); /* 5 refused by the filter, the 6th (6 > 5) admitted */
    CU_ASSERT_TRUE(cache_core_contains(c, 1));
    access_n(c, 2, 8); /* 5 filtered; counts 6, 7, 8 < 9: kept out */
    CU_ASSERT_FALSE(cache_core_contains(c, 2));
    CU_ASSERT_TRUE(cache_core_contains(c, 1));
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_popularity_filter"), 10);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_inout_comparison"), 3);
    CU_ASSERT_EQUAL(k->evictions, 0);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 1), 6);
    access_n(c, 2, 1); /* 9 >= 1.8 * 5 */
    CU_ASSERT_TRUE(cache_core_contains(c, 2));
    CU_ASSERT_FALSE(cache_core_contains(c, 1));
    CU_ASSERT_EQUAL(k->evictions, 1);
    CU_ASSERT_EQUAL(k->admissions, 2);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 1), 0); /* reset on eviction */
    CU_ASSERT_EQUAL(cache_core_access_count(c, 2), 9);
    cache_core_close(c, NULL);
}

static void test_plc_reference_count_wins(void)
{
    /* threshold 3, f = 2: by access count a newcomer needs 6; a larger
     * reference_count replaces at once */
    uint32_t refs[4] = { 1, 5, 0, 0 };
    PlcTestParams p = plc_params(3, 0, 2.0, TRUE, 0);
    CacheCore *c = test_sim_open(test_policy("plc"), &p, 1, 4, refs);
    access_n(c, 0, 4);
    CU_ASSERT_TRUE(cache_core_contains(c, 0));
    access_n(c, 1, 4); /* 4 > 3 passes the filter; 5 > 1 references */
    CU_ASSERT_TRUE(cache_core_contains(c, 1));
    access_n(c, 2, 5); /* fewer references: counts 4, 5 < 6 refused */
    CU_ASSERT_TRUE(cache_core_contains(c, 1));
    access_n(c, 2, 1); /* 6 >= 6 */
    CU_ASSERT_TRUE(cache_core_contains(c, 2));
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_inout_comparison"), 2);
    cache_core_close(c, NULL);
}

static void test_plc_delayed_eviction(void)
{
    /* delay 3: the victim is spared twice, then compared (f = 1 and
     * threshold 0: any newcomer passes) */
    PlcTestParams p = plc_params(0, 3, 1.0, TRUE, 0);
    CacheCore *c = test_sim_open(test_policy("plc"), &p, 1, 10, NULL);
    access_n(c, 1, 1);
    CU_ASSERT_TRUE(cache_core_contains(c, 1));
    access_n(c, 2, 1);
    access_n(c, 3, 1);
    CU_ASSERT_TRUE(cache_core_contains(c, 1));
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_delayed_eviction"), 2);
    access_n(c, 4, 1);
    CU_ASSERT_TRUE(cache_core_contains(c, 4));
    CU_ASSERT_FALSE(cache_core_contains(c, 1));
    /* the newcomer starts with the full delay again */
    access_n(c, 5, 2);
    CU_ASSERT_TRUE(cache_core_contains(c, 4));
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_delayed_eviction"), 4);
    cache_core_close(c, NULL);
}

static void test_plc_delay_after_compare(void)
{
    /* threshold 3, f = 2 (need 6), delay 2. keep: after the failed compare
     * the victim stays at delay 0, so count 6 replaces. reset: delay goes
     * back to 2, count 6 is delayed, count 7 replaces. */
    for (int reset = 0; reset <= 1; reset++) {
        PlcTestParams p = plc_params(3, 2, 2.0, TRUE, 0);
        p.plc_delay_reset = reset;
        CacheCore *c = test_sim_open(test_policy("plc"), &p, 1, 10, NULL);
        access_n(c, 1, 4);
        CU_ASSERT_TRUE(cache_core_contains(c, 1));
        access_n(c, 2, 4); /* 1-3 filtered; 4: delay 2 -> 1 */
        access_n(c, 2, 1); /* 5: delay 1 -> 0, 5 < 6: in-out refuses */
        CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_delayed_eviction"), 1);
        CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_inout_comparison"), 1);
        access_n(c, 2, 1); /* 6 */
        CU_ASSERT_EQUAL(cache_core_contains(c, 2), !reset);
        if (reset) {
            CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_delayed_eviction"), 2);
            access_n(c, 2, 1); /* 7: delay 1 -> 0, 7 >= 6 */
            CU_ASSERT_TRUE(cache_core_contains(c, 2));
        }
        cache_core_close(c, NULL);
    }
}

static void test_plc_clock_priorities(void)
{
    /* threshold 0, no delay, f = 1: the bare clock. Hotness priority =
     * access_count. 1, 2 admitted (priority 1 each); 1 hit (2). 3 misses:
     * the hand takes 1 to 1, 2 to 0, 1 to 0 and stops at 2: victim 2.
     * 3 goes under the hand with priority 1. 4 misses: 3 to 0, then 1 (0)
     * is the victim although 3 arrived later. */
    PlcTestParams p = plc_params(0, 0, 1.0, FALSE, 0);
    CacheCore *c = test_sim_open(test_policy("plc"), &p, 2, 10, NULL);
    TestLog log;
    test_log_init(&log);
    cache_core_set_observer(c, test_log_observer, &log);
    const uint32_t seq[] = { 1, 2, 1, 3, 4 };
    test_run(c, seq, 5);
    const uint32_t victims[] = { 2, 1 }, final[] = { 3, 4 };
    check_victims(&log, victims, 2);
    check_cached(c, final, 2);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 1), 0);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 2), 0);
    test_log_free(&log);
    cache_core_close(c, NULL);
}

static void test_plc_long_lap(void)
{
    /* a very hot cached set makes the hand go round many times: the victim
     * is the first container with the smallest priority */
    PlcTestParams p = plc_params(0, 0, 1.0, TRUE, 0);
    CacheCore *c = test_sim_open(test_policy("plc"), &p, 3, 10, NULL);
    TestLog log;
    test_log_init(&log);
    cache_core_set_observer(c, test_log_observer, &log);
    access_n(c, 0, 1);
    access_n(c, 1, 1);
    access_n(c, 2, 1);  /* priorities 0 0 0, hand at slot 0 */
    access_n(c, 0, 50); /* 50 */
    access_n(c, 1, 30); /* 30 */
    access_n(c, 2, 40); /* 40 */
    access_n(c, 3, 1);  /* victim: 1 (min 30) */
    CU_ASSERT_EQUAL_FATAL(log.evicted->len, 1);
    CU_ASSERT_EQUAL(TEST_LOG_AT(log.evicted, 0), 1);
    access_n(c, 4, 1);  /* the hand sits on 3 (priority 0): it goes */
    CU_ASSERT_EQUAL_FATAL(log.evicted->len, 2);
    CU_ASSERT_EQUAL(TEST_LOG_AT(log.evicted, 1), 3);
    test_log_free(&log);
    cache_core_close(c, NULL);
}

/* ---------- reference models ---------- */

typedef struct {
    uint64_t hits, admissions, evictions;
    uint64_t filter, delay, inout;
} RefResult;

static RefResult ref_fifo(const uint32_t *t, size_t len, uint32_t cap, uint32_t n)
{
    RefResult r = { 0 };
    gboolean *in = g_new0(gboolean, n);
    uint32_t *q = g_new(uint32_t, cap);
    uint32_t head = 0, size = 0;
    for (size_t i = 0; i < len; i++) {
        if (in[t[i]]) {
            r.hits++;
            continue;
        }
        if (size == cap) {
            in[q[head]] = FALSE;
            head = (head + 1) % cap;
            size--;
            r.evictions++;
        }
        q[(head + size) % cap] = t[i];
        size++;
        in[t[i]] = TRUE;
        r.admissions++;
    }
    g_free(in);
    g_free(q);
    return r;
}

static RefResult ref_lru(const uint32_t *t, size_t len, uint32_t cap)
{
    RefResult r = { 0 };
    uint32_t *stack = g_new(uint32_t, cap); /* stack[0]: least recent */
    uint32_t size = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t j = 0;
        while (j < size && stack[j] != t[i])
            j++;
        if (j < size) {
            r.hits++;
            memmove(stack + j, stack + j + 1, (size - j - 1) * sizeof *stack);
            stack[size - 1] = t[i];
            continue;
        }
        if (size == cap) {
            memmove(stack, stack + 1, (size - 1) * sizeof *stack);
            size--;
            r.evictions++;
        }
        stack[size++] = t[i];
        r.admissions++;
    }
    g_free(stack);
    return r;
}

/* LFU; with `incache`, an evicted container's count restarts at 0. */
static RefResult ref_lfu(const uint32_t *t, size_t len, uint32_t cap, uint32_t n, gboolean incache)
{
    RefResult r = { 0 };
    uint32_t *count = g_new0(uint32_t, n);
    uint64_t *last = g_new0(uint64_t, n);
    uint32_t *set = g_new(uint32_t, cap);
    uint32_t size = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t id = t[i];
        count[id]++;
        last[id] = i + 1;
        uint32_t j = 0;
        while (j < size && set[j] != id)
            j++;
        if (j < size) {
            r.hits++;
            continue;
        }
        if (size == cap) {
            uint32_t v = 0;
            for (uint32_t k = 1; k < size; k++) {
                uint32_t a = set[k], b = set[v];
                if (count[a] < count[b] || (count[a] == count[b] && last[a] < last[b]))
                    v = k;
            }
            if (incache)
                count[set[v]] = 0;
            set[v] = set[--size];
            r.evictions++;
        }
        set[size++] = id;
        r.admissions++;
    }
    g_free(count);
    g_free(last);
    g_free(set);
    return r;
}

/* PLC straight from the pseudo-code of section IV.C, with this project's
 * choices (docs/CACHE.md), a step-by-step clock over positions 0..cap-1
 * and free positions filled lowest first. */
static RefResult ref_plc(const uint32_t *t, size_t len, uint32_t cap, uint32_t n,
                         const uint32_t *refs, const PlcTestParams *p)
{
    RefResult r = { 0 };
    uint32_t *acc = g_new0(uint32_t, n);
    int64_t *pos_of = g_new(int64_t, n);
    for (uint32_t i = 0; i < n; i++)
        pos_of[i] = -1;
    uint32_t *who = g_new(uint32_t, cap);
    uint32_t *prio = g_new0(uint32_t, cap), *delay = g_new0(uint32_t, cap);
    uint32_t used = 0, hand = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t b = t[i];
        acc[b]++;
        if (pos_of[b] >= 0) {
            r.hits++;
            prio[pos_of[b]]++;
            continue;
        }
        if (acc[b] <= p->plc_filter_threshold) {
            r.filter++;
            continue;
        }
        uint32_t slot;
        if (used < cap) {
            slot = used++;
        } else {
            while (prio[hand] > 0) {
                prio[hand]--;
                hand = (hand + 1) % cap;
            }
            uint32_t a = hand;
            if (delay[a] > 0)
                delay[a]--;
            if (delay[a] > 0) {
                r.delay++;
                continue;
            }
            uint32_t ra = refs ? refs[who[a]] : 0, rb = refs ? refs[b] : 0;
            double f = p->plc_inout_factor;
            if (p->plc_inout_auto)
                f = p->plc_filter_threshold
                        ? CLAMP((double)acc[who[a]] / p->plc_filter_threshold, 1.0, 2.0)
                        : 1.0;
            if (!(rb > ra || acc[b] + 1e-9 >= f * p->plc_filter_threshold)) {
                r.inout++;
                if (p->plc_delay_reset)
                    delay[a] = p->plc_delay_threshold;
                continue;
            }
            pos_of[who[a]] = -1;
            acc[who[a]] = 0;
            r.evictions++;
            slot = a;
        }
        who[slot] = b;
        pos_of[b] = slot;
        prio[slot] = p->plc_priority_mode == PLC_PRIORITY_FIXED ? p->plc_initial_priority
                                                                 : acc[b] - p->plc_filter_threshold;
        delay[slot] = p->plc_delay_threshold;
        r.admissions++;
    }
    g_free(acc);
    g_free(pos_of);
    g_free(who);
    g_free(prio);
    g_free(delay);
    return r;
}

/* ---------- properties over random sequences ---------- */

#define N_CONTAINERS 3000
#define TRACE_LEN 60000

typedef struct {
    CacheCore *c;
    uint32_t filter;
    gboolean plc;
    unsigned bad_admissions;
} PropCheck;

static void prop_observer(const CacheEvent *ev, void *user)
{
    PropCheck *pc = user;
    if (ev->kind == CACHE_EVENT_ADMIT && pc->plc && ev->access_count <= pc->filter)
        pc->bad_admissions++;
}

static void check_properties(const CachePolicyOps *ops, const PlcTestParams *p, uint32_t cap,
                             const uint32_t *trace, const uint32_t *refs)
{
    CacheCore *c = test_sim_open(ops, p, cap, N_CONTAINERS, refs);
    PropCheck pc = { c, p->plc_filter_threshold, ops == test_policy("plc"), 0 };
    cache_core_set_observer(c, prop_observer, &pc);
    uint32_t over = 0;
    for (size_t i = 0; i < TRACE_LEN; i++) {
        CU_ASSERT_TRUE(cache_access(c, trace[i], NULL, NULL));
        if (cache_core_cached(c) > cap)
            over++;
    }
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(over, 0);
    CU_ASSERT_EQUAL(pc.bad_admissions, 0);
    CU_ASSERT_EQUAL(k->accesses, TRACE_LEN);
    CU_ASSERT_EQUAL(k->hits + k->misses, k->accesses);
    CU_ASSERT_EQUAL(k->ssd_bytes_written, k->admissions * TEST_CONTAINER_SIZE);
    CU_ASSERT_EQUAL(k->ssd_containers_written, k->admissions);
    CU_ASSERT_EQUAL(k->admissions - k->evictions, cache_core_cached(c));
    CU_ASSERT_EQUAL(k->misses, k->admissions + k->refused);
    if (pc.plc) /* every PLC refusal has its reason counted */
        CU_ASSERT_EQUAL(k->refused, cache_core_policy_counter(c, "refused_popularity_filter") +
                                        cache_core_policy_counter(c, "refused_delayed_eviction") +
                                        cache_core_policy_counter(c, "refused_inout_comparison"));
    CU_ASSERT_EQUAL(k->ssd_bytes_read, k->hits * TEST_CONTAINER_SIZE);
    CU_ASSERT_EQUAL(k->store_bytes_read, k->misses * TEST_CONTAINER_SIZE);
    if (ops != test_policy("plc")) {
        CU_ASSERT_EQUAL(k->admissions, k->misses);
    } else {
        CU_ASSERT(cache_core_policy_counter(c, "refused_popularity_filter") > 0);
    }
    cache_core_close(c, NULL);
}

static const uint32_t capacities[] = { 1, 7, 64, 500 };

static void test_properties_random(void)
{
    uint32_t *refs = g_new(uint32_t, N_CONTAINERS);
    uint64_t st = 99;
    for (uint32_t i = 0; i < N_CONTAINERS; i++)
        refs[i] = (uint32_t)(test_rand(&st) % 8);
    const CachePolicyOps *all[] = { test_policy("fifo"), test_policy("lru"), test_policy("lfu"), test_policy("lfu-incache"),
                                    test_policy("plc") };
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint32_t *trace = test_trace(seed, N_CONTAINERS, TRACE_LEN);
        for (size_t ci = 0; ci < G_N_ELEMENTS(capacities); ci++) {
            for (size_t pi = 0; pi < G_N_ELEMENTS(all); pi++) {
                PlcTestParams p = test_default_params();
                check_properties(all[pi], &p, capacities[ci], trace, seed == 2 ? refs : NULL);
            }
            PlcTestParams p = plc_params(1, 3, 1.3, FALSE, 0);
            p.plc_delay_reset = TRUE;
            check_properties(test_policy("plc"), &p, capacities[ci], trace, refs);
        }
        g_free(trace);
    }
    g_free(refs);
}

static void compare_with_ref(const CachePolicyOps *ops, const PlcTestParams *p, uint32_t cap,
                             const uint32_t *trace, size_t len, const uint32_t *refs, RefResult want)
{
    CacheCore *c = test_sim_open(ops, p, cap, N_CONTAINERS, refs);
    test_run(c, trace, len);
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->hits, want.hits);
    CU_ASSERT_EQUAL(k->admissions, want.admissions);
    CU_ASSERT_EQUAL(k->evictions, want.evictions);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_popularity_filter"), want.filter);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_delayed_eviction"), want.delay);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_inout_comparison"), want.inout);
    if (k->hits != want.hits)
        fprintf(stderr, "\n%s capacity %u: hits %" G_GUINT64_FORMAT " reference %" G_GUINT64_FORMAT "\n",
                ops->name, cap, k->hits, want.hits);
    cache_core_close(c, NULL);
}

static void test_classic_match_reference(void)
{
    for (uint64_t seed = 10; seed <= 13; seed++) {
        uint32_t *trace = test_trace(seed, N_CONTAINERS, TRACE_LEN);
        for (size_t ci = 0; ci < G_N_ELEMENTS(capacities); ci++) {
            uint32_t cap = capacities[ci];
            compare_with_ref(test_policy("fifo"), NULL, cap, trace, TRACE_LEN, NULL,
                             ref_fifo(trace, TRACE_LEN, cap, N_CONTAINERS));
            compare_with_ref(test_policy("lru"), NULL, cap, trace, TRACE_LEN, NULL,
                             ref_lru(trace, TRACE_LEN, cap));
            compare_with_ref(test_policy("lfu"), NULL, cap, trace, TRACE_LEN, NULL,
                             ref_lfu(trace, TRACE_LEN, cap, N_CONTAINERS, FALSE));
            compare_with_ref(test_policy("lfu-incache"), NULL, cap, trace, TRACE_LEN, NULL,
                             ref_lfu(trace, TRACE_LEN, cap, N_CONTAINERS, TRUE));
        }
        g_free(trace);
    }
}

static void test_plc_matches_reference(void)
{
    uint32_t *refs = g_new(uint32_t, N_CONTAINERS);
    uint64_t st = 7;
    for (uint32_t i = 0; i < N_CONTAINERS; i++)
        refs[i] = (uint32_t)(test_rand(&st) % 4);
    PlcTestParams variants[5];
    variants[0] = test_default_params();
    variants[1] = plc_params(0, 0, 1.0, FALSE, 0);  /* bare clock, big priorities */
    variants[2] = plc_params(2, 4, 1.6, TRUE, 1);
    variants[3] = plc_params(5, 2, 1.8, FALSE, 0);
    variants[4] = plc_params(3, 3, 0, FALSE, 0);
    variants[4].plc_delay_reset = TRUE;
    for (uint64_t seed = 20; seed <= 21; seed++) {
        uint32_t *trace = test_trace(seed, N_CONTAINERS, TRACE_LEN);
        for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
            for (size_t ci = 0; ci < G_N_ELEMENTS(capacities); ci++) {
                const uint32_t *r = v % 2 ? refs : NULL;
                compare_with_ref(test_policy("plc"), &variants[v], capacities[ci], trace, TRACE_LEN, r,
                                 ref_plc(trace, TRACE_LEN, capacities[ci], N_CONTAINERS, r,
                                         &variants[v]));
            }
        }
        g_free(trace);
    }
    g_free(refs);
}

static void test_plc_writes_less(void)
{
    /* the point of PLC: on a skewed trace it writes far less than LRU */
    uint32_t *trace = test_trace(5, N_CONTAINERS, TRACE_LEN);
    CacheCore *lru = test_sim_open(test_policy("lru"), NULL, 300, N_CONTAINERS, NULL);
    CacheCore *plc = test_sim_open(test_policy("plc"), NULL, 300, N_CONTAINERS, NULL);
    test_run(lru, trace, TRACE_LEN);
    test_run(plc, trace, TRACE_LEN);
    CU_ASSERT(cache_core_counters(plc)->ssd_bytes_written * 4 < cache_core_counters(lru)->ssd_bytes_written);
    cache_core_close(lru, NULL);
    cache_core_close(plc, NULL);
    g_free(trace);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("policy", NULL, NULL);
    CU_add_test(s, "registry", test_registry);
    CU_add_test(s, "fifo by hand", test_fifo_by_hand);
    CU_add_test(s, "lru by hand", test_lru_by_hand);
    CU_add_test(s, "lfu by hand", test_lfu_by_hand);
    CU_add_test(s, "lfu tie-break", test_lfu_tie_break_is_recency);
    CU_add_test(s, "lfu-incache forgets counts at eviction", test_lfu_incache_by_hand);
    CU_add_test(s, "plc defaults", test_plc_defaults);
    CU_add_test(s, "plc popularity filter", test_plc_filter);
    CU_add_test(s, "plc in-out function", test_plc_inout_function);
    CU_add_test(s, "plc in-out paper example", test_plc_inout_example);
    CU_add_test(s, "plc reference_count", test_plc_reference_count_wins);
    CU_add_test(s, "plc delayed eviction", test_plc_delayed_eviction);
    CU_add_test(s, "plc delay after compare", test_plc_delay_after_compare);
    CU_add_test(s, "plc clock priorities", test_plc_clock_priorities);
    CU_add_test(s, "plc long lap", test_plc_long_lap);
    CU_pSuite r = CU_add_suite("policy properties", NULL, NULL);
    CU_add_test(r, "random sequences", test_properties_random);
    CU_add_test(r, "fifo/lru/lfu/lfu-incache = reference models", test_classic_match_reference);
    CU_add_test(r, "plc = reference model", test_plc_matches_reference);
    CU_add_test(r, "plc writes less than lru", test_plc_writes_less);
}

UNIT_MAIN(add_suites)
