/* SPDX-License-Identifier: GPL-3.0-or-later */
/* adapt.c: adapt, an adaptive, write-aware policy of our own. sigpop holds
 * on stationary workloads and loses up to 26 points where recency rules;
 * adapt learns from what it observes which of the two rules, and writes a
 * newcomer only while newcomers are re-read as often as not.
 *
 * Eviction: two experts over the cached slots, as in LeCaR (Vietri et al.,
 * HotStorage 2018): recency (the least recently accessed) and frequency
 * (the lowest access count of the cache's counts, `cache-counters`, the
 * least recently accessed among equals: Perfect LFU's order). The expert
 * of the larger weight picks the victim (the recency expert on a tie), and
 * the victim's id joins that expert's ghost list. A miss found in expert
 * k's ghost list was evicted wrongly by k: w_k *= exp(-lambda), the two
 * weights are normalized to sum 1 and each kept within [floor, 1 - floor].
 *
 * Admission (after LARC's ghost-hit admission, Huang et al., MSST 2013,
 * and CacheLib's admission by expected reuse): a miss found in a ghost
 * list (evicted before) or among the refused candidates (a newcomer
 * refused before and back while remembered) is admitted. A newcomer (in
 * neither) is admitted iff r >= theta, where r estimates the share of
 * newcomers re-read while remembered: an exponential average, weight 1/C,
 * of outcomes 1 (an admitted newcomer hit before it left; a refused one
 * back while a candidate) and 0 (an admitted newcomer evicted unhit; a
 * refused one dropped from the candidates unreturned). r starts at 1.
 *
 * Defaults, fixed from the definition before any workload was run
 * (docs/CACHE.md): lambda 0.45, LeCaR's published learning rate; floor
 * 0.01, so that an expert out of favour wins back after about ten errors of
 * the other (ln 99 / 0.45); ghost share 0.5: the experts' ghost lists
 * together and the candidate list each keep floor(0.5 C) ids (at least 1),
 * half of ARC's C ghosts and the middle of LARC's 0.1 C..0.9 C; theta 0.5:
 * a wasted SSD write and a lost hit each cost one container transfer, so a
 * newcomer is worth writing when a re-read is at least as likely as not.
 *
 * Choices: the ghost lists of the two experts share one pool; when it is
 * full the adding expert's oldest id is dropped (the other's if it has
 * none). The victim's outcome is learnt when the core removes it, after
 * the decision that evicted it. A cached container's frequency key is its
 * count recorded at its last access (insertion or hit).
 *
 * Counters: admitted_newcomer, refused_newcomer, candidate_returns,
 * ghost_hits_recency, ghost_hits_frequency, evicted_by_frequency. Saved
 * state, version 1: capacity u32, clock u64, w_recency and r (IEEE double
 * bits, u64 each); the recency queue (length u32, slots u32 least recent
 * first); per slot its count u32, last-access tick u64 and newcomer flag
 * u8; the two ghost lists (length u32, ids u32 oldest first, recency's
 * then frequency's), then the candidates (the same). */
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/slot_heap.h"
#include "cache/structures/slot_queues.h"
#include "util/le.h"

#include <math.h>

enum { KEY_LEARNING_RATE, KEY_WEIGHT_FLOOR, KEY_GHOST_SHARE, KEY_ADMIT_THRESHOLD, N_KEYS };
enum {
    ADMITTED_NEWCOMER,
    REFUSED_NEWCOMER,
    CANDIDATE_RETURNS,
    GHOST_HITS_RECENCY,
    GHOST_HITS_FREQUENCY,
    EVICTED_BY_FREQUENCY,
    N_COUNTERS
};
enum { EXPERT_RECENCY, EXPERT_FREQUENCY };

typedef struct {
    uint32_t count; /* access count recorded at the last access */
    CacheSlot slot;
    uint64_t tick;  /* the policy's clock at the last access */
} FreqKey;

static inline gboolean freq_less(const void *ctx, const FreqKey *a, const FreqKey *b)
{
    (void)ctx;
    return a->count != b->count ? a->count < b->count : a->tick < b->tick;
}

SLOT_HEAP_DEFINE(FreqHeap, freq_heap, FreqKey, freq_less)

#define ADAPT_BYTES_PER_SLOT (SLOT_QUEUES_BYTES_PER_SLOT + SLOT_HEAP_BYTES_PER_SLOT(FreqKey) + sizeof(uint8_t))

typedef struct {
    const CachePolicyEnv *env;
    double decay;        /* exp(-lambda) */
    double floor;        /* of either weight */
    double theta;
    double c;            /* capacity, at least 1: the outcome average's 1/weight */
    double w_recency;    /* the frequency expert's weight is 1 - w_recency */
    double reuse;        /* r */
    uint64_t clock;
    gboolean pending_newcomer; /* the admission being made is a newcomer's */
    SlotQueues lru;      /* queue 0, least recent at the head */
    FreqHeap freq;       /* top: the frequency expert's victim */
    uint8_t *newcomer;   /* per slot: admitted as a newcomer, not hit since */
    GhostList evicted;   /* list k: ids evicted on expert k's choice */
    GhostList candidates;
} Adapt;

static uint32_t ghost_max(const CachePolicyEnv *env)
{
    uint32_t m = (uint32_t)floor(env->values[KEY_GHOST_SHARE].number * (double)env->capacity);
    return m ? m : 1;
}

static void *adapt_create(const CachePolicyEnv *env)
{
    Adapt *a = g_new0(Adapt, 1);
    uint32_t cap = env->capacity ? env->capacity : 1;
    a->env = env;
    a->decay = exp(-env->values[KEY_LEARNING_RATE].number);
    a->floor = env->values[KEY_WEIGHT_FLOOR].number;
    a->theta = env->values[KEY_ADMIT_THRESHOLD].number;
    a->c = cap;
    a->w_recency = 0.5;
    a->reuse = 1.0;
    slot_queues_init(&a->lru, env->capacity);
    freq_heap_init(&a->freq, env->capacity, NULL);
    a->newcomer = g_new0(uint8_t, cap);
    ghost_list_init(&a->evicted, ghost_max(env));
    ghost_list_init(&a->candidates, ghost_max(env));
    return a;
}

static void adapt_destroy(void *st)
{
    Adapt *a = st;
    slot_queues_free(&a->lru);
    freq_heap_free(&a->freq);
    g_free(a->newcomer);
    ghost_list_free(&a->evicted);
    ghost_list_free(&a->candidates);
    g_free(a);
}

/* One newcomer's outcome: 1 re-read while remembered, 0 not. */
static void learn(Adapt *a, double outcome)
{
    a->reuse += (outcome - a->reuse) / a->c;
    g_assert(a->reuse >= 0.0 && a->reuse <= 1.0);
}

/* Expert k evicted a container that came back: lower its weight. */
static void penalize(Adapt *a, int k)
{
    double wr = a->w_recency, wf = 1.0 - wr;
    if (k == EXPERT_RECENCY)
        wr *= a->decay;
    else
        wf *= a->decay;
    wr = wr / (wr + wf);
    a->w_recency = wr < a->floor ? a->floor : wr > 1.0 - a->floor ? 1.0 - a->floor : wr;
}

static void touch(Adapt *a, CacheSlot slot, FreqKey *k)
{
    k->count = cache_policy_env_slot_count(a->env, slot);
    k->tick = ++a->clock;
}

static void adapt_hit(void *st, CacheSlot slot)
{
    Adapt *a = st;
    slot_queues_move_to_tail(&a->lru, 0, slot);
    touch(a, slot, freq_heap_of(&a->freq, slot));
    freq_heap_update(&a->freq, slot);
    if (a->newcomer[slot]) {
        a->newcomer[slot] = 0;
        learn(a, 1.0);
    }
}

/* Is a miss of id admitted? Takes it out of the list that remembered it. */
static gboolean admissible(Adapt *a, ContainerId id)
{
    int k = ghost_list_take(&a->evicted, id);
    if (k >= 0) {
        penalize(a, k);
        a->env->counters[k == EXPERT_RECENCY ? GHOST_HITS_RECENCY : GHOST_HITS_FREQUENCY]++;
        return TRUE;
    }
    if (ghost_list_remove(&a->candidates, id)) {
        learn(a, 1.0);
        a->env->counters[CANDIDATE_RETURNS]++;
        return TRUE;
    }
    if (a->reuse >= a->theta) {
        a->pending_newcomer = TRUE;
        a->env->counters[ADMITTED_NEWCOMER]++;
        return TRUE;
    }
    if (a->candidates.len[0] == a->candidates.max) {
        ghost_list_pop_oldest(&a->candidates);
        learn(a, 0.0);
    }
    ghost_list_push(&a->candidates, id);
    a->env->counters[REFUSED_NEWCOMER]++;
    return FALSE;
}

static CacheDecision adapt_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Adapt *a = st;
    a->pending_newcomer = FALSE;
    if (!admissible(a, id))
        return CACHE_REFUSE;
    if (!full)
        return CACHE_ADMIT_FREE;
    int k = a->w_recency >= 0.5 ? EXPERT_RECENCY : EXPERT_FREQUENCY;
    *victim = k == EXPERT_RECENCY ? a->lru.head[0] : freq_heap_top(&a->freq)->slot;
    g_assert(cache_policy_env_occupied(a->env, *victim));
    if (k == EXPERT_FREQUENCY)
        a->env->counters[EVICTED_BY_FREQUENCY]++;
    ghost_list_push_to(&a->evicted, k, a->env->slot_id[*victim]);
    return CACHE_ADMIT_REPLACE;
}

static void adapt_inserted(void *st, CacheSlot slot)
{
    Adapt *a = st;
    FreqKey k = { .slot = slot };
    touch(a, slot, &k);
    slot_queues_append(&a->lru, 0, slot);
    freq_heap_insert(&a->freq, k);
    a->newcomer[slot] = a->pending_newcomer ? 1 : 0;
    a->pending_newcomer = FALSE;
}

static void adapt_removed(void *st, CacheSlot slot)
{
    Adapt *a = st;
    slot_queues_unlink(&a->lru, slot);
    freq_heap_remove(&a->freq, slot);
    if (a->newcomer[slot]) {
        a->newcomer[slot] = 0;
        learn(a, 0.0);
    }
}

/* ---- saved state (layout at the top) ---- */

#define STATE_HEAD 28
#define STATE_SLOT 13

static void adapt_save_state(void *st, GByteArray *out)
{
    Adapt *a = st;
    uint32_t cap = a->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + STATE_HEAD);
    le32_put(out->data + at, cap);
    le64_put(out->data + at + 4, a->clock);
    le64_put_double(out->data + at + 12, a->w_recency);
    le64_put_double(out->data + at + 20, a->reuse);
    slot_queues_save(&a->lru, 1, out);
    at = out->len;
    g_byte_array_set_size(out, at + STATE_SLOT * (guint)cap);
    for (uint32_t slot = 0; slot < cap; slot++) {
        uint8_t *b = out->data + at + (size_t)STATE_SLOT * slot;
        gboolean in = cache_policy_env_occupied(a->env, slot);
        const FreqKey *k = in ? freq_heap_of(&a->freq, slot) : NULL;
        le32_put(b, k ? k->count : 0);
        le64_put(b + 4, k ? k->tick : 0);
        b[12] = a->newcomer[slot];
    }
    ghost_list_save(&a->evicted, 2, out);
    ghost_list_save(&a->candidates, 1, out);
}

/* The per-slot records at b: every restored slot's tick at most the clock
 * and its count at most the container's; FALSE otherwise. */
static gboolean load_slots(Adapt *a, const uint8_t *b)
{
    const CachePolicyEnv *env = a->env;
    for (uint32_t slot = 0; slot < env->capacity; slot++, b += STATE_SLOT) {
        if (!cache_policy_env_occupied(env, slot) || a->lru.queue[slot] == SLOT_QUEUE_NONE)
            continue;
        FreqKey k = { .count = le32_get(b), .slot = slot, .tick = le64_get(b + 4) };
        if (k.tick == 0 || k.tick > a->clock || k.count > cache_policy_env_slot_count(env, slot) || b[12] > 1)
            return FALSE;
        freq_heap_append(&a->freq, k);
        a->newcomer[slot] = b[12];
    }
    freq_heap_rebuild(&a->freq);
    return TRUE;
}

/* The blob must describe a cache of this capacity. A restored slot the
 * blob did not place joins as a fresh insertion; a saved slot that was not
 * restored is ignored. */
static gboolean adapt_load_state(void *st, const uint8_t *blob, size_t len)
{
    Adapt *a = st;
    const CachePolicyEnv *env = a->env;
    size_t at = STATE_HEAD;
    if (len < STATE_HEAD || le32_get(blob) != env->capacity)
        return FALSE;
    double wr = le64_get_double(blob + 12), r = le64_get_double(blob + 20);
    if (!(wr >= a->floor && wr <= 1.0 - a->floor && r >= 0.0 && r <= 1.0))
        return FALSE;
    a->clock = le64_get(blob + 4);
    if (!slot_queues_load(&a->lru, 1, env, blob, len, &at) || len - at < (size_t)STATE_SLOT * env->capacity ||
        !load_slots(a, blob + at))
        return FALSE;
    at += (size_t)STATE_SLOT * env->capacity;
    if (!ghost_list_load(&a->evicted, 2, blob, len, &at) || !ghost_list_load(&a->candidates, 1, blob, len, &at) ||
        at != len)
        return FALSE;
    a->w_recency = wr;
    a->reuse = r;
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (cache_policy_env_occupied(env, slot) && a->lru.queue[slot] == SLOT_QUEUE_NONE)
            adapt_inserted(a, slot);
    return TRUE;
}

static size_t adapt_memory(const void *st)
{
    const Adapt *a = st;
    return sizeof *a + (size_t)a->env->capacity * ADAPT_BYTES_PER_SLOT + GHOST_LIST_BYTES(a->evicted.max) +
           GHOST_LIST_BYTES(a->candidates.max);
}

static const CachePolicyKey adapt_keys[N_KEYS] = {
    [KEY_LEARNING_RATE] = { "adapt-learning-rate", CACHE_KEY_REAL, 0, 10, NULL, "0.45",
                            "lambda: an expert whose victim comes back has its weight multiplied by exp(-lambda)" },
    [KEY_WEIGHT_FLOOR] = { "adapt-weight-floor", CACHE_KEY_REAL, 0.0001, 0.5, NULL, "0.01",
                           "neither expert's weight falls below this (nor rises above 1 minus it)" },
    [KEY_GHOST_SHARE] = { "adapt-ghost-share", CACHE_KEY_REAL, 0, 4, NULL, "0.5",
                          "the evicted ids and the refused candidates each keep this x the capacity (at least 1)" },
    [KEY_ADMIT_THRESHOLD] = { "adapt-admit-threshold", CACHE_KEY_REAL, 0, 1, NULL, "0.5",
                              "a newcomer is admitted while the share of newcomers re-read is at least this" },
};

static const CachePolicyCounter adapt_counters[N_COUNTERS] = {
    [ADMITTED_NEWCOMER] = { "admitted_newcomer", "newcomers admitted (reuse estimate >= threshold)", NULL },
    [REFUSED_NEWCOMER] = { "refused_newcomer", "refused: newcomer, reuse estimate below threshold", NULL },
    [CANDIDATE_RETURNS] = { "candidate_returns", "refused newcomers back while remembered (admitted)", NULL },
    [GHOST_HITS_RECENCY] = { "ghost_hits_recency", "misses evicted by the recency expert (admitted)", NULL },
    [GHOST_HITS_FREQUENCY] = { "ghost_hits_frequency", "misses evicted by the frequency expert (admitted)", NULL },
    [EVICTED_BY_FREQUENCY] = { "evicted_by_frequency", "victims chosen by the frequency expert", NULL },
};

const CachePolicyOps cache_policy_adapt = {
    .name = "adapt",
    .description = "adaptive and write-aware: recency or frequency eviction by learnt weights, newcomers "
                   "written only while they are re-read",
    .citation = "ours, after LeCaR (Vietri et al., HotStorage 2018), LARC (Huang et al., MSST 2013) and "
                "CacheLib's reuse-based admission (Berg et al., OSDI 2020)",
    .offline = FALSE,
    .keys = adapt_keys,
    .n_keys = N_KEYS,
    .counters = adapt_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = adapt_create,
    .destroy = adapt_destroy,
    .hit = adapt_hit,
    .admit = adapt_admit,
    .inserted = adapt_inserted,
    .removed = adapt_removed,
    .state_version = 1,
    .save_state = adapt_save_state,
    .load_state = adapt_load_state,
    .bytes_per_slot = ADAPT_BYTES_PER_SLOT,
    .memory = adapt_memory,
};
