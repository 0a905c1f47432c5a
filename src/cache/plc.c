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
 * CLOCK_EVICT costs at most one lap: if a whole lap finds no zero, the rest
 * of the walk is computed at once (the minimum priority m and the first slot
 * p holding it; slots before p lose m + 1, the others m), which is exactly
 * the state the step-by-step walk would reach. */
#include "cache/policy.h"

typedef struct {
    const CachePolicyEnv *env;
    const CachePolicyParams *p;
    uint32_t *prio;  /* inner_priority per slot */
    uint32_t *delay; /* delay_count per slot */
    uint32_t hand;
} Plc;

double plc_inout_f(const CachePolicyParams *p, uint32_t a_access)
{
    if (!p->plc_inout_auto)
        return p->plc_inout_factor;
    if (p->plc_filter_threshold == 0)
        return 1.0;
    double f = (double)a_access / (double)p->plc_filter_threshold;
    return f < 1.0 ? 1.0 : f > 2.0 ? 2.0 : f;
}

gboolean plc_inout_passes(const CachePolicyParams *p, uint32_t b_access, uint32_t b_ref,
                          uint32_t a_access, uint32_t a_ref)
{
    if (b_ref > a_ref)
        return TRUE;
    /* ceil(f * threshold), with a little slack for the binary fractions */
    double need = plc_inout_f(p, a_access) * (double)p->plc_filter_threshold - 1e-9;
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
    c->env = env;
    c->p = env->params;
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

static CacheDecision plc_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Plc *c = st;
    const CachePolicyParams *p = c->p;
    uint32_t b_access = c->env->containers[id].access_count;
    if (b_access <= p->plc_filter_threshold)
        return CACHE_REFUSE_FILTER;
    if (!full)
        return CACHE_ADMIT_FREE;
    if (c->env->capacity == 0)
        return CACHE_REFUSE;

    CacheSlot a = clock_evict(c);
    if (c->delay[a] > 0)
        c->delay[a]--;
    if (c->delay[a] > 0)
        return CACHE_REFUSE_DELAY;
    ContainerId a_id = c->env->slot_id[a];
    if (plc_inout_passes(p, b_access, ref_of(c, id), c->env->containers[a_id].access_count,
                         ref_of(c, a_id))) {
        *victim = a;
        return CACHE_ADMIT_REPLACE;
    }
    if (p->plc_delay_reset)
        c->delay[a] = p->plc_delay_threshold;
    return CACHE_REFUSE_INOUT;
}

static void plc_inserted(void *st, CacheSlot slot)
{
    Plc *c = st;
    const CachePolicyParams *p = c->p;
    if (p->plc_priority_mode == PLC_PRIORITY_FIXED) {
        c->prio[slot] = p->plc_initial_priority;
    } else {
        uint32_t acc = c->env->containers[c->env->slot_id[slot]].access_count;
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

static uint64_t plc_save(void *st, uint64_t *words)
{
    Plc *c = st;
    for (uint32_t s = 0; s < c->env->capacity; s++)
        words[s] = (uint64_t)c->prio[s] << 32 | c->delay[s];
    return c->hand;
}

static void plc_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    Plc *c = st;
    c->prio[slot] = (uint32_t)(word >> 32);
    c->delay[slot] = (uint32_t)word;
}

static void plc_load_done(void *st, uint64_t global_word)
{
    Plc *c = st;
    c->hand = c->env->capacity ? (uint32_t)(global_word % c->env->capacity) : 0;
}

const CachePolicyOps cache_policy_plc = {
    .name = "plc",
    .reset_access_on_evict = TRUE,
    .create = plc_create,
    .destroy = plc_destroy,
    .hit = plc_hit,
    .admit = plc_admit,
    .inserted = plc_inserted,
    .removed = plc_removed,
    .save = plc_save,
    .load_slot = plc_load_slot,
    .load_done = plc_load_done,
    .bytes_per_slot = 2 * sizeof(uint32_t),
};
