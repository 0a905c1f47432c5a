/* policy_registry.c: the one table mapping a policy name (ssd-cache-policy)
 * to its ops. "none" means no cache at all. */
#include "cache/policy.h"

#include <string.h>

static const struct {
    const char *name;
    const CachePolicyOps *ops;
} registry[] = {
    { "none", NULL },
    { "fifo", &cache_policy_fifo },
    { "lru", &cache_policy_lru },
    { "lfu", &cache_policy_lfu },
    { "lfu-incache", &cache_policy_lfu_incache },
    { "plc", &cache_policy_plc },
    { "clock", &cache_policy_clock },
    { "2q", &cache_policy_2q },
    { "arc", &cache_policy_arc },
    { "larc", &cache_policy_larc },
    { "s3fifo", &cache_policy_s3fifo },
    { "sieve", &cache_policy_sieve },
    { "tinylfu", &cache_policy_tinylfu },
    { "wtinylfu", &cache_policy_wtinylfu },
};

#define N_POLICIES (sizeof registry / sizeof registry[0])

gboolean cache_policy_lookup(const char *name, const CachePolicyOps **ops)
{
    for (size_t i = 0; name != NULL && i < N_POLICIES; i++) {
        if (strcmp(registry[i].name, name) == 0) {
            *ops = registry[i].ops;
            return TRUE;
        }
    }
    return FALSE;
}

const char *const *cache_policy_names(void)
{
    static const char *names[N_POLICIES + 1];
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        for (size_t i = 0; i < N_POLICIES; i++)
            names[i] = registry[i].name;
        g_once_init_leave(&done, 1);
    }
    return names;
}
