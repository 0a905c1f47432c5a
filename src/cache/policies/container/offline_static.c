/* SPDX-License-Identifier: GPL-3.0-or-later */
/* offline_static.c: the best fixed set, an offline bound for policies that
 * never change what they hold: knowing the whole container-access sequence
 * (prepare), keep the C containers accessed most often in it. A set that
 * never changes gets one hit per access of a member after its first, so no
 * other fixed set of C containers gets more hits; and it costs at most C
 * SSD writes.
 *
 * prepare() counts every container's accesses over the sequence and picks
 * the C most accessed (containers never accessed are never picked, so the
 * set may be smaller). A miss is admitted only if its container is in the
 * set; there is then always a free slot, as only members are ever
 * admitted and nothing is evicted. Any other miss is refused
 * (refused_outside_set). Hits change nothing.
 *
 * Choice (docs/CACHE.md): among containers with equal counts the lower
 * container id is picked first. The set depends only on the sequence's
 * counts, not on the order of the accesses, so unlike belady this policy
 * does not follow positions. Memory: one bit per container. No saved state
 * (simulation only, no restart). */
#include "cache/policy/policy.h"

#include <string.h>

enum { REFUSED_OUTSIDE, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    uint8_t *member; /* a bit per container: in the set */
} OfflineStatic;

static void *static_create(const CachePolicyEnv *env)
{
    OfflineStatic *o = g_new0(OfflineStatic, 1);
    o->env = env;
    o->member = g_new0(uint8_t, env->n_containers / 8 + 1);
    return o;
}

static void static_destroy(void *st)
{
    OfflineStatic *o = st;
    g_free(o->member);
    g_free(o);
}

static gboolean is_member(const OfflineStatic *o, ContainerId id)
{
    return (o->member[id / 8] >> (id % 8)) & 1;
}

/* Most accessed first; equal counts: the lower id first. */
static gint by_count(gconstpointer a, gconstpointer b, gpointer counts)
{
    ContainerId x = *(const ContainerId *)a, y = *(const ContainerId *)b;
    const uint64_t *c = counts;
    if (c[x] != c[y])
        return c[x] > c[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static gboolean static_prepare(void *st, const ContainerId *seq, size_t n, GError **err)
{
    OfflineStatic *o = st;
    uint32_t nc = o->env->n_containers;
    (void)err;
    uint64_t *counts = g_new0(uint64_t, nc ? nc : 1);
    for (size_t i = 0; i < n; i++)
        counts[seq[i]]++;
    GArray *accessed = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    for (ContainerId id = 0; id < nc; id++)
        if (counts[id] > 0)
            g_array_append_val(accessed, id);
    g_array_sort_with_data(accessed, by_count, counts);
    memset(o->member, 0, nc / 8 + 1);
    for (guint k = 0; k < accessed->len && k < o->env->capacity; k++) {
        ContainerId id = g_array_index(accessed, ContainerId, k);
        o->member[id / 8] |= (uint8_t)(1u << (id % 8));
    }
    g_array_free(accessed, TRUE);
    g_free(counts);
    return TRUE;
}

static void static_hit(void *st, CacheSlot slot)
{
    (void)st;
    (void)slot;
}

static CacheDecision static_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    OfflineStatic *o = st;
    (void)full; /* a member always finds a free slot: at most C are ever admitted */
    (void)victim;
    if (is_member(o, id))
        return CACHE_ADMIT_FREE;
    o->env->counters[REFUSED_OUTSIDE]++;
    return CACHE_REFUSE;
}

static void static_slot(void *st, CacheSlot slot)
{
    (void)st;
    (void)slot;
}

static size_t static_memory(const void *st)
{
    const OfflineStatic *o = st;
    return sizeof *o + o->env->n_containers / 8 + 1;
}

static const CachePolicyCounter static_counters[N_COUNTERS] = {
    [REFUSED_OUTSIDE] = { "refused_outside_set", "refused: outside the set", NULL },
};

const CachePolicyOps cache_policy_offline_static = {
    .name = "offline-static",
    .description = "the best fixed set (offline): only the C containers accessed most often are ever cached",
    .citation = "the best static cache in hindsight, the benchmark of Paschos et al.: Learning to Cache With No Regrets, INFOCOM 2019",
    .offline = TRUE,
    .counters = static_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = static_create,
    .destroy = static_destroy,
    .hit = static_hit,
    .admit = static_admit,
    .inserted = static_slot,
    .removed = static_slot,
    .prepare = static_prepare,
    .bytes_per_slot = 0,
    .memory = static_memory,
};
