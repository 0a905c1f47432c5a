/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nextuse_probe.c: PROBE, not a policy (issue 38, round 5): the perfect
 * eviction ranking behind any admission rule. It knows the whole sequence
 * (prepare), follows every access the core counts (accessed(), refused
 * misses too), admits every miss that reaches it and evicts the resident
 * whose next access is furthest (never again first, then the lower slot).
 * The core lets this one offline policy run behind an admission rule and
 * a budget. Defined after round 5's result, to read it; never a candidate. */
#include "cache/policy/policy.h"

#define NEVER UINT32_MAX

typedef struct {
    const CachePolicyEnv *env;
    uint32_t *next;   /* per position: the next position of its container */
    size_t n, pos;    /* the sequence's length; accesses seen */
    uint32_t *nslot;  /* per slot: its container's next access */
} Probe;

static void *probe_create(const CachePolicyEnv *env)
{
    Probe *p = g_new0(Probe, 1);
    p->env = env;
    p->nslot = g_new0(uint32_t, env->capacity ? env->capacity : 1);
    return p;
}

static void probe_destroy(void *st)
{
    Probe *p = st;
    g_free(p->next);
    g_free(p->nslot);
    g_free(p);
}

static gboolean probe_prepare(void *st, const ContainerId *seq, size_t n, GError **err)
{
    Probe *p = st;
    (void)err;
    g_assert(n < NEVER);
    p->n = n;
    p->next = g_new(uint32_t, n ? n : 1);
    uint32_t *later = g_new(uint32_t, p->env->n_containers ? p->env->n_containers : 1);
    for (uint32_t i = 0; i < p->env->n_containers; i++)
        later[i] = NEVER;
    for (size_t i = n; i-- > 0;) {
        p->next[i] = later[seq[i]];
        later[seq[i]] = (uint32_t)i;
    }
    g_free(later);
    return TRUE;
}

static void probe_accessed(void *st, ContainerId id)
{
    Probe *p = st;
    (void)id;
    p->pos++;
    g_assert(p->pos <= p->n);
}

static void probe_touch(void *st, CacheSlot slot)
{
    Probe *p = st;
    p->nslot[slot] = p->pos ? p->next[p->pos - 1] : NEVER;
}

static CacheDecision probe_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Probe *p = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    CacheSlot best = CACHE_NO_SLOT;
    for (CacheSlot s = 0; s < p->env->capacity; s++)
        if (cache_policy_env_occupied(p->env, s) && (best == CACHE_NO_SLOT || p->nslot[s] > p->nslot[best]))
            best = s;
    *victim = best;
    return CACHE_ADMIT_REPLACE;
}

static void probe_removed(void *st, CacheSlot slot)
{
    (void)st;
    (void)slot;
}

const CachePolicyOps cache_policy_nextuse_probe = {
    .name = "nextuse-probe",
    .description = "PROBE: admit every miss that reaches it, evict the resident reused furthest ahead",
    .citation = "Belady's eviction behind an admission rule (issue 38, round 5 probe)",
    .offline = TRUE,
    .create = probe_create,
    .destroy = probe_destroy,
    .prepare = probe_prepare,
    .accessed = probe_accessed,
    .hit = probe_touch,
    .admit = probe_admit,
    .inserted = probe_touch,
    .removed = probe_removed,
    .bytes_per_slot = 4,
};
