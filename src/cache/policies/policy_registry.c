/* SPDX-License-Identifier: GPL-3.0-or-later */
/* policy_registry.c: the one table of policies, by their ssd-cache-policy
 * name. "none" means no cache at all. Adding a policy: its own file in
 * container/ (defining `const CachePolicyOps cache_policy_<symbol>` with
 * its name, keys, counters and state; a chunk policy in chunk/, defining
 * `const ChunkPolicyOps chunk_policy_<symbol>`) and one X(<symbol>) line
 * below; everything else (config keys, `destor policies`, statistics,
 * cache.meta, the registry-wide tests) finds it through this table. */
#include "cache/policy/chunk_policy.h"
#include "cache/policy/policy.h"

#include <string.h>

/* In the order `destor policies` lists them: the online policies, then the
 * offline bounds (simulation only). */
#define REGISTERED(X) \
    X(fifo)           \
    X(lru)            \
    X(lfu)            \
    X(lfu_incache)    \
    X(plc)            \
    X(clock)          \
    X(2q)             \
    X(arc)            \
    X(larc)           \
    X(s3fifo)         \
    X(sieve)          \
    X(tinylfu)        \
    X(wtinylfu)       \
    X(sigpop)         \
    X(adapt)          \
    X(minisim)        \
    X(wlfu)           \
    X(belady)         \
    X(offline_static) \
    X(opt_budget)

#define DECLARE(sym) extern const CachePolicyOps cache_policy_##sym;
REGISTERED(DECLARE)
#define ENTRY(sym) &cache_policy_##sym,
static const CachePolicyOps *const registry[] = { REGISTERED(ENTRY) };

#define N_POLICIES (sizeof registry / sizeof registry[0])

/* The chunk-granularity policies (chunk_policy.h), in listing order. A
 * name may serve both granularities (lru, arc): one entry in each table. */
#define REGISTERED_CHUNK(X) \
    X(lru)                  \
    X(arc)                  \
    X(d_lru)                \
    X(d_arc)                \
    X(cdac_lru)             \
    X(cdac_arc)             \
    X(tinylfu)              \
    X(plc)                  \
    X(sigpop)               \
    X(austere)

#define DECLARE_CHUNK(sym) extern const ChunkPolicyOps chunk_policy_##sym;
REGISTERED_CHUNK(DECLARE_CHUNK)
#define ENTRY_CHUNK(sym) &chunk_policy_##sym,
static const ChunkPolicyOps *const chunk_registry[] = { REGISTERED_CHUNK(ENTRY_CHUNK) };

#define N_CHUNK_POLICIES (sizeof chunk_registry / sizeof chunk_registry[0])

gboolean chunk_policy_lookup(const char *name, const ChunkPolicyOps **ops)
{
    for (size_t i = 0; name != NULL && i < N_CHUNK_POLICIES; i++) {
        if (strcmp(chunk_registry[i]->name, name) == 0) {
            *ops = chunk_registry[i];
            return TRUE;
        }
    }
    return FALSE;
}

size_t chunk_policy_count(void)
{
    return N_CHUNK_POLICIES;
}

const ChunkPolicyOps *chunk_policy_at(size_t i)
{
    return i < N_CHUNK_POLICIES ? chunk_registry[i] : NULL;
}

gboolean cache_policy_lookup(const char *name, const CachePolicyOps **ops)
{
    if (name != NULL && strcmp(name, "none") == 0) {
        *ops = NULL;
        return TRUE;
    }
    for (size_t i = 0; name != NULL && i < N_POLICIES; i++) {
        if (strcmp(registry[i]->name, name) == 0) {
            *ops = registry[i];
            return TRUE;
        }
    }
    return FALSE;
}

size_t cache_policy_count(void)
{
    return N_POLICIES;
}

const CachePolicyOps *cache_policy_at(size_t i)
{
    return i < N_POLICIES ? registry[i] : NULL;
}

const char *const *cache_policy_names(void)
{
    static const char *names[N_POLICIES + N_CHUNK_POLICIES + 2];
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        size_t n = 0;
        const CachePolicyOps *ops;
        names[n++] = "none";
        for (size_t i = 0; i < N_POLICIES; i++)
            names[n++] = registry[i]->name;
        for (size_t i = 0; i < N_CHUNK_POLICIES; i++) /* chunk-only names */
            if (!cache_policy_lookup(chunk_registry[i]->name, &ops))
                names[n++] = chunk_registry[i]->name;
        names[n] = NULL;
        g_once_init_leave(&done, 1);
    }
    return names;
}
