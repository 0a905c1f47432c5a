/* SPDX-License-Identifier: GPL-3.0-or-later */
/* learned.c: policy `learned`, the eviction fed by admission `learned`'s
 * model (issue 38: "and, if it helps, eviction"; needs
 * ssd-cache-admission learned, the core refuses it with any other rule).
 *
 * Every miss the admission lets through is admitted. Each cached container
 * keeps p, the model's forecast at its latest access (its admission's miss
 * or its latest hit: the probability that the offline optimum holds it for
 * a reuse), as q = round(p x 65535), and t, the admission's access count
 * then. When full, the victim is the container of the lowest q / (now - t),
 * now the access count of the miss (each age is >= 1): the forecast hits
 * per access of cache time it has been held since it was last used, the
 * rule of hyperbolic caching (Blankstein et al., ATC'17: hits over time in
 * the cache) with its count replaced by the model's forecast. Ties: the
 * larger age, then the lower slot. Compared exactly, q_a x age_b against
 * q_b x age_a in 64 bits.
 *
 * Fixed from this definition before any run, nothing to tune: no key. A
 * container written and never reused is dropped once its age is larger
 * than its forecast's share of the others', so a low forecast is held
 * briefly and a high one longer; equal forecasts give LRU. Restored after
 * a restart (inserted() in slot order, before any access), a container
 * takes the forecast of no access: 1/2.
 *
 * Cost: 10 bytes a slot (q in 16 bits, t in 64); an eviction scans the
 * cache's slots, once a write of a whole container. */
#include "cache/policy/policy.h"

#include <math.h>

typedef struct {
    const CachePolicyEnv *env;
    uint16_t *q; /* the forecast at the latest access, in 65535ths */
    uint64_t *t; /* the access count at it */
} LearnedEvict;

static void *learned_create(const CachePolicyEnv *env)
{
    g_assert(env->forecast.value != NULL && env->forecast.accesses != NULL);
    LearnedEvict *l = g_new0(LearnedEvict, 1);
    l->env = env;
    l->q = g_new0(uint16_t, env->capacity ? env->capacity : 1);
    l->t = g_new0(uint64_t, env->capacity ? env->capacity : 1);
    return l;
}

static void learned_destroy(void *st)
{
    LearnedEvict *l = st;
    g_free(l->q);
    g_free(l->t);
    g_free(l);
}

/* The current access's forecast, and its time, into `slot`. */
static void learned_touch(void *st, CacheSlot slot)
{
    LearnedEvict *l = st;
    const CacheForecast *f = &l->env->forecast;
    double p = f->value(f->st);
    g_assert(p >= 0 && p <= 1 && slot < l->env->capacity);
    l->q[slot] = (uint16_t)floor(p * 65535.0 + 0.5);
    l->t[slot] = *f->accesses;
}

static CacheDecision learned_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    LearnedEvict *l = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    uint64_t now = *l->env->forecast.accesses;
    CacheSlot best = CACHE_NO_SLOT;
    uint64_t best_q = 0, best_age = 0;
    for (CacheSlot s = 0; s < l->env->capacity; s++) {
        if (!cache_policy_env_occupied(l->env, s))
            continue;
        uint64_t age = now - l->t[s], q = l->q[s];
        g_assert(age >= 1 && age < (1ull << 47)); /* the miss is not cached; q x age fits */
        if (best == CACHE_NO_SLOT || q * best_age < best_q * age || (q * best_age == best_q * age && age > best_age)) {
            best = s;
            best_q = q;
            best_age = age;
        }
    }
    g_assert(best != CACHE_NO_SLOT);
    *victim = best;
    return CACHE_ADMIT_REPLACE;
}

static void learned_removed(void *st, CacheSlot slot)
{
    (void)st;
    (void)slot; /* the slot's q and t are rewritten when it is filled */
}

const CachePolicyOps cache_policy_learned = {
    .name = "learned",
    .description = "admit what admission learned lets through, evict the lowest forecast hits per access held",
    .citation = "ours (issue 38); the rule of hyperbolic caching (Blankstein et al., ATC'17) on learned's forecast",
    .needs_forecast = TRUE,
    .create = learned_create,
    .destroy = learned_destroy,
    .hit = learned_touch,
    .admit = learned_admit,
    .inserted = learned_touch,
    .removed = learned_removed,
    .bytes_per_slot = sizeof(uint16_t) + sizeof(uint64_t),
};
