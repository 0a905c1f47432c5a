/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plc.c: PLC-Cache (Liu, Chai, Qin, Xiao, MSST 2014), sections IV.B-C.
 *
 * Per container (kept by the core for the whole store): access_count and
 * reference_count. Per cached container (here, per slot): inner_priority and
 * delay_count. A clock runs over the slots; the slot number is the position
 * in the ring, and a newcomer takes its victim's position.
 *
 *   hit:   inner_priority += 1                 (access_count: the core)
 *   miss:  Popularity Filter: admit only if access_count > filter threshold
 *          not full: write into a free slot
 *          full:     a = CLOCK_EVICT(); a.delay_count -= 1
 *                    delay_count > 0: refused (Delayed Eviction)
 *                    delay_count = 0: replace a if IN_OUT_COMPARE(b, a),
 *                                     else refused (In-Out Comparison)
 *   evicted container: access_count reset to 0 (the core, on our flag)
 *   CLOCK_EVICT: while the pointed inner_priority > 0: decrement it and
 *                advance; return the pointed container (the hand stays).
 *   IN_OUT_COMPARE: b.reference_count > a.reference_count, or
 *                b.access_count >= f(a.access_count) * filter threshold.
 *
 * Where the paper leaves a choice open, this file chooses (docs/CACHE.md):
 *  - initial inner_priority ("according to its hotness"): access_count minus
 *    plc-filter-threshold, i.e. how far past the filter the newcomer is
 *    (>= 1 on admission); `plc-initial-priority N` fixes it to N instead.
 *  - delay_count never goes below 0. After a failed In-Out Comparison the
 *    victim keeps delay_count 0, so the next time the clock picks it the
 *    newcomer goes straight to the comparison (`plc-delay-after-compare
 *    keep`, default); `reset` restores plc-delay-threshold instead, sparing it
 *    that many selections again. A hit does not change delay_count.
 *    plc-delay-threshold 0 and 1 both mean "no delay".
 *  - f(): `plc-inout-factor auto` (default) is f(x) = clamp(x / threshold,
 *    1.0, 2.0): the newcomer must be at least as popular as the victim, but
 *    never needs more than twice the filter threshold. With threshold 5 a
 *    victim of 9 accesses gives f = 1.8, the paper's example. A number in
 *    [1.0, 2.0] makes f constant.
 *  - ">= f * threshold": the paper's text and example ("no less than 9" for
 *    1.8 * 5) rather than the ">" of its pseudo-code; computed in integers
 *    (ceil) so 1.8 * 5 is exactly 9.
 *  - the hand does not move after a refusal or a replacement (pseudo-code
 *    lines 17-21); the newcomer sits under the hand and is the first one the
 *    next CLOCK_EVICT decrements.
 *
 * Keys (plc-*), counters (the three refusal reasons) and saved state (the
 * hand and each slot's inner_priority and delay_count) are declared at the
 * bottom of this file.
 *
 * CLOCK_EVICT costs at most one lap: if a whole lap finds no zero, the rest
 * of the walk is computed at once (the minimum priority m and the first slot
 * p holding it; slots before p lose m + 1, the others m), which is exactly
 * the state the step-by-step walk would reach. */
#include "cache/policy/policy.h"
#include "util/le.h"

#include <string.h>

/* PLC's initial inner_priority: from the container's hotness, or fixed. */
typedef enum {
    PLC_PRIORITY_HOTNESS, /* access_count - plc-filter-threshold (>= 1 on admission) */
    PLC_PRIORITY_FIXED,   /* plc_initial_priority for every newcomer */
} PlcPriorityMode;

/* PLC's parameters, from its keys (PLC_KEYS below). */
typedef struct {
    uint32_t plc_filter_threshold;   /* admit only when access_count > this (4) */
    uint32_t plc_delay_threshold;    /* initial delay_count (2) */
    gboolean plc_inout_auto;         /* f(x) = clamp(x / threshold, 1, 2) (TRUE) */
    double plc_inout_factor;         /* constant f when !plc_inout_auto, in [1, 2] */
    PlcPriorityMode plc_priority_mode;
    uint32_t plc_initial_priority;   /* with PLC_PRIORITY_FIXED */
    gboolean plc_delay_reset;        /* after a failed In-Out Comparison, restore
                                        the victim's delay_count (FALSE: it stays 0) */
} PlcParams;

/* Indices into PLC's keys and counters. */
enum { KEY_FILTER, KEY_DELAY, KEY_INOUT, KEY_PRIORITY, KEY_AFTER, N_KEYS };
enum { REFUSED_FILTER, REFUSED_DELAY, REFUSED_INOUT, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    PlcParams params;
    const PlcParams *p;
    uint32_t *prio;  /* inner_priority per slot */
    uint32_t *delay; /* delay_count per slot */
    uint32_t hand;
} Plc;

/* Exposed for the unit tests only (tests/unit/test_policy.c declares them):
 * f(victim access_count) in [1.0, 2.0], and the In-Out Comparison alone. */
double plc_inout_f(uint32_t threshold, gboolean automatic, double factor, uint32_t a_access);
gboolean plc_inout_passes(uint32_t threshold, gboolean automatic, double factor, uint32_t b_access,
                          uint32_t b_ref, uint32_t a_access, uint32_t a_ref);

double plc_inout_f(uint32_t threshold, gboolean automatic, double factor, uint32_t a_access)
{
    if (!automatic)
        return factor;
    if (threshold == 0)
        return 1.0;
    double f = (double)a_access / (double)threshold;
    return f < 1.0 ? 1.0 : f > 2.0 ? 2.0 : f;
}

gboolean plc_inout_passes(uint32_t threshold, gboolean automatic, double factor, uint32_t b_access,
                          uint32_t b_ref, uint32_t a_access, uint32_t a_ref)
{
    if (b_ref > a_ref)
        return TRUE;
    /* ceil(f * threshold), with a little slack for the binary fractions */
    double need = plc_inout_f(threshold, automatic, factor, a_access) * (double)threshold - 1e-9;
    uint64_t need_int = need > 0 ? (uint64_t)need : 0;
    if ((double)need_int < need)
        need_int++;
    return b_access >= need_int;
}

static inline uint32_t ref_of(const Plc *c, ContainerId id)
{
    return c->env->reference_count ? c->env->reference_count[id] : 0;
}

static void *plc_create(const CachePolicyEnv *env)
{
    Plc *c = g_new0(Plc, 1);
    uint32_t n = env->capacity ? env->capacity : 1;
    const CachePolicyValue *v = env->values;
    PlcParams *p = &c->params;
    p->plc_filter_threshold = (uint32_t)v[KEY_FILTER].number;
    p->plc_delay_threshold = (uint32_t)v[KEY_DELAY].number;
    p->plc_inout_auto = v[KEY_INOUT].word == 0; /* "auto" */
    p->plc_inout_factor = p->plc_inout_auto ? 1.5 : v[KEY_INOUT].number;
    p->plc_priority_mode = v[KEY_PRIORITY].word == 0 ? PLC_PRIORITY_HOTNESS : PLC_PRIORITY_FIXED;
    p->plc_initial_priority = (uint32_t)v[KEY_PRIORITY].number;
    p->plc_delay_reset = v[KEY_AFTER].word == 1; /* "reset" */
    c->env = env;
    c->p = p;
    c->prio = g_new0(uint32_t, n);
    c->delay = g_new0(uint32_t, n);
    return c;
}

static void plc_destroy(void *st)
{
    Plc *c = st;
    g_free(c->prio);
    g_free(c->delay);
    g_free(c);
}

static void plc_hit(void *st, CacheSlot slot)
{
    Plc *c = st;
    if (c->prio[slot] < UINT32_MAX)
        c->prio[slot]++;
}

/* A full lap found no zero: finish the walk in one pass (see the top). */
static void clock_finish_walk(Plc *c)
{
    uint32_t cap = c->env->capacity;
    uint32_t m = UINT32_MAX, at = 0;
    for (uint32_t k = 0; k < cap; k++) {
        uint32_t s = c->hand + k < cap ? c->hand + k : c->hand + k - cap;
        if (c->prio[s] < m) {
            m = c->prio[s];
            at = k;
        }
    }
    for (uint32_t k = 0; k < cap; k++) {
        uint32_t s = c->hand + k < cap ? c->hand + k : c->hand + k - cap;
        c->prio[s] -= k < at ? m + 1 : m;
    }
    c->hand = c->hand + at < cap ? c->hand + at : c->hand + at - cap;
}

static CacheSlot clock_evict(Plc *c)
{
    uint32_t cap = c->env->capacity;
    for (uint32_t steps = 0; c->prio[c->hand] > 0; steps++) {
        if (steps == cap) {
            clock_finish_walk(c);
            break;
        }
        c->prio[c->hand]--;
        c->hand = c->hand + 1 == cap ? 0 : c->hand + 1;
    }
    return c->hand;
}

static CacheDecision refuse(Plc *c, int why)
{
    c->env->counters[why]++;
    return CACHE_REFUSE;
}

static CacheDecision plc_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Plc *c = st;
    const PlcParams *p = c->p;
    uint32_t b_access = cache_policy_env_count(c->env, id);
    if (b_access <= p->plc_filter_threshold)
        return refuse(c, REFUSED_FILTER);
    if (!full)
        return CACHE_ADMIT_FREE;
    if (c->env->capacity == 0)
        return CACHE_REFUSE;

    CacheSlot a = clock_evict(c);
    if (c->delay[a] > 0)
        c->delay[a]--;
    if (c->delay[a] > 0)
        return refuse(c, REFUSED_DELAY);
    ContainerId a_id = c->env->slot_id[a];
    if (plc_inout_passes(p->plc_filter_threshold, p->plc_inout_auto, p->plc_inout_factor, b_access,
                         ref_of(c, id), cache_policy_env_count(c->env, a_id), ref_of(c, a_id))) {
        *victim = a;
        return CACHE_ADMIT_REPLACE;
    }
    if (p->plc_delay_reset)
        c->delay[a] = p->plc_delay_threshold;
    return refuse(c, REFUSED_INOUT);
}

static void plc_inserted(void *st, CacheSlot slot)
{
    Plc *c = st;
    const PlcParams *p = c->p;
    if (p->plc_priority_mode == PLC_PRIORITY_FIXED) {
        c->prio[slot] = p->plc_initial_priority;
    } else {
        uint32_t acc = cache_policy_env_slot_count(c->env, slot);
        c->prio[slot] = acc > p->plc_filter_threshold ? acc - p->plc_filter_threshold : 0;
    }
    c->delay[slot] = p->plc_delay_threshold;
}

static void plc_removed(void *st, CacheSlot slot)
{
    Plc *c = st;
    c->prio[slot] = 0;
    c->delay[slot] = 0;
}

/* Saved state, version 1: capacity u32, hand u32, then per slot
 * inner_priority u32 and delay_count u32 (free slots: 0, 0). */
static void plc_save_state(void *st, GByteArray *out)
{
    Plc *c = st;
    uint32_t cap = c->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + 8 + 8 * (guint)cap);
    uint8_t *b = out->data + at;
    le32_put(b, cap);
    le32_put(b + 4, c->hand);
    for (uint32_t s = 0; s < cap; s++) {
        le32_put(b + 8 + 8 * (size_t)s, c->prio[s]);
        le32_put(b + 12 + 8 * (size_t)s, c->delay[s]);
    }
}

static gboolean plc_load_state(void *st, const uint8_t *blob, size_t len)
{
    Plc *c = st;
    uint32_t cap = c->env->capacity;
    if (len != 8 + 8 * (size_t)cap || le32_get(blob) != cap || (cap && le32_get(blob + 4) >= cap))
        return FALSE; /* another capacity: the core rebuilds from inserted() */
    c->hand = le32_get(blob + 4);
    for (uint32_t s = 0; s < cap; s++) {
        gboolean used = cache_policy_env_occupied(c->env, s);
        c->prio[s] = used ? le32_get(blob + 8 + 8 * (size_t)s) : 0;
        c->delay[s] = used ? le32_get(blob + 12 + 8 * (size_t)s) : 0;
    }
    return TRUE;
}

static const char *const plc_auto[] = { "auto", NULL };
static const char *const plc_hotness[] = { "hotness", NULL };
static const char *const plc_keep_reset[] = { "keep", "reset", NULL };

static const CachePolicyKey plc_keys[N_KEYS] = {
    [KEY_FILTER] = { "plc-filter-threshold", CACHE_KEY_UINT, 0, UINT32_MAX, NULL, "4",
                     "Popularity Filter: admit a container only once its access_count exceeds this" },
    [KEY_DELAY] = { "plc-delay-threshold", CACHE_KEY_UINT, 0, UINT32_MAX, NULL, "2",
                    "Delayed Eviction: times the clock must pick a newcomer before it can be replaced (0, 1: none)" },
    [KEY_INOUT] = { "plc-inout-factor", CACHE_KEY_REAL, 1.0, 2.0, plc_auto, "auto",
                    "In-Out Comparison factor f: auto = clamp(victim accesses / filter threshold, 1, 2), or constant" },
    [KEY_PRIORITY] = { "plc-initial-priority", CACHE_KEY_UINT, 0, UINT32_MAX, plc_hotness, "hotness",
                       "a newcomer's inner_priority: hotness = access_count - filter threshold, or a fixed number" },
    [KEY_AFTER] = { "plc-delay-after-compare", CACHE_KEY_WORD, 0, 0, plc_keep_reset, "keep",
                    "after a failed In-Out Comparison the victim's delay_count stays 0 (keep) or is reset" },
};

static const CachePolicyCounter plc_counters[N_COUNTERS] = {
    [REFUSED_FILTER] = { "refused_popularity_filter", "refused: popularity filter", "refused_popularity_filter" },
    [REFUSED_DELAY] = { "refused_delayed_eviction", "refused: delayed eviction", "refused_delayed_eviction" },
    [REFUSED_INOUT] = { "refused_inout_comparison", "refused: in-out comparison", "refused_inout_comparison" },
};

const CachePolicyOps cache_policy_plc = {
    .name = "plc",
    .needs_reference_count = TRUE,
    .description = "PLC-Cache: popularity filter, delayed eviction and in-out comparison over a clock",
    .citation = "Liu, Chai, Qin, Xiao: PLC-Cache, MSST 2014",
    .offline = FALSE,
    .keys = plc_keys,
    .n_keys = N_KEYS,
    .counters = plc_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = TRUE,
    .create = plc_create,
    .destroy = plc_destroy,
    .hit = plc_hit,
    .admit = plc_admit,
    .inserted = plc_inserted,
    .removed = plc_removed,
    .state_version = 1,
    .save_state = plc_save_state,
    .load_state = plc_load_state,
    .bytes_per_slot = 2 * sizeof(uint32_t),
};
