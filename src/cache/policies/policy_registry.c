/* SPDX-License-Identifier: GPL-3.0-or-later */
/* policy_registry.c: the one table of policies, by their ssd-cache-policy
 * name. "none" means no cache at all. Adding a policy: its own file
 * (defining `const CachePolicyOps cache_policy_<symbol>` with its name,
 * keys, counters and state) and one X(<symbol>) line below; everything else
 * (config keys, `destor policies`, statistics, cache.meta, the
 * registry-wide tests) finds it through this table. */
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
    X(belady)         \
    X(offline_static) \
    X(opt_budget)

#define DECLARE(sym) extern const CachePolicyOps cache_policy_##sym;
REGISTERED(DECLARE)
#define ENTRY(sym) &cache_policy_##sym,
static const CachePolicyOps *const registry[] = { REGISTERED(ENTRY) };

#define N_POLICIES (sizeof registry / sizeof registry[0])

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
    static const char *names[N_POLICIES + 2];
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        names[0] = "none";
        for (size_t i = 0; i < N_POLICIES; i++)
            names[i + 1] = registry[i]->name;
        g_once_init_leave(&done, 1);
    }
    return names;
}
