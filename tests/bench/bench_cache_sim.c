/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_cache_sim.c: how fast and how small the SSD cache is in simulation
 * mode. Replays a Zipf-like container trace (the paper's popularity model,
 * P(i) ~ 1 / i^(1 - alpha), alpha 0.47) over a store of 2,000,000
 * containers with a cache of 20% of them, and prints container accesses per
 * second (trace generation not timed) and peak RSS. Not a test: run it by
 * hand, e.g.
 *     tests/bench/bench_cache_sim --policy plc --containers 2000000
 * Options: --policy P, --containers N, --accesses A, --share PCT, --alpha A,
 *          --seed S, --quadrants (track quadrant data, 8 more bytes a
 *          container), --counters exact|compact|sketch (cache-counters); --list prints the registered policies, one a line
 *          (scripts/bench-cache.sh runs them all). An offline policy gets
 *          the whole trace first (cache_core_prepare), so its run holds the
 *          whole trace in memory (4 bytes an access). */
#include "cache/container/cache_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct {
    uint32_t n;
    double e;     /* 1 - s, s = 1 - alpha */
    double top;   /* (n + 1)^e - 1 */
    uint64_t mul; /* scatters ranks over ids */
    uint64_t state;
} Zipf;

/* Continuous inverse of the power law on [1, n + 1): O(1) per sample. */
static uint32_t zipf_next(Zipf *z)
{
    double u = (double)(next_rand(&z->state) >> 11) / 9007199254740992.0;
    double x = pow(z->top * u + 1.0, 1.0 / z->e);
    uint64_t rank = (uint64_t)x - 1;
    if (rank >= z->n)
        rank = z->n - 1;
    return (uint32_t)((rank * z->mul) % z->n);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int main(int argc, char **argv)
{
    const char *policy = "plc";
    uint32_t n = 2000000;
    uint64_t accesses = 20000000;
    double share = 20.0, alpha = 0.47;
    uint64_t seed = 1;
    gboolean quadrants = FALSE;
    AccessCountsMode counters = ACCESS_COUNTS_EXACT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--list")) {
            for (size_t k = 0; k < cache_policy_count(); k++)
                printf("%s\n", cache_policy_at(k)->name);
            return 0;
        }
        if (!strcmp(a, "--quadrants")) {
            quadrants = TRUE;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "usage: %s [--policy P] [--containers N] [--accesses A] [--share PCT]"
                            " [--alpha A] [--seed S] [--quadrants] [--counters exact|compact|sketch]\n", argv[0]);
            return 2;
        }
        if (!strcmp(a, "--policy"))
            policy = v;
        else if (!strcmp(a, "--containers"))
            n = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--accesses"))
            accesses = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--share"))
            share = strtod(v, NULL);
        else if (!strcmp(a, "--alpha"))
            alpha = strtod(v, NULL);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--counters")) {
            if (!access_counts_mode_parse(v, &counters)) {
                fprintf(stderr, "--counters: exact, compact or sketch, not %s\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (n == 0 || alpha <= 0 || alpha >= 1) {
        fprintf(stderr, "need --containers > 0 and 0 < --alpha < 1\n");
        return 2;
    }

    long rss_start = peak_rss_kib();
    /* the store's part: reference_count of every container */
    uint32_t *refs = g_new(uint32_t, n);
    uint64_t st = seed ^ 0xabcdef;
    for (uint32_t i = 0; i < n; i++)
        refs[i] = 1 + (uint32_t)(next_rand(&st) % 8);

    CacheConfig cfg;
    cache_config_init(&cfg);
    CacheCoreOptions o;
    cache_core_options_from_config(&o, &cfg);
    if (!cache_policy_lookup(policy, &o.policy) || o.policy == NULL) {
        fprintf(stderr, "unknown policy %s\n", policy);
        return 2;
    }
    o.mode = CACHE_MODE_SIMULATE;
    o.n_containers = n;
    o.capacity = (uint32_t)((double)n * share / 100.0);
    o.reference_count = refs;
    o.container_size = 2u << 20;
    o.track_quadrants = quadrants;
    o.counters = counters;
    GError *err = NULL;
    CacheCore *c = cache_core_open(&o, &err);
    if (c == NULL) {
        fprintf(stderr, "%s\n", err->message);
        return 1;
    }

    Zipf z = { .n = n, .e = alpha, .state = seed };
    z.top = pow((double)n + 1.0, z.e) - 1.0;
    z.mul = 2654435761u;
    while (gcd(z.mul, n) != 1)
        z.mul += 2;

    /* online: the trace in chunks; offline: all of it, handed over first */
    uint64_t chunk = o.policy->offline ? accesses : 1 << 20;
    uint32_t *ids = g_new(uint32_t, chunk ? chunk : 1);
    if (o.policy->offline) {
        for (uint64_t i = 0; i < accesses; i++)
            ids[i] = zipf_next(&z);
        if (!cache_core_prepare(c, ids, accesses, &err)) {
            fprintf(stderr, "%s\n", err->message);
            return 1;
        }
    }
    double seconds = 0;
    for (uint64_t done = 0; done < accesses;) {
        uint32_t len = accesses - done < chunk ? (uint32_t)(accesses - done) : (uint32_t)chunk;
        for (uint32_t i = 0; i < len && !o.policy->offline; i++)
            ids[i] = zipf_next(&z);
        gint64 t0 = g_get_monotonic_time();
        for (uint32_t i = 0; i < len; i++)
            if (!cache_access(c, ids[i], NULL, &err)) {
                fprintf(stderr, "%s\n", err->message);
                return 1;
            }
        seconds += (double)(g_get_monotonic_time() - t0) / 1e6;
        done += len;
    }

    CacheReport r;
    cache_core_report(c, &r);
    long rss = peak_rss_kib();
    printf("policy %s, %u containers, cache %u containers (%.0f%%), zipf alpha %.2f, seed %" G_GUINT64_FORMAT "\n",
           policy, n, r.capacity, share, alpha, seed);
    printf("accesses          %" G_GUINT64_FORMAT " in %.3f s: %.2f M accesses/s\n", r.c.accesses,
           seconds, (double)r.c.accesses / seconds / 1e6);
    printf("hit ratio         %.2f%%, %" G_GUINT64_FORMAT " containers written to SSD\n",
           100.0 * r.hit_ratio, r.c.ssd_containers_written);
    printf("metadata          %.2f B per container (incl. the store's reference_count), "
           "%zu B per slot: %.1f MiB (policy %.1f MiB)\n",
           r.bytes_per_container, r.bytes_per_slot, (double)r.memory_bytes / 1048576.0,
           (double)r.policy_memory_bytes / 1048576.0);
    printf("peak RSS          %.1f MiB (%.1f MiB at start, trace buffer %.1f MiB)\n", rss / 1024.0,
           rss_start / 1024.0, (double)chunk * 4.0 / 1048576.0);
    g_free(ids);
    cache_core_close(c, NULL);
    cache_config_clear(&cfg);
    g_free(refs);
    return 0;
}
