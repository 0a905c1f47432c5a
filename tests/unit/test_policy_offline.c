/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_policy_offline.c: the offline bounds, belady and offline-static,
 * run by the cache core in simulation mode: short sequences worked out by
 * hand and checked access by access (hit, admission, victim, refusal and
 * the refusal counters); belady's hits equal the best of every admit,
 * evict and bypass choice found by exhaustive search on tiny sequences,
 * and offline-static's the best fixed set found by enumerating the sets;
 * belady gets at least as many hits as every other registered policy on
 * uniform and Zipf sequences; and accesses that leave the prepared
 * sequence are caught. opt-budget, at every budget on tiny sequences, writes
 * within it and gets the most hits of any schedule with as many writes,
 * its bound above the most within the budget (exhaustive search). */
#include "cache/policy/opt_budget_plan.h"
#include "test_cache_util.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>

/* ---------- a run with every decision recorded ---------- */

/* The decision at one access, as tests/policy_ref/policy_decisions prints
 * it: "h" hit, "r" refused, "a" admitted into a free slot, "e N" admitted
 * in place of container N. */
typedef struct {
    char text[16];
} Decision;

static void decision_observer(const CacheEvent *ev, void *user)
{
    Decision *d = user;
    if (ev->kind == CACHE_EVENT_HIT)
        g_strlcpy(d->text, "h", sizeof d->text);
    else if (ev->kind == CACHE_EVENT_REFUSE)
        g_strlcpy(d->text, "r", sizeof d->text);
    else if (ev->kind == CACHE_EVENT_EVICT)
        g_snprintf(d->text, sizeof d->text, "e %u", ev->id);
    else if (ev->kind == CACHE_EVENT_ADMIT && d->text[0] != 'e')
        g_strlcpy(d->text, "a", sizeof d->text);
}

/* An offline policy's cache over n containers, handed `seq` (len ids). */
static CacheCore *offline_open(const char *policy, uint32_t capacity, uint32_t n, const uint32_t *seq,
                               size_t len)
{
    CacheCore *c = test_sim_open(test_policy(policy), NULL, capacity, n, NULL);
    GError *err = NULL;
    CU_ASSERT_TRUE(cache_core_prepare(c, seq, len, &err));
    g_clear_error(&err);
    return c;
}

/* Run seq through `policy` and hold every decision to want[]. */
static CacheCore *run_by_hand(const char *policy, uint32_t capacity, const uint32_t *seq, size_t len,
                              const char *const *want, size_t n_want)
{
    CU_ASSERT_EQUAL_FATAL(len, n_want);
    CacheCore *c = offline_open(policy, capacity, 16, seq, len);
    Decision d;
    cache_core_set_observer(c, decision_observer, &d);
    for (size_t i = 0; i < len; i++) {
        d.text[0] = '?';
        d.text[1] = '\0';
        CU_ASSERT_TRUE(cache_access(c, seq[i], NULL, NULL));
        if (strcmp(d.text, want[i]) != 0)
            fprintf(stderr, "\n%s: access %zu (container %u): %s, expected %s\n", policy, i, seq[i], d.text,
                    want[i]);
        CU_ASSERT_STRING_EQUAL(d.text, want[i]);
    }
    return c;
}

#define BY_HAND(policy, cap, seq, want) \
    run_by_hand(policy, cap, seq, G_N_ELEMENTS(seq), want, G_N_ELEMENTS(want))

/* ---------- belady by hand ---------- */

static void test_belady_evicts_furthest(void)
{
    /* C = 2. Next accesses (position -> next): 0->5 1->4 2->3, 3, 4, 5 and
     * the rest never, but 6->7 and 8->9.
     * 1 (next 5), 2 (next 4): free slots. 3 (next 3): the victim is the
     * furthest, 1 (5) -> e 1. 3 hit: never again; 2 hit: never again.
     * 1: never again -> refused although 1 was cached before.
     * 4 (next 7): both cached are never needed again; the one accessed
     * longest ago goes: 3 (last at 3) before 2 (last at 4) -> e 3.
     * 4 hit (never again; last at 7). 5 (next 9): 2 (last at 4) is older
     * than 4 (last at 7) -> e 2. 5 hit. */
    const uint32_t seq[] = { 1, 2, 3, 3, 2, 1, 4, 4, 5, 5 };
    const char *const want[] = { "a", "a", "e 1", "h", "h", "r", "e 3", "h", "e 2", "h" };
    CacheCore *c = BY_HAND("belady", 2, seq, want);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_never_again"), 1);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_further_than_victim"), 0);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "off_sequence_accesses"), 0);
    CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_containers_written, 5);
    cache_core_close(c, NULL);
}

static void test_belady_bypass(void)
{
    /* C = 2. 1 (next 3), 2 (next 4): free slots. 3 (next 5): the furthest
     * cached is 2 (4), nearer than 5 -> refused (bypass). 1 hit, 2 hit
     * (both never again). 3: never again -> refused. LRU would hit none. */
    const uint32_t seq[] = { 1, 2, 3, 1, 2, 3 };
    const char *const want[] = { "a", "a", "r", "h", "h", "r" };
    CacheCore *c = BY_HAND("belady", 2, seq, want);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_never_again"), 1);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_further_than_victim"), 1);
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 2);
    cache_core_close(c, NULL);
}

static void test_belady_never_again_with_room(void)
{
    /* C = 3: 2 is never accessed again: refused with slots free; 1 comes
     * back, and 4 (next 5) is admitted into a free slot. */
    const uint32_t seq[] = { 1, 2, 1, 4, 3, 4 };
    const char *const want[] = { "a", "r", "h", "a", "r", "h" };
    CacheCore *c = BY_HAND("belady", 3, seq, want);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_never_again"), 2);
    CU_ASSERT_EQUAL(cache_core_cached(c), 2);
    cache_core_close(c, NULL);
}

/* The sequence it replays is not the one it was handed: from the first
 * access that differs (or the first past the end) on, belady admits
 * nothing and counts every access. */
static void test_belady_off_sequence(void)
{
    const uint32_t seq[] = { 1, 2, 1, 2 };
    CacheCore *c = offline_open("belady", 2, 8, seq, 4);
    const uint32_t other[] = { 1, 3, 1, 3, 3 };
    test_run(c, other, 5);
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "off_sequence_accesses"), 4);
    CU_ASSERT_EQUAL(k->admissions, 1); /* 1, before the sequences part ways */
    CU_ASSERT_EQUAL(k->hits, 1);       /* 1 is still cached */
    cache_core_close(c, NULL);

    c = offline_open("belady", 2, 8, seq, 4);
    const uint32_t longer[] = { 1, 2, 1, 2, 1 };
    test_run(c, longer, 5);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "off_sequence_accesses"), 1);
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 3); /* the last a hit all the same: 1 stayed */
    cache_core_close(c, NULL);
}

/* Capacity 0: the core asks the policy nothing; an empty sequence: every
 * access is off it. */
static void test_belady_edges(void)
{
    const uint32_t seq[] = { 1, 1, 2 };
    CacheCore *c = offline_open("belady", 0, 8, seq, 3);
    test_run(c, seq, 3);
    CU_ASSERT_EQUAL(cache_core_counters(c)->misses, 3);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "off_sequence_accesses"), 0);
    cache_core_close(c, NULL);

    c = offline_open("belady", 2, 8, seq, 0);
    test_run(c, seq, 3);
    CU_ASSERT_EQUAL(cache_core_counters(c)->admissions, 0);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "off_sequence_accesses"), 3);
    cache_core_close(c, NULL);
}

/* The policy alone over a core-like env of 3 slots, driven as the core
 * would drive it, with one thing the simulation never does: a cached
 * container dropped without a replacement (the core's removed() for a
 * damaged copy). The heap must stay right around it. */
typedef struct {
    TestEnv e;
    const CachePolicyOps *ops;
    void *st;
} Driven;

static void drive_insert(Driven *d, ContainerId id, CacheSlot slot)
{
    d->e.slot_id[slot] = id;
    d->e.slot_of[id] = slot;
    d->ops->inserted(d->st, slot);
}

static void drive_remove(Driven *d, CacheSlot slot)
{
    d->ops->removed(d->st, slot);
    d->e.slot_of[d->e.slot_id[slot]] = CACHE_NO_SLOT;
    d->e.slot_id[slot] = CACHE_NO_CONTAINER;
}

static void test_belady_drop_any_slot(void)
{
    /* next accesses: 1 at 0 -> 9, 3 at 1 -> 8, 2 at 2 -> 6, 4 at 3 -> 7,
     * 5 at 4 -> 5; the rest never. */
    const uint32_t seq[] = { 1, 3, 2, 4, 5, 5, 2, 4, 3, 1 };
    Driven d;
    d.ops = test_policy("belady");
    test_env_init(&d.e, d.ops, NULL, 3, 8, ACCESS_COUNTS_EXACT);
    d.st = test_env_create(&d.e);
    CU_ASSERT_TRUE_FATAL(d.ops->prepare(d.st, seq, G_N_ELEMENTS(seq), NULL));
    CacheSlot victim = CACHE_NO_SLOT;
    for (CacheSlot s = 0; s < 3; s++) { /* 1, 3, 2 into slots 0, 1, 2 */
        CU_ASSERT_EQUAL(d.ops->admit(d.st, seq[s], FALSE, &victim), CACHE_ADMIT_FREE);
        drive_insert(&d, seq[s], s);
    }
    drive_remove(&d, 0); /* 1, the heap's top (9), dropped: 2 (6) must not take its place */
    CU_ASSERT_EQUAL(d.ops->admit(d.st, 4, FALSE, &victim), CACHE_ADMIT_FREE);
    drive_insert(&d, 4, 0);
    /* 5 (next 5): the furthest now is 3 (8), not 4 (7) nor 2 (6) */
    CU_ASSERT_EQUAL(d.ops->admit(d.st, 5, TRUE, &victim), CACHE_ADMIT_REPLACE);
    CU_ASSERT_EQUAL(victim, 1);
    drive_remove(&d, 1);
    drive_insert(&d, 5, 1);
    d.ops->hit(d.st, 1); /* 5 */
    d.ops->hit(d.st, 2); /* 2 */
    drive_remove(&d, 2); /* 2 dropped, never needed again */
    d.ops->hit(d.st, 0); /* 4 */
    CU_ASSERT_EQUAL(d.ops->admit(d.st, 3, FALSE, &victim), CACHE_REFUSE); /* never again */
    CU_ASSERT_EQUAL(d.e.counters[2], 0); /* off_sequence_accesses: it kept its place */
    CU_ASSERT_EQUAL(d.e.counters[0], 1); /* refused_never_again */
    d.ops->destroy(d.st);
    test_env_free(&d.e);
}

/* ---------- offline-static by hand ---------- */

static void test_static_by_hand(void)
{
    /* C = 2. Counts: 1 three times, 2 and 3 twice, 4 once. The set: 1, and
     * of 2 and 3 (a tie) the lower id, 2. 3 is refused although it comes
     * first; 1 and 2 enter free slots, then only hit; nothing is evicted. */
    const uint32_t seq[] = { 3, 1, 2, 1, 3, 1, 2, 4 };
    const char *const want[] = { "r", "a", "a", "h", "r", "h", "h", "r" };
    CacheCore *c = BY_HAND("offline-static", 2, seq, want);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_outside_set"), 3);
    CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_containers_written, 2);
    CU_ASSERT_EQUAL(cache_core_counters(c)->evictions, 0);
    cache_core_close(c, NULL);
}

static void test_static_fewer_than_capacity(void)
{
    /* C = 5, three distinct containers: all are in the set, each written
     * once; never-accessed containers take no place in it. */
    const uint32_t seq[] = { 7, 2, 7, 9, 2, 7 };
    const char *const want[] = { "a", "a", "h", "a", "h", "h" };
    CacheCore *c = BY_HAND("offline-static", 5, seq, want);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_outside_set"), 0);
    cache_core_close(c, NULL);
}

/* ---------- against exhaustive search ---------- */

#define TINY_IDS 5
#define TINY_LEN 12
#define LONG_LEN 40 /* the exact planner's longer sequences */

static uint32_t members(unsigned set)
{
    uint32_t n = 0;
    for (; set; set &= set - 1)
        n++;
    return n;
}

/* The most hits any sequence of decisions gets from position `pos` on
 * with the cache holding `set` (a bit per id): at a miss, refuse, take a
 * free slot, or replace any cached container. memo: -1 unknown. */
static int best_hits(const uint32_t *seq, size_t len, uint32_t cap, size_t pos, unsigned set,
                     int memo[TINY_LEN + 1][1 << TINY_IDS])
{
    if (pos == len)
        return 0;
    if (memo[pos][set] >= 0)
        return memo[pos][set];
    unsigned x = 1u << seq[pos];
    int best;
    if (set & x) {
        best = 1 + best_hits(seq, len, cap, pos + 1, set, memo);
    } else {
        best = best_hits(seq, len, cap, pos + 1, set, memo); /* refuse */
        if (members(set) < cap)
            best = MAX(best, best_hits(seq, len, cap, pos + 1, set | x, memo));
        for (unsigned y = 1; y < (1u << TINY_IDS); y <<= 1)
            if (set & y)
                best = MAX(best, best_hits(seq, len, cap, pos + 1, (set & ~y) | x, memo));
    }
    return memo[pos][set] = best;
}

/* Hits of a cache that only ever holds the ids in `set`. */
static int fixed_set_hits(const uint32_t *seq, size_t len, unsigned set)
{
    unsigned cached = 0;
    int hits = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned x = 1u << seq[i];
        if (cached & x)
            hits++;
        else if (set & x)
            cached |= x;
    }
    return hits;
}

static uint64_t run_hits(const char *policy, uint32_t cap, uint32_t n, const uint32_t *seq, size_t len,
                         uint64_t *written)
{
    CacheCore *c = offline_open(policy, cap, n, seq, len);
    test_run(c, seq, len);
    uint64_t hits = cache_core_counters(c)->hits;
    *written = cache_core_counters(c)->ssd_containers_written;
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "off_sequence_accesses"), 0);
    cache_core_close(c, NULL);
    return hits;
}

static void test_exhaustive(void)
{
    uint64_t rng = 2024;
    unsigned worse_belady = 0, worse_static = 0, runs = 0;
    for (int t = 0; t < 3000; t++) {
        uint32_t ids = 4 + (uint32_t)(test_rand(&rng) % 2);
        uint32_t cap = 1 + (uint32_t)(test_rand(&rng) % 3);
        size_t len = 1 + test_rand(&rng) % TINY_LEN;
        uint32_t seq[TINY_LEN];
        for (size_t i = 0; i < len; i++)
            seq[i] = (uint32_t)(test_rand(&rng) % ids);
        int memo[TINY_LEN + 1][1 << TINY_IDS];
        memset(memo, -1, sizeof memo);
        int best = best_hits(seq, len, cap, 0, 0, memo);
        int best_fixed = 0;
        for (unsigned set = 0; set < (1u << ids); set++)
            if (members(set) <= cap)
                best_fixed = MAX(best_fixed, fixed_set_hits(seq, len, set));
        uint64_t written_belady, written_static;
        uint64_t hb = run_hits("belady", cap, TINY_IDS, seq, len, &written_belady);
        uint64_t hs = run_hits("offline-static", cap, TINY_IDS, seq, len, &written_static);
        CU_ASSERT(written_static <= cap);
        if (hb != (uint64_t)best && worse_belady++ == 0)
            fprintf(stderr, "\nbelady: %" G_GUINT64_FORMAT " hits, the best is %d (C=%u, length %zu)\n", hb,
                    best, cap, len);
        if (hs != (uint64_t)best_fixed && worse_static++ == 0)
            fprintf(stderr, "\noffline-static: %" G_GUINT64_FORMAT " hits, the best fixed set %d (C=%u)\n", hs,
                    best_fixed, cap);
        runs++;
    }
    CU_ASSERT_EQUAL(runs, 3000);
    CU_ASSERT_EQUAL(worse_belady, 0);
    CU_ASSERT_EQUAL(worse_static, 0);
}

/* ---------- opt-budget against exhaustive search ---------- */

/* The most hits any schedule gets from `pos` on, holding `set`, with at
 * most `left` more writes: at a miss refuse, or write into a free slot or
 * over any cached container. memo: -1 unknown. */
static int best_hits_within(const uint32_t *seq, size_t len, uint32_t cap, size_t pos, unsigned set, int left,
                            int memo[LONG_LEN + 1][1 << TINY_IDS][LONG_LEN + 1])
{
    if (pos == len)
        return 0;
    if (memo[pos][set][left] >= 0)
        return memo[pos][set][left];
    unsigned x = 1u << seq[pos];
    int best;
    if (set & x) {
        best = 1 + best_hits_within(seq, len, cap, pos + 1, set, left, memo);
    } else {
        best = best_hits_within(seq, len, cap, pos + 1, set, left, memo);
        if (left > 0 && members(set) < cap)
            best = MAX(best, best_hits_within(seq, len, cap, pos + 1, set | x, left - 1, memo));
        for (unsigned y = 1; left > 0 && y < (1u << TINY_IDS); y <<= 1)
            if (set & y)
                best = MAX(best, best_hits_within(seq, len, cap, pos + 1, (set & ~y) | x, left - 1, memo));
    }
    return memo[pos][set][left] = best;
}

/* For every budget B of writes on tiny sequences: opt-budget writes at
 * most B; its hits are the most any schedule gets with as many writes as
 * it made (a vertex of the frontier's hull); its hull_hits_bound is at
 * least the most any schedule gets within B; and it gets the planned hits
 * (no container it gave up is hit again). */
static void test_opt_budget_exhaustive(void)
{
    static int memo[LONG_LEN + 1][1 << TINY_IDS][LONG_LEN + 1];
    uint64_t rng = 25;
    unsigned runs = 0, not_vertex = 0, over_bound = 0, over_budget = 0, off_plan = 0;
    for (int t = 0; t < 400; t++) {
        uint32_t ids = 3 + (uint32_t)(test_rand(&rng) % 3);
        uint32_t cap = 1 + (uint32_t)(test_rand(&rng) % 2);
        size_t len = 1 + test_rand(&rng) % TINY_LEN;
        uint32_t seq[TINY_LEN];
        for (size_t i = 0; i < len; i++)
            seq[i] = (uint32_t)(test_rand(&rng) % ids);
        memset(memo, -1, sizeof memo);
        for (int budget = 0; budget <= (int)len; budget++) {
            CachePolicySettings *s = cache_policy_settings_new();
            char buf[16];
            g_snprintf(buf, sizeof buf, "%d", budget);
            test_set(s, "opt-budget-writes", buf);
            CacheCoreOptions o = test_options(test_policy("opt-budget"), NULL, cap, TINY_IDS, NULL);
            o.policy_settings = s;
            CacheCore *c = cache_core_open(&o, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c);
            CU_ASSERT_TRUE(cache_core_prepare(c, seq, len, NULL));
            test_run(c, seq, len);
            uint64_t hits = cache_core_counters(c)->hits, written = cache_core_counters(c)->ssd_containers_written;
            uint64_t bound = cache_core_policy_counter(c, "hull_hits_bound");
            int best_within = best_hits_within(seq, len, cap, 0, 0, budget, memo);
            int best_same = best_hits_within(seq, len, cap, 0, 0, (int)written, memo);
            over_budget += written > (uint64_t)budget;
            not_vertex += hits != (uint64_t)best_same;
            over_bound += bound < (uint64_t)best_within;
            off_plan += hits != cache_core_policy_counter(c, "planned_hits") ||
                        cache_core_policy_counter(c, "off_sequence_accesses") != 0;
            if ((written > (uint64_t)budget || hits != (uint64_t)best_same || bound < (uint64_t)best_within) &&
                runs < 1000000)
                fprintf(stderr, "\nopt-budget B=%d C=%u: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
                        " written, bound %" G_GUINT64_FORMAT "; best with as many writes %d, within B %d\n",
                        budget, cap, hits, written, bound, best_same, best_within);
            cache_core_close(c, NULL);
            cache_policy_settings_free(s);
            runs++;
        }
    }
    CU_ASSERT(runs > 2000);
    CU_ASSERT_EQUAL(over_budget, 0);
    CU_ASSERT_EQUAL(not_vertex, 0);
    CU_ASSERT_EQUAL(over_bound, 0);
    CU_ASSERT_EQUAL(off_plan, 0);
}

/* next[i]: the next position of seq[i]'s id (OPT_PLAN_NEVER: none). */
static void next_positions(const uint32_t *seq, size_t len, uint32_t *next)
{
    uint32_t last[1 << TINY_IDS];
    for (uint32_t id = 0; id < (1u << TINY_IDS); id++)
        last[id] = OPT_PLAN_NEVER;
    for (size_t i = len; i-- > 0;) {
        next[i] = last[seq[i]];
        last[seq[i]] = (uint32_t)i;
    }
}

/* The planner itself (opt_budget_plan.h), coarse as `learned` runs it and
 * exact, on the same tiny sequences at every budget: each within B, each
 * the best schedule for its own write count (a vertex of the hull), the
 * coarse one never above the exact one, in a dozen solves at most, its
 * plan well formed (an admission is kept to its next access). */
static void test_opt_budget_plan_coarse(void)
{
    static int memo[LONG_LEN + 1][1 << TINY_IDS][LONG_LEN + 1];
    uint64_t rng = 77;
    unsigned runs = 0, bad = 0;
    for (int t = 0; t < 300; t++) {
        uint32_t ids = 3 + (uint32_t)(test_rand(&rng) % 3);
        uint32_t cap = 1 + (uint32_t)(test_rand(&rng) % 2);
        size_t len = 1 + test_rand(&rng) % TINY_LEN;
        uint32_t seq[TINY_LEN], next[TINY_LEN];
        for (size_t i = 0; i < len; i++)
            seq[i] = (uint32_t)(test_rand(&rng) % ids);
        next_positions(seq, len, next);
        memset(memo, -1, sizeof memo);
        for (uint64_t budget = 0; budget <= len; budget++) {
            uint8_t exact[TINY_LEN], coarse[TINY_LEN];
            OptBudgetResult e, c;
            opt_budget_plan(next, len, cap, budget, FALSE, exact, &e);
            opt_budget_plan(next, len, cap, budget, TRUE, coarse, &c);
            uint64_t writes = 0, hits = 0;
            for (size_t i = 0; i < len; i++) {
                bad += (coarse[i] & OPT_PLAN_ADMIT) && !(coarse[i] & OPT_PLAN_KEEP);
                writes += (coarse[i] & OPT_PLAN_ADMIT) != 0;
                hits += (coarse[i] & OPT_PLAN_KEEP) != 0;
            }
            bad += writes != c.writes || hits != c.hits || c.writes > budget || e.writes > budget;
            bad += c.hits > e.hits || c.solves > 12;
            bad += c.hits != (uint64_t)best_hits_within(seq, len, cap, 0, 0, (int)c.writes, memo);
            runs++;
        }
    }
    CU_ASSERT(runs > 1500);
    CU_ASSERT_EQUAL(bad, 0);
}

/* The exact planner on longer sequences (up to LONG_LEN accesses), where
 * its search over prices takes many steps, at every budget: within B, the
 * best schedule for its own write count, its bound at least the best
 * within B, its plan what it counts, and at most three times the solves
 * of bisection over whole prices [1, K^2]. */
static void test_opt_budget_plan_exact_long(void)
{
    static int memo[LONG_LEN + 1][1 << TINY_IDS][LONG_LEN + 1];
    uint64_t rng = 91;
    unsigned runs = 0, bad = 0, searched = 0;
    for (int t = 0; t < 120; t++) {
        uint32_t ids = 3 + (uint32_t)(test_rand(&rng) % 3);
        uint32_t cap = 1 + (uint32_t)(test_rand(&rng) % 3);
        size_t len = LONG_LEN / 2 + test_rand(&rng) % (LONG_LEN / 2 + 1);
        uint32_t seq[LONG_LEN], next[LONG_LEN];
        for (size_t i = 0; i < len; i++)
            seq[i] = (uint32_t)(test_rand(&rng) % ids);
        next_positions(seq, len, next);
        memset(memo, -1, sizeof memo);
        double k = (double)len + 1, bisection = 2 + ceil(log2(k * k));
        for (uint64_t budget = 0; budget <= len; budget++) {
            uint8_t plan[LONG_LEN];
            OptBudgetResult e;
            opt_budget_plan(next, len, cap, budget, FALSE, plan, &e);
            uint64_t writes = 0, hits = 0;
            for (size_t i = 0; i < len; i++) {
                bad += (plan[i] & OPT_PLAN_ADMIT) && !(plan[i] & OPT_PLAN_KEEP);
                writes += (plan[i] & OPT_PLAN_ADMIT) != 0;
                hits += (plan[i] & OPT_PLAN_KEEP) != 0;
            }
            int best_same = best_hits_within(seq, len, cap, 0, 0, (int)e.writes, memo);
            int best_within = best_hits_within(seq, len, cap, 0, 0, (int)budget, memo);
            bad += writes != e.writes || hits != e.hits || e.writes > budget;
            bad += e.hits != (uint64_t)best_same || e.hull_hits_bound < (uint64_t)best_within;
            bad += (double)e.solves > 3 * bisection;
            searched += e.solves > 3;
            runs++;
        }
    }
    CU_ASSERT(runs > 3000);
    CU_ASSERT(searched > 300); /* 474: runs whose search took 3 steps or more */
    CU_ASSERT_EQUAL(bad, 0);
}

/* ---------- belady against every registered policy ---------- */

/* n ids with Zipf(alpha) popularity, the most popular at a random id. */
static uint32_t *zipf_trace(uint64_t seed, uint32_t n, size_t len, double alpha)
{
    uint64_t st = seed;
    double *cum = g_new(double, n);
    uint32_t *perm = g_new(uint32_t, n);
    double total = 0;
    for (uint32_t r = 0; r < n; r++) {
        total += pow(r + 1, -alpha);
        cum[r] = total;
        perm[r] = r;
    }
    for (uint32_t r = n; r-- > 1;) {
        uint32_t j = (uint32_t)(test_rand(&st) % (r + 1)), t = perm[r];
        perm[r] = perm[j];
        perm[j] = t;
    }
    uint32_t *t = g_new(uint32_t, len);
    for (size_t i = 0; i < len; i++) {
        double u = (double)(test_rand(&st) >> 11) / 9007199254740992.0 * total;
        uint32_t lo = 0, hi = n - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cum[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        t[i] = perm[lo];
    }
    g_free(cum);
    g_free(perm);
    return t;
}

static void test_belady_beats_registry(void)
{
    enum { N_IDS = 300, LEN = 8000 };
    static const uint32_t caps[] = { 1, 3, 16, 60, 200 };
    unsigned compared = 0, beaten = 0;
    for (int kind = 0; kind < 3; kind++) {
        uint32_t *trace = kind == 0 ? test_trace(501, N_IDS, LEN) : zipf_trace(600 + kind, N_IDS, LEN, 0.6 * kind);
        for (size_t ci = 0; ci < G_N_ELEMENTS(caps); ci++) {
            uint64_t w;
            uint64_t best = run_hits("belady", caps[ci], N_IDS, trace, LEN, &w);
            for (size_t pi = 0; pi < cache_policy_count(); pi++) {
                const CachePolicyOps *ops = cache_policy_at(pi);
                if (strcmp(ops->name, "belady") == 0)
                    continue;
                CacheCore *c = test_sim_open(ops, NULL, caps[ci], N_IDS, NULL);
                if (ops->offline)
                    CU_ASSERT_TRUE(cache_core_prepare(c, trace, LEN, NULL));
                test_run(c, trace, LEN);
                uint64_t hits = cache_core_counters(c)->hits;
                if (hits > best) {
                    fprintf(stderr, "\n%s: %" G_GUINT64_FORMAT " hits > belady's %" G_GUINT64_FORMAT
                            " (trace %d, C=%u)\n", ops->name, hits, best, kind, caps[ci]);
                    beaten++;
                }
                compared++;
                cache_core_close(c, NULL);
            }
        }
        g_free(trace);
    }
    CU_ASSERT_EQUAL(compared, 3 * G_N_ELEMENTS(caps) * (cache_policy_count() - 1));
    CU_ASSERT_EQUAL(beaten, 0);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("offline policies", NULL, NULL);
    CU_add_test(s, "belady evicts the furthest", test_belady_evicts_furthest);
    CU_add_test(s, "belady bypass", test_belady_bypass);
    CU_add_test(s, "belady never again, with room", test_belady_never_again_with_room);
    CU_add_test(s, "belady off the sequence", test_belady_off_sequence);
    CU_add_test(s, "belady capacity 0, empty sequence", test_belady_edges);
    CU_add_test(s, "belady, any slot dropped", test_belady_drop_any_slot);
    CU_add_test(s, "offline-static by hand", test_static_by_hand);
    CU_add_test(s, "offline-static, fewer than C", test_static_fewer_than_capacity);
    CU_add_test(s, "exhaustive search", test_exhaustive);
    CU_add_test(s, "opt-budget against exhaustive search", test_opt_budget_exhaustive);
    CU_add_test(s, "opt-budget's planner, coarse and exact", test_opt_budget_plan_coarse);
    CU_add_test(s, "opt-budget's exact planner, longer sequences", test_opt_budget_plan_exact_long);
    CU_add_test(s, "belady >= every policy", test_belady_beats_registry);
}

UNIT_MAIN(add_suites)
