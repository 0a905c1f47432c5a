/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_policy_field.c: the field's policies beside PLC (clock, 2q, arc,
 * larc, s3fifo, sieve, tinylfu, wtinylfu) and our sigpop, each on a short
 * sequence worked out by hand and checked access by access (hit, admission
 * into a free slot, the victim, refusal), run by the cache core in
 * simulation mode; TinyLFU's frequency sketch on its own; sigpop with both
 * cache-counters, and its saved state. The long random and Zipf
 * sequences against independent reference models are in tests/policy_ref/. */
#include "cache/policy/frequency_sketch.h"
#include "cache/policy/policy.h"
#include "test_cache_util.h"
#include "unit.h"

#include <stdio.h>

/* Per access: "h" hit, "r" refused, "a" admitted into a free slot, "eN"
 * admitted in place of container N. */
typedef struct {
    char kind;
    ContainerId evicted;
} Step;

static void step_observer(const CacheEvent *ev, void *user)
{
    Step *st = user;
    if (ev->kind == CACHE_EVENT_HIT)
        st->kind = 'h';
    else if (ev->kind == CACHE_EVENT_REFUSE)
        st->kind = 'r';
    else if (ev->kind == CACHE_EVENT_EVICT) {
        st->kind = 'e';
        st->evicted = ev->id;
    } else if (ev->kind == CACHE_EVENT_ADMIT && st->kind != 'e')
        st->kind = 'a';
}

static void run_by_hand(const char *policy, uint32_t capacity, const uint32_t *seq,
                        const char *const *want, size_t n)
{
    const CachePolicyOps *ops = NULL;
    CU_ASSERT_TRUE_FATAL(cache_policy_lookup(policy, &ops) && ops != NULL);
    CacheCore *c = test_sim_open(ops, NULL, capacity, 64, NULL);
    Step st;
    cache_core_set_observer(c, step_observer, &st);
    for (size_t i = 0; i < n; i++) {
        st.kind = '?';
        CU_ASSERT_TRUE(cache_access(c, seq[i], NULL, NULL));
        char got[16];
        if (st.kind == 'e')
            snprintf(got, sizeof got, "e%u", st.evicted);
        else
            snprintf(got, sizeof got, "%c", st.kind);
        if (strcmp(got, want[i]) != 0)
            fprintf(stderr, "\n%s: access %zu (container %u): %s, expected %s\n", ops->name, i,
                    seq[i], got, want[i]);
        CU_ASSERT_STRING_EQUAL(got, want[i]);
    }
    cache_core_close(c, NULL);
}

#define BY_HAND(policy, cap, seq, want)                                          \
    do {                                                                      \
        G_STATIC_ASSERT(G_N_ELEMENTS(seq) == G_N_ELEMENTS(want));             \
        run_by_hand(policy, cap, seq, want, G_N_ELEMENTS(seq));                  \
    } while (0)

static void test_clock_by_hand(void)
{
    /* C = 3; the ring from the hand, bits in brackets.
     * 1 2 3: [1:0 2:0 3:0]. 1 hit: 1:1. 4: the hand clears 1 and passes it,
     * 2 is clear -> e2; ring 3:0 1:0 4:0. 2: 3 clear -> e3; ring 1 4 2.
     * 4 hit: 4:1. 5: 1 clear -> e1; ring 4:1 2 5. 6: clears 4, 2 -> e2. */
    const uint32_t seq[] = { 1, 2, 3, 1, 4, 2, 4, 5, 6 };
    const char *const want[] = { "a", "a", "a", "h", "e2", "e3", "h", "e1", "e2" };
    BY_HAND("clock", 3, seq, want);
}

static void test_sieve_by_hand(void)
{
    /* C = 3; the queue oldest first. 1 2 3: [1 2 3]. 1 hit: visited.
     * 4: the hand starts at the oldest: clears 1, 2 unvisited -> e2, the
     * hand stays at 3; [1 3 4]. 2: 3 unvisited -> e3, hand at 4; [1 4 2].
     * 4 hit. 5: clears 4, 2 -> e2, the hand walks off the newest end;
     * [1 4 5]. 6: from the oldest: 1 (cleared at the first walk) -> e1.
     * (CLOCK evicts 2 at the last step: SIEVE keeps newcomers behind.) */
    const uint32_t seq[] = { 1, 2, 3, 1, 4, 2, 4, 5, 6 };
    const char *const want[] = { "a", "a", "a", "h", "e2", "e3", "h", "e2", "e1" };
    BY_HAND("sieve", 3, seq, want);
}

static void test_2q_by_hand(void)
{
    /* C = 4: Kin = 1, Kout = 2.
     * 1 2 3 4 -> A1in [1 2 3 4]. 5: |A1in| 4 > 1 -> e1, A1out [1].
     * 1: ghost hit, leaves A1out; A1in's oldest 2 goes (e2), A1out [2];
     *    1 enters Am. 6: e3, A1out [2 3]. 1: hit in Am.
     * 2: ghost hit; A1out [3]; e4, A1out [3 4]; Am [1 2]; A1in [5 6].
     * 7: e5, A1out [3 4 5] -> drops 3 -> [4 5]. 3: forgotten, plain miss:
     *    e6, A1out [5 6]; A1in [7 3]. 5: ghost hit; e7; Am [1 2 5]; A1in [3].
     * 8: |A1in| 1 is not > Kin: Am's least recent goes -> e1.
     * 3: hit in A1in (changes nothing). */
    const uint32_t seq[] = { 1, 2, 3, 4, 5, 1, 6, 1, 2, 7, 3, 5, 8, 3 };
    const char *const want[] = { "a", "a", "a", "a", "e1", "e2", "e3", "h", "e4", "e5", "e6",
                                 "e7", "e1", "h" };
    BY_HAND("2q", 4, seq, want);
}

static void test_arc_by_hand(void)
{
    /* C = 2, p = 0. Lists least recent first.
     * 1 2: T1 [1 2]. 1 hit: T2 [1], T1 [2].
     * 3: |T1|+|B1| = 1 < 2, total 2 >= 2: REPLACE, |T1| 1 > p 0 -> e2,
     *    B1 [2]; T1 [3].
     * 2: B1 hit: p = 1; REPLACE: |T1| 1 not > 1 -> T2's 1 goes (e1),
     *    B2 [1]; T2 [2].
     * 4: total 3: REPLACE: T2's 2 goes (e2), B2 [1 2]; T1 [3 4].
     * 1: B2 hit: p = 0; B2 [2]; REPLACE: T1's 3 goes (e3), B1 [3]; T2 [1].
     * 3: B1 hit (|B1| 1 >= |B2| 1: +1): p = 1; REPLACE: T2's 1 (e1),
     *    B2 [2 1]; T2 [3], T1 [4].
     * 5: total 4 = 2C: B2 drops 2; REPLACE: T2's 3 (e3), B2 [1 3]; T1 [4 5].
     * 6: |T1|+|B1| = 2 = C and |T1| = C: T1's 4 goes with no ghost (e4). */
    const uint32_t seq[] = { 1, 2, 1, 3, 2, 4, 1, 3, 5, 6 };
    const char *const want[] = { "a", "a", "h", "e2", "e1", "e2", "e3", "e1", "e3", "e4" };
    BY_HAND("arc", 2, seq, want);
}

static void test_larc_by_hand(void)
{
    /* C = 2: Cr in [0.2, 1.8], so Qr keeps max(1, floor(Cr)) = 1 id.
     * 1: refused, Qr [1]. 2: refused, Qr [2] (1 pushed out).
     * 1: forgotten, refused again, Qr [1]. 1: in Qr -> admitted.
     * 1 hit. 2: refused, Qr [2]. 2: admitted (free slot).
     * 3: refused. 3: admitted over Q's least recent, 1 (e1).
     * 2 hit. 4: refused. 4: admitted over 3 (e3). */
    const uint32_t seq[] = { 1, 2, 1, 1, 1, 2, 2, 3, 3, 2, 4, 4 };
    const char *const want[] = { "r", "r", "r", "a", "h", "r", "a", "r", "e1", "h", "r", "e3" };
    BY_HAND("larc", 2, seq, want);
}

static void test_s3fifo_by_hand(void)
{
    /* C = 2: S's share floor(0.2) = 0 (S gives the victim whenever it holds
     * anything), G holds 2 ids. Queues oldest first, frequency after ':'.
     * 1 2: S [1 2]. 1 hit: 1:1.
     * 3: S's 1 was hit: to M with 0; S's 2 was not: e2, G [2]. S [3].
     * 2: in G -> leaves it; S's 3: e3, G [3]; 2 enters M: M [1 2].
     * 1 2 2 hits: 1:1, 2:2.
     * 4: S is empty: M's 1:1 -> 0, reinserted; 2:2 -> 1, reinserted; 1:0
     *    is evicted (e1; M's victims leave no ghost). M [2:1], S [4].
     * 1: plain miss: S's 4 -> e4, G [3 4]. S [1].
     * 3: in G -> leaves it; S's 1 -> e1, G [4 1]; M [2 3].
     * 5: S empty: 2:1 -> 0 reinserted; 3:0 -> e3. */
    const uint32_t seq[] = { 1, 2, 1, 3, 2, 1, 2, 2, 4, 1, 3, 5 };
    const char *const want[] = { "a", "a", "h", "e2", "e3", "h", "h", "h", "e1", "e4", "e1", "e3" };
    BY_HAND("s3fifo", 2, seq, want);
}

static void test_tinylfu_by_hand(void)
{
    /* C = 2 (protected holds floor(1.6) = 1), W = 20 accesses: no aging
     * here; estimates are the access counts so far (ids 1-5 share no
     * counter in all four rows; test_sketch_counts checks the sketch).
     * 1 2: probation [1 2]. 3 (1) vs victim 1 (1): not greater, refused.
     * 3 (2) > 1 (1): e1; probation [2 3]. 2 hit: to protected.
     * 4 (1) vs 3 (2): refused; 4 (2) vs 2: refused; 4 (3) > 2: e3.
     * 5 (1) vs 4 (3): refused. */
    const uint32_t seq[] = { 1, 2, 3, 3, 2, 4, 4, 4, 5 };
    const char *const want[] = { "a", "a", "r", "e1", "h", "r", "r", "e3", "r" };
    BY_HAND("tinylfu", 2, seq, want);
}

static void test_wtinylfu_by_hand(void)
{
    /* C = 3: window 1, main 2 (protected 1). Estimates = counts so far.
     * 1: W [1]. 2: W [2], 1 to probation. 3: W [3], probation [1 2].
     * 1 hit: to protected; probation [2].
     * 4: candidate 3 (1) vs main victim 2 (1): not greater, the candidate
     *    goes (e3); W [4]. 4 hit (2).
     * 5: candidate 4 (2) > 2 (1): e2, 4 to probation; W [5].
     * 6: candidate 5 (1) vs 4 (2): e5; W [6].
     * 4 hit: probation -> protected, which then demotes 1 to probation.
     * 7: candidate 6 (1) vs 1 (2): e6. */
    const uint32_t seq[] = { 1, 2, 3, 1, 4, 4, 5, 6, 4, 7 };
    const char *const want[] = { "a", "a", "a", "h", "e3", "h", "e2", "e5", "h", "e6" };
    BY_HAND("wtinylfu", 3, seq, want);
}

static void test_sketch_counts(void)
{
    FrequencySketch k;
    sketch_init(&k, 2, 1000);
    CU_ASSERT_EQUAL(k.width, 16);
    for (ContainerId id = 1; id <= 5; id++)
        for (ContainerId j = 0; j < id; j++)
            sketch_add(&k, id);
    for (ContainerId id = 1; id <= 5; id++)
        CU_ASSERT_EQUAL(sketch_estimate(&k, id), id); /* no four-row collision among 1-5 */
    for (int i = 0; i < 40; i++)
        sketch_add(&k, 9);
    CU_ASSERT_EQUAL(sketch_estimate(&k, 9), SKETCH_COUNTER_MAX); /* 4 bits saturate */
    sketch_free(&k);
}

static void test_sketch_halves(void)
{
    FrequencySketch k;
    sketch_init(&k, 1, 10); /* W = 10 */
    for (int i = 0; i < 9; i++)
        sketch_add(&k, 7);
    CU_ASSERT_EQUAL(sketch_estimate(&k, 7), 9);
    CU_ASSERT_EQUAL(sketch_add(&k, 7), 5); /* the 10th access reaches W: 10 -> 5 */
    CU_ASSERT_EQUAL(sketch_estimate(&k, 7), 5);
    CU_ASSERT_EQUAL(k.accesses, 5);
    for (int i = 0; i < 4; i++)
        sketch_add(&k, 7);
    CU_ASSERT_EQUAL(sketch_estimate(&k, 7), 9);
    CU_ASSERT_EQUAL(sketch_add(&k, 7), 5); /* 5 + 5 accesses: halved again */
    CU_ASSERT_EQUAL(sketch_estimate(&k, 7), 5);
    sketch_free(&k);
}

/* ---------- sigpop ---------- */

/* sigpop's keys as "key", "value" pairs, NULL-terminated. */
static CacheCore *sigpop_open(uint32_t capacity, uint32_t n, const char *const *keys, AccessCountsMode counts)
{
    static CachePolicySettings *held;
    cache_policy_settings_free(held);
    held = cache_policy_settings_new();
    for (size_t i = 0; keys[i] != NULL; i += 2)
        test_set(held, keys[i], keys[i + 1]);
    CacheCoreOptions o = test_options(test_policy("sigpop"), NULL, capacity, n, NULL);
    o.policy_settings = held;
    o.counters = counts;
    CacheCore *c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* Per access: "h", "a", "eN" as run_by_hand, "rc" refused cold, "rs"
 * refused as not significant; "+age" after it when the access completed an
 * aging. Every refusal is counted under exactly one reason. */
static void sigpop_by_hand(const char *const *keys, AccessCountsMode counts, const uint32_t *seq,
                           const char *const *want, size_t n)
{
    CacheCore *c = sigpop_open(2, 8, keys, counts);
    Step st;
    cache_core_set_observer(c, step_observer, &st);
    for (size_t i = 0; i < n; i++) {
        uint64_t cold = cache_core_policy_counter(c, "refused_cold");
        uint64_t ns = cache_core_policy_counter(c, "refused_not_significant");
        uint64_t age = cache_core_policy_counter(c, "agings");
        st.kind = '?';
        CU_ASSERT_TRUE(cache_access(c, seq[i], NULL, NULL));
        cold = cache_core_policy_counter(c, "refused_cold") - cold;
        ns = cache_core_policy_counter(c, "refused_not_significant") - ns;
        age = cache_core_policy_counter(c, "agings") - age;
        char got[32];
        if (st.kind == 'e')
            snprintf(got, sizeof got, "e%u", st.evicted);
        else if (st.kind == 'r')
            snprintf(got, sizeof got, "r%s", cold == 1 && ns == 0 ? "c" : ns == 1 && cold == 0 ? "s" : "?");
        else
            snprintf(got, sizeof got, "%c", st.kind);
        if (age)
            g_strlcat(got, age == 1 ? "+age" : "+age?", sizeof got);
        if (strcmp(got, want[i]) != 0)
            fprintf(stderr, "\nsigpop: access %zu (container %u): %s, expected %s\n", i + 1, seq[i], got, want[i]);
        CU_ASSERT_STRING_EQUAL(got, want[i]);
    }
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_cold"), 9);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "refused_not_significant"), 9);
    CU_ASSERT_EQUAL(cache_core_policy_counter(c, "agings"), 3);
    cache_core_close(c, NULL);
}

/* C = 2, 8 containers, sigpop-age-window 1 (W = 8 accesses), z = 2,
 * min-count 2. f after each access in brackets; cached as id(f, insertion
 * number); "since": accesses since the last aging.
 *  1: 1 [1] < 2: rc.  2: 1 [2]: a, 1(2,#1).  3: 2 [1]: rc.
 *  4: 2 [2]: a, 2(2,#2).  5: 3 [1]: rc.
 *  6: 3 [2]: victim 1 (f 2 like 2, admitted first); 2 - 2 = 0 > 2 sqrt 4
 *     = 4? no: rs.  7: 1 hit [3].
 *  8: 3 [3], since 8 = W: aging: 1, 2, 3 -> 1, 1, 1; then a = 1 < 2: rc.
 *  9: 4 [1]: rc.  10-14: 4 [2..6] against victim 1 (f 1, admitted before
 *     2): 1 > 2 sqrt 3 = 3.46, 2 > 2 sqrt 4 = 4, 3 > 2 sqrt 5 = 4.47,
 *     4 > 2 sqrt 6 = 4.90, 5 > 2 sqrt 7 = 5.29: all no: rs.
 * 15: 4 [7]: 6 > 2 sqrt 8 = 5.66: e1; 2(1,#2), 4(7,#3).
 * 16: 5 [1], since 8: aging: 2 -> 0, 4 -> 3, 5 -> 0 (1 and 3 -> 0):
 *     a = 0: rc.  17: 5 [1]: rc.
 * 18-20: 5 [2..4] against victim 2 (f 0): 2 > 2 sqrt 2 = 2.83, 3 > 2 sqrt 3
 *     = 3.46, 4 > 2 sqrt 4 = 4 (equal: not above): rs.
 * 21: 5 [5]: 5 > 2 sqrt 5 = 4.47: e2; 4(3,#3), 5(5,#4).
 * 22: 4 hit [4].  23: 6 [1]: rc.
 * 24: 6 [2], since 8: aging: 4 -> 2, 5 -> 2, 6 -> 1: rc. */
static const uint32_t sigpop_seq[] = { 1, 1, 2, 2, 3, 3, 1, 3, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 4, 6, 6 };
static const char *const sigpop_want[] = { "rc", "a",  "rc", "a",  "rc", "rs", "h",  "rc+age",
                                           "rc", "rs", "rs", "rs", "rs", "rs", "e1", "rc+age",
                                           "rc", "rs", "rs", "rs", "e2", "h",  "rc", "rc+age" };
G_STATIC_ASSERT(G_N_ELEMENTS(sigpop_seq) == G_N_ELEMENTS(sigpop_want));

static void test_sigpop_by_hand(void)
{
    const char *const keys[] = { "sigpop-age-window", "1", NULL };
    sigpop_by_hand(keys, ACCESS_COUNTS_EXACT, sigpop_seq, sigpop_want, G_N_ELEMENTS(sigpop_seq));
}

/* The same sequence with the sketch: with 8 containers its width is 64,
 * and containers 1-6 have six different counters in row 0, so every
 * estimate is the exact count and every decision is the same. */
static void test_sigpop_sketch_by_hand(void)
{
    CountMin16 k;
    count_min16_init(&k, 8);
    CU_ASSERT_EQUAL(k.width, 64);
    for (ContainerId x = 1; x <= 6; x++)
        for (ContainerId y = 1; y < x; y++)
            CU_ASSERT_NOT_EQUAL(count_min16_index(&k, x, 0), count_min16_index(&k, y, 0));
    count_min16_free(&k);
    const char *const keys[] = { "sigpop-age-window", "1", NULL };
    sigpop_by_hand(keys, ACCESS_COUNTS_SKETCH, sigpop_seq, sigpop_want, G_N_ELEMENTS(sigpop_seq));
}

/* A run split by save_state / load_state into a new policy (the core's
 * counts carried over as cache.meta carries them) decides as one run,
 * agings included, and ends in the same state, with either cache-counters;
 * a blob of another capacity or of another store size is refused. */
static void test_sigpop_state_split(void)
{
    enum { N = 300, CAP = 20, LEN = 30000 };
    const CachePolicyOps *ops = test_policy("sigpop");
    uint32_t *seq = test_trace(11, N, LEN);
    const AccessCountsMode modes[] = { ACCESS_COUNTS_EXACT, ACCESS_COUNTS_SKETCH };
    for (int m = 0; m < 2; m++) {
        TestEnv one, two;
        test_env_init(&one, ops, NULL, CAP, N, modes[m]);
        test_env_init(&two, ops, NULL, CAP, N, modes[m]);
        GString *whole = g_string_new(NULL), *split = g_string_new(NULL);
        void *a = test_env_create(&one);
        test_env_drive(&one, a, seq, 0, LEN, whole);
        void *b = test_env_create(&two);
        test_env_drive(&two, b, seq, 0, LEN / 3, split);
        GByteArray *blob = g_byte_array_new();
        ops->save_state(b, blob);
        ops->destroy(b);
        size_t cells = access_counts_cells(&two.counts);
        uint32_t *saved = g_new(uint32_t, cells);
        access_counts_export(&two.counts, saved);
        uint64_t since = two.counts.since_aging;
        access_counts_clear(&two.counts);
        access_counts_init(&two.counts, modes[m], N);
        b = test_env_create(&two);
        CU_ASSERT_TRUE(access_counts_import(&two.counts, modes[m], saved, cells, since));
        CU_ASSERT_TRUE_FATAL(ops->load_state(b, blob->data, blob->len));
        test_env_drive(&two, b, seq, LEN / 3, LEN, split);
        CU_ASSERT_STRING_EQUAL(whole->str, split->str);
        GByteArray *end_one = g_byte_array_new(), *end_two = g_byte_array_new();
        ops->save_state(a, end_one);
        ops->save_state(b, end_two); /* and the same state at the end */
        CU_ASSERT_TRUE(end_one->len == end_two->len && memcmp(end_one->data, end_two->data, end_one->len) == 0);
        g_byte_array_free(end_one, TRUE);
        g_byte_array_free(end_two, TRUE);
        CU_ASSERT(one.counters[2] >= 2);                /* agings: W = 16 x 300 */
        CU_ASSERT(strstr(whole->str, "e") != NULL);     /* replacements happened */
        for (int k = 0; k < 3; k++)
            CU_ASSERT_EQUAL(one.counters[k], two.counters[k]);

        TestEnv other_cap, other_n;
        test_env_init(&other_cap, ops, NULL, CAP + 1, N, modes[m]);
        test_env_init(&other_n, ops, NULL, CAP, N + 1, modes[m]);
        TestEnv *others[] = { &other_cap, &other_n };
        for (int k = 0; k < 2; k++) {
            void *c = test_env_create(others[k]);
            CU_ASSERT_FALSE(ops->load_state(c, blob->data, blob->len));
            ops->destroy(c);
            test_env_free(others[k]);
        }
        g_free(saved);
        g_byte_array_free(blob, TRUE);
        ops->destroy(a);
        ops->destroy(b);
        g_string_free(whole, TRUE);
        g_string_free(split, TRUE);
        test_env_free(&one);
        test_env_free(&two);
    }
    g_free(seq);
}

/* A policy's saved state, damaged: every truncation is refused, and blobs
 * with flipped bytes are refused or taken without reading past the blob
 * (ASan and Valgrind watch this test). The intact blob is taken. The
 * policy runs by itself here, over a core-like env of 8 slots. */
#define BLOB_CAP 8
#define BLOB_N 40

/* Drive the policy over a skewed sequence the way the core would. */
static void blob_drive(TestEnv *e, void *st)
{
    uint64_t rng = 17;
    uint32_t seq[400];
    for (size_t i = 0; i < G_N_ELEMENTS(seq); i++)
        seq[i] = test_skewed_id(&rng, BLOB_N);
    test_env_drive(e, st, seq, 0, G_N_ELEMENTS(seq), NULL);
}

static void test_state_blobs_damaged(void)
{
    for (size_t pi = 0; pi < cache_policy_count(); pi++) {
        const CachePolicyOps *ops = cache_policy_at(pi);
        if (ops->save_state == NULL || ops->offline)
            continue;
        TestEnv b;
        test_env_init(&b, ops, NULL, BLOB_CAP, BLOB_N, ACCESS_COUNTS_EXACT);
        void *st = test_env_create(&b);
        blob_drive(&b, st);
        GByteArray *blob = g_byte_array_new();
        ops->save_state(st, blob);
        ops->destroy(st);

        st = ops->create(&b.env);
        CU_ASSERT_TRUE(ops->load_state(st, blob->data, blob->len));
        ops->destroy(st);
        unsigned taken = 0;
        for (guint cut = 0; cut < blob->len; cut++) {
            uint8_t *copy = g_memdup2(blob->data, cut ? cut : 1);
            st = ops->create(&b.env);
            if (ops->load_state(st, copy, cut))
                taken++;
            ops->destroy(st);
            g_free(copy);
        }
        if (taken != 0)
            fprintf(stderr, "\n%s took %u truncated blobs\n", ops->name, taken);
        CU_ASSERT_EQUAL(taken, 0);
        uint64_t rng = 5;
        for (int k = 0; k < 300; k++) {
            uint8_t *copy = g_memdup2(blob->data, blob->len);
            for (int f = 0; f < 3; f++)
                copy[test_rand(&rng) % blob->len] ^= (uint8_t)(1u << (test_rand(&rng) % 8));
            st = ops->create(&b.env);
            ops->load_state(st, copy, blob->len); /* either way: no read past it */
            ops->destroy(st);
            g_free(copy);
        }
        g_byte_array_free(blob, TRUE);
        test_env_free(&b);
    }
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("field policies", NULL, NULL);
    CU_add_test(s, "clock by hand", test_clock_by_hand);
    CU_add_test(s, "sieve by hand", test_sieve_by_hand);
    CU_add_test(s, "2q by hand", test_2q_by_hand);
    CU_add_test(s, "arc by hand", test_arc_by_hand);
    CU_add_test(s, "larc by hand", test_larc_by_hand);
    CU_add_test(s, "s3fifo by hand", test_s3fifo_by_hand);
    CU_add_test(s, "tinylfu by hand", test_tinylfu_by_hand);
    CU_add_test(s, "wtinylfu by hand", test_wtinylfu_by_hand);
    CU_add_test(s, "sketch counts", test_sketch_counts);
    CU_add_test(s, "sketch halves every W accesses", test_sketch_halves);
    CU_add_test(s, "sigpop by hand", test_sigpop_by_hand);
    CU_add_test(s, "sigpop by hand, sketch counts", test_sigpop_sketch_by_hand);
    CU_add_test(s, "sigpop state: split run = one run", test_sigpop_state_split);
    CU_add_test(s, "state blobs, damaged", test_state_blobs_damaged);
}

UNIT_MAIN(add_suites)
