/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache_config.c: the cache's configuration keys: defaults, every
 * parser, errors naming key and value, "not a cache key", ssd-cache-size
 * resolution to a container count, and checks across keys (a policy's
 * keys for its policy only). */
#include "cache/config/cache_config.h"
#include "unit.h"
#include "util/error.h"

#include <string.h>

static CacheConfig cfg;

static int setup(void)
{
    cache_config_init(&cfg);
    return 0;
}

static int teardown(void)
{
    cache_config_clear(&cfg);
    return 0;
}

static void expect_ok(const char *key, const char *value)
{
    GError *err = NULL;
    CU_ASSERT_EQUAL(cache_config_set(&cfg, key, value, &err), CACHE_CONFIG_OK);
    if (err)
        fprintf(stderr, "\n%s %s: %s\n", key, value, err->message);
    g_clear_error(&err);
}

static void expect_invalid(const char *key, const char *value)
{
    GError *err = NULL;
    CU_ASSERT_EQUAL(cache_config_set(&cfg, key, value, &err), CACHE_CONFIG_INVALID);
    CU_ASSERT_TRUE_FATAL(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, key));
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, value));
    g_clear_error(&err);
}

/* The value a policy's key has in c (its default when unset). */
static CachePolicyValue policy_value(const CacheConfig *c, const char *key)
{
    const CachePolicyOps *ops = NULL;
    const CachePolicyKey *k = cache_policy_find_key(key, &ops);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CachePolicyValue *all = g_new0(CachePolicyValue, ops->n_keys);
    cache_policy_settings_resolve(c->policy_settings, ops, all);
    CachePolicyValue v = all[k - ops->keys];
    g_free(all);
    return v;
}

static void test_defaults(void)
{
    CacheConfig d;
    cache_config_init(&d);
    CU_ASSERT_STRING_EQUAL(d.policy, "none");
    CU_ASSERT_PTR_NULL(d.directory);
    CU_ASSERT_FALSE(cache_config_enabled(&d));
    CU_ASSERT_EQUAL(d.size.kind, CACHE_SIZE_PERCENT);
    CU_ASSERT_DOUBLE_EQUAL(d.size.percent, 20.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(policy_value(&d, "plc-filter-threshold").number, 4, 0);
    CU_ASSERT_DOUBLE_EQUAL(policy_value(&d, "plc-delay-threshold").number, 2, 0);
    CU_ASSERT_EQUAL(policy_value(&d, "plc-inout-factor").word, 0); /* auto */
    CU_ASSERT_EQUAL(d.quadrant_access_threshold, 5);
    CU_ASSERT_EQUAL(d.quadrant_repeat_threshold, 5);
    CU_ASSERT_TRUE(d.track_quadrants);
    CU_ASSERT_FALSE(d.simulate);
    CU_ASSERT_FALSE(d.o_direct);
    CU_ASSERT_EQUAL(d.ssd_tbw_bytes, (uint64_t)36500 << 30);
    CU_ASSERT_DOUBLE_EQUAL(d.device.hdd_rpm, 5400, 1e-12);
    CU_ASSERT_TRUE(cache_config_validate(&d, NULL));
    cache_config_clear(&d);
}

static void test_not_a_cache_key(void)
{
    GError *err = NULL;
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "chunk-algorithm", "rabin", &err), CACHE_CONFIG_UNKNOWN);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache", "x", &err), CACHE_CONFIG_UNKNOWN);
    CU_ASSERT_FALSE(cache_config_is_key("restore-cache"));
    CU_ASSERT_TRUE(cache_config_is_key("plc-filter-threshold"));
    CU_ASSERT_TRUE(cache_config_is_key("plc_filter_threshold"));
}

static void test_every_key(void)
{
    expect_ok("ssd-cache-policy", "PLC");
    CU_ASSERT_STRING_EQUAL(cfg.policy, "plc");
    CU_ASSERT_TRUE(cache_config_enabled(&cfg));
    expect_ok("ssd-cache-directory", "/mnt/ssd/cache");
    CU_ASSERT_STRING_EQUAL(cfg.directory, "/mnt/ssd/cache");
    expect_ok("ssd-cache-simulate", "yes");
    CU_ASSERT_TRUE(cfg.simulate);
    expect_ok("ssd-cache-o-direct", "on");
    CU_ASSERT_TRUE(cfg.o_direct);
    expect_ok("ssd-cache-quadrants", "no");
    CU_ASSERT_FALSE(cfg.track_quadrants);
    CU_ASSERT_EQUAL(cfg.counters, ACCESS_COUNTS_EXACT); /* the default */
    expect_ok("cache-counters", "sketch");
    CU_ASSERT_EQUAL(cfg.counters, ACCESS_COUNTS_SKETCH);
    expect_ok("cache_counters", "Compact");
    CU_ASSERT_EQUAL(cfg.counters, ACCESS_COUNTS_COMPACT);
    expect_invalid("cache-counters", "approximate");
    expect_invalid("cache-counters", "");
    CU_ASSERT_EQUAL(cfg.counters, ACCESS_COUNTS_COMPACT); /* a bad value changes nothing */
    expect_ok("cache-counters", "exact");
    CU_ASSERT_EQUAL(cfg.counters, ACCESS_COUNTS_EXACT);
    expect_ok("plc-filter-threshold", "7");
    CU_ASSERT_DOUBLE_EQUAL(policy_value(&cfg, "plc-filter-threshold").number, 7, 0);
    expect_ok("plc_delay_threshold", "0");
    CU_ASSERT_DOUBLE_EQUAL(policy_value(&cfg, "plc-delay-threshold").number, 0, 0);
    expect_ok("plc-inout-factor", "1.8");
    CU_ASSERT_EQUAL(policy_value(&cfg, "plc-inout-factor").word, -1);
    CU_ASSERT_DOUBLE_EQUAL(policy_value(&cfg, "plc-inout-factor").number, 1.8, 1e-12);
    expect_ok("plc-inout-factor", "auto");
    CU_ASSERT_EQUAL(policy_value(&cfg, "plc-inout-factor").word, 0);
    expect_ok("plc-initial-priority", "3");
    CU_ASSERT_EQUAL(policy_value(&cfg, "plc-initial-priority").word, -1);
    CU_ASSERT_DOUBLE_EQUAL(policy_value(&cfg, "plc-initial-priority").number, 3, 0);
    expect_ok("plc-initial-priority", "hotness");
    CU_ASSERT_EQUAL(policy_value(&cfg, "plc-initial-priority").word, 0);
    expect_ok("plc-delay-after-compare", "reset");
    CU_ASSERT_EQUAL(policy_value(&cfg, "plc-delay-after-compare").word, 1);
    expect_ok("plc-delay-after-compare", "keep");
    CU_ASSERT_EQUAL(policy_value(&cfg, "plc-delay-after-compare").word, 0);
    expect_ok("quadrant-access-threshold", "3");
    expect_ok("quadrant-repeat-threshold", "9");
    CU_ASSERT_EQUAL(cfg.quadrant_access_threshold, 3);
    CU_ASSERT_EQUAL(cfg.quadrant_repeat_threshold, 9);
    expect_ok("model-hdd-seek-ms", "8.5");
    expect_ok("model-hdd-rpm", "7200");
    expect_ok("model-hdd-mb-per-s", "150");
    expect_ok("model-ssd-read-latency-us", "60");
    expect_ok("model-ssd-read-mb-per-s", "550");
    expect_ok("model-ssd-write-latency-us", "70");
    expect_ok("model-ssd-write-mb-per-s", "475");
    CU_ASSERT_DOUBLE_EQUAL(cfg.device.hdd_seek_ms, 8.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cfg.device.hdd_rpm, 7200, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cfg.device.ssd_write_mb_per_s, 475, 1e-12);
    expect_ok("ssd-tbw", "36500G");
    CU_ASSERT_EQUAL(cfg.ssd_tbw_bytes, (uint64_t)36500 << 30);
    expect_ok("ssd-tbw", "5");
    CU_ASSERT_EQUAL(cfg.ssd_tbw_bytes, (uint64_t)5 << 40);
    expect_ok("ssd-tbw", "0.5");
    CU_ASSERT_EQUAL(cfg.ssd_tbw_bytes, (uint64_t)1 << 39);
    expect_ok("ssd-cache-write-budget", "108000.5");
    CU_ASSERT_DOUBLE_EQUAL(cfg.write_budget, 108000.5, 1e-9);
    CU_ASSERT_EQUAL(cfg.segment_size, 4u << 20); /* the default */
    CU_ASSERT_EQUAL(cfg.segment_reclaim, CHUNK_LOG_EVICT);
    expect_ok("ssd-cache-segment-size", "256K");
    CU_ASSERT_EQUAL(cfg.segment_size, 256u << 10);
    expect_ok("ssd_cache_segment_size", "1G");
    CU_ASSERT_EQUAL(cfg.segment_size, 1u << 30);
    expect_ok("ssd-cache-segment-reclaim", "clean");
    CU_ASSERT_EQUAL(cfg.segment_reclaim, CHUNK_LOG_CLEAN);
    expect_ok("ssd-cache-segment-reclaim", "reinsert");
    CU_ASSERT_EQUAL(cfg.segment_reclaim, CHUNK_LOG_REINSERT);
    expect_ok("ssd-cache-segment-reclaim", "evict");
    CU_ASSERT_EQUAL(cfg.segment_reclaim, CHUNK_LOG_EVICT);
    CU_ASSERT_EQUAL(cfg.layout, CHUNK_LAYOUT_LOG);
    expect_ok("ssd-cache-layout", "buckets");
    CU_ASSERT_EQUAL(cfg.layout, CHUNK_LAYOUT_BUCKETS);
    expect_ok("ssd_cache_layout", "log");
    CU_ASSERT_EQUAL(cfg.layout, CHUNK_LAYOUT_LOG);
    CU_ASSERT_PTR_NULL(cfg.admission_ops); /* unset: admission_default */
    for (size_t i = 0; i < admission_count(); i++) {
        expect_ok("ssd-cache-admission", admission_at(i)->name);
        CU_ASSERT_PTR_EQUAL(cfg.admission_ops, admission_at(i));
    }
    expect_ok("ssd_cache_admission", "Bucket");
    CU_ASSERT_STRING_EQUAL(cfg.admission_ops->name, "bucket");
    expect_ok("ssd-cache-admission", "auto");
    CU_ASSERT_PTR_NULL(cfg.admission_ops);
}

static void test_invalid_values(void)
{
    expect_invalid("ssd-cache-policy", "nosuch");
    expect_invalid("ssd-cache-size", "abc");
    expect_invalid("ssd-cache-size", "0");
    expect_invalid("ssd-cache-size", "150%");
    expect_invalid("ssd-cache-size", "0%");
    expect_invalid("ssd-cache-size", "-3");
    expect_invalid("ssd-cache-simulate", "maybe");
    expect_invalid("plc-filter-threshold", "-1");
    expect_invalid("plc-filter-threshold", "4x");
    expect_invalid("plc-filter-threshold", "99999999999");
    expect_invalid("plc-inout-factor", "2.5");
    expect_invalid("plc-inout-factor", "0.9");
    expect_invalid("plc-inout-factor", "fast");
    expect_invalid("plc-initial-priority", "warm");
    expect_invalid("plc-delay-after-compare", "drop");
    expect_invalid("model-hdd-mb-per-s", "0");
    expect_invalid("model-hdd-seek-ms", "nan");
    expect_invalid("ssd-tbw", "lots");
    expect_invalid("ssd-cache-write-budget", "-1");
    expect_invalid("ssd-cache-write-budget", "64K");
    expect_invalid("ssd-cache-segment-size", "32K");   /* below the smallest */
    expect_invalid("ssd-cache-segment-size", "65537"); /* not a multiple of 4K */
    expect_invalid("ssd-cache-segment-size", "2G");
    expect_invalid("ssd-cache-segment-size", "big");
    expect_invalid("ssd-cache-segment-reclaim", "lru");
    expect_invalid("ssd-cache-layout", "bucket");
    expect_invalid("ssd-cache-admission", "tinylfu");
    expect_invalid("ssd-cache-layout", "");
    GError *err = NULL;
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-directory", "", &err), CACHE_CONFIG_INVALID);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
    g_clear_error(&err);
}

static uint32_t resolve(const char *size, size_t container_size, uint32_t n, gboolean *ok)
{
    CacheConfig c;
    cache_config_init(&c);
    uint32_t cap = 0;
    CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-size", size, NULL), CACHE_CONFIG_OK);
    GError *err = NULL;
    *ok = cache_config_resolve_capacity(&c, container_size, n, &cap, &err);
    if (!*ok) {
        CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
        g_clear_error(&err);
    }
    cache_config_clear(&c);
    return cap;
}

static void test_size_resolution(void)
{
    gboolean ok;
    size_t two_mib = 2u << 20;
    CU_ASSERT_EQUAL(resolve("400", two_mib, 1000, &ok), 400);
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_EQUAL(resolve("512M", two_mib, 1000, &ok), 256);
    CU_ASSERT_EQUAL(resolve("4G", two_mib, 1000, &ok), 2048);
    CU_ASSERT_EQUAL(resolve("3M", two_mib, 1000, &ok), 1); /* whole containers only */
    CU_ASSERT_EQUAL(resolve("20%", two_mib, 1000, &ok), 200);
    CU_ASSERT_EQUAL(resolve("12.5%", two_mib, 1000, &ok), 125);
    CU_ASSERT_EQUAL(resolve("1%", two_mib, 10, &ok), 1); /* at least one */
    CU_ASSERT_EQUAL(resolve("20%", two_mib, 0, &ok), 0);
    CU_ASSERT_TRUE(ok);
    resolve("1M", two_mib, 1000, &ok); /* holds no container */
    CU_ASSERT_FALSE(ok);
}

static void test_validate(void)
{
    CacheConfig c;
    cache_config_init(&c);
    GError *err = NULL;
    cache_config_set(&c, "ssd-cache-policy", "lru", NULL);
    CU_ASSERT_FALSE(cache_config_validate(&c, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, "ssd-cache-directory"));
    g_clear_error(&err);
    c.simulate = TRUE;
    CU_ASSERT_TRUE(cache_config_validate(&c, NULL));
    c.simulate = FALSE;
    cache_config_set(&c, "ssd-cache-directory", "/tmp/x", NULL);
    CU_ASSERT_TRUE(cache_config_validate(&c, NULL));
    /* ssd-cache-layout buckets: chunk granularity only, with the policy
     * austere only and that policy only with it; compression at chunk
     * granularity with either layout, in real mode and in simulation */
    const struct {
        const char *granularity, *policy, *layout, *compression;
        gboolean simulate;
        const char *error; /* NULL: valid */
    } cases[] = {
        { "container", "lru", "buckets", "none", FALSE, "applies to ssd-cache-granularity chunk only" },
        { "chunk", "lru", "buckets", "none", FALSE, "needs ssd-cache-policy austere" },
        { "chunk", "austere", "log", "none", FALSE, "austere needs ssd-cache-layout buckets" },
        { "chunk", "austere", "buckets", "none", FALSE, NULL },
        { "chunk", "austere", "buckets", "none", TRUE, NULL },
        { "chunk", "austere", "buckets", "lz4", FALSE, NULL },
        { "chunk", "austere", "buckets", "zstd", TRUE, NULL },
        { "chunk", "lru", "log", "lz4", FALSE, NULL },
        { "chunk", "lru", "log", "zstd", TRUE, NULL },
        { "chunk", "lru", "log", "none", FALSE, NULL },
        { "container", "austere", "log", "none", FALSE, "austere serves chunk granularity only" },
        { "container", "lru", "log", "lz4", FALSE, NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-granularity", cases[i].granularity, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-policy", cases[i].policy, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-layout", cases[i].layout, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-compression", cases[i].compression, NULL), CACHE_CONFIG_OK);
        c.simulate = cases[i].simulate;
        gboolean ok = cache_config_validate(&c, &err);
        CU_ASSERT_EQUAL(ok, cases[i].error == NULL);
        if (cases[i].error != NULL) {
            CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
            CU_ASSERT_PTR_NOT_NULL(err ? strstr(err->message, cases[i].error) : NULL);
        }
        g_clear_error(&err);
    }
    c.simulate = FALSE;
    cache_config_set(&c, "ssd-cache-granularity", "container", NULL);
    cache_config_set(&c, "ssd-cache-policy", "lru", NULL);
    cache_config_set(&c, "ssd-cache-layout", "log", NULL);
    cache_config_set(&c, "ssd-cache-compression", "none", NULL);
    /* ssd-cache-admission: a rule that spends the write budget needs one, a
     * budget needs such a rule; unset, the rule follows the budget; either
     * granularity */
    const struct {
        const char *granularity, *admission, *budget, *error; /* admission NULL: unset */
        const char *dwpd;                                      /* NULL: 0 */
    } rules[] = {
        { "container", NULL, "0", NULL },
        { "container", NULL, "0", NULL, "0.5" },
        { "chunk", "learned", "0", NULL, "3" },
        { "container", "compete", "4096", "set one of them", "1" },
        { "container", "all", "0", "ssd-cache-write-budget-dwpd applies to an admission rule", "1" },
        { "container", NULL, "4096", NULL },
        { "chunk", NULL, "4096", NULL },
        { "container", "bucket", "4096", NULL },
        { "chunk", "compete", "4096", NULL },
        { "chunk", "doorkeeper", "0", NULL },
        { "container", "compete", "0", "ssd-cache-admission compete needs ssd-cache-write-budget" },
        { "chunk", "bucket", "0", "ssd-cache-admission bucket needs ssd-cache-write-budget" },
        { "container", "all", "4096", "not to ssd-cache-admission all" },
        { "chunk", "doorkeeper", "1", "not to ssd-cache-admission doorkeeper" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rules); i++) {
        cache_config_set(&c, "ssd-cache-granularity", rules[i].granularity, NULL);
        c.admission_ops = NULL;
        if (rules[i].admission)
            CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-admission", rules[i].admission, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-write-budget", rules[i].budget, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-write-budget-dwpd", rules[i].dwpd ? rules[i].dwpd : "0", NULL),
                        CACHE_CONFIG_OK);
        if (rules[i].dwpd)
            CU_ASSERT_DOUBLE_EQUAL(c.write_dwpd, g_ascii_strtod(rules[i].dwpd, NULL), 0);
        gboolean ok = cache_config_validate(&c, &err);
        CU_ASSERT_EQUAL(ok, rules[i].error == NULL);
        if (rules[i].error != NULL)
            CU_ASSERT_PTR_NOT_NULL(err ? strstr(err->message, rules[i].error) : NULL);
        g_clear_error(&err);
    }
    c.admission_ops = NULL;
    cache_config_set(&c, "ssd-cache-write-budget", "0", NULL);
    cache_config_set(&c, "ssd-cache-write-budget-dwpd", "0", NULL);
    CU_ASSERT_NOT_EQUAL(cache_config_set(&c, "ssd-cache-write-budget-dwpd", "-1", NULL), CACHE_CONFIG_OK);
    CU_ASSERT_NOT_EQUAL(cache_config_set(&c, "ssd-cache-write-budget-dwpd", "x", NULL), CACHE_CONFIG_OK);
    cache_config_set(&c, "ssd-cache-granularity", "container", NULL);
    CacheConfig copy;
    cache_config_copy(&copy, &c);
    CU_ASSERT_STRING_EQUAL(copy.directory, "/tmp/x");
    CU_ASSERT_PTR_NOT_EQUAL(copy.directory, c.directory);
    cache_config_clear(&copy);
    cache_config_clear(&c);
}

/* A policy's own key set away from its default applies to that policy
 * only: for another policy of either granularity, or with no cache, it is
 * an error naming the key and the policy; at its default (as destor.config
 * spells every policy's keys out) it passes. */
static void test_policy_keys_apply(void)
{
    const struct {
        const char *granularity, *policy, *key, *value;
        gboolean valid;
    } cases[] = {
        { "container", "plc", "plc-filter-threshold", "8", TRUE },
        { "container", "lru", "plc-filter-threshold", "8", FALSE },
        { "container", "none", "plc-filter-threshold", "8", FALSE },
        { "container", "none", "plc-filter-threshold", "4", TRUE }, /* the default */
        { "container", "lru", "plc-inout-factor", "auto", TRUE },   /* the default, a word */
        { "container", "lru", "plc-inout-factor", "2", FALSE },
        { "chunk", "plc", "plc-filter-threshold", "8", FALSE },     /* the container plc's key */
        { "chunk", "plc", "plc-chunk-filter-threshold", "8", TRUE },
        { "container", "plc", "plc-chunk-filter-threshold", "8", FALSE },
        { "chunk", "none", "plc-chunk-filter-threshold", "8", FALSE },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CacheConfig c;
        GError *err = NULL;
        cache_config_init(&c);
        c.simulate = TRUE;
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-granularity", cases[i].granularity, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, "ssd-cache-policy", cases[i].policy, NULL), CACHE_CONFIG_OK);
        CU_ASSERT_EQUAL(cache_config_set(&c, cases[i].key, cases[i].value, NULL), CACHE_CONFIG_OK);
        gboolean ok = cache_config_validate(&c, &err);
        CU_ASSERT_EQUAL(ok, cases[i].valid);
        if (!cases[i].valid) {
            CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
            char *want = g_strdup_printf("%s does not apply to ssd-cache-policy %s", cases[i].key, cases[i].policy);
            CU_ASSERT_PTR_NOT_NULL(err ? strstr(err->message, want) : NULL);
            g_free(want);
        }
        g_clear_error(&err);
        cache_config_clear(&c);
    }
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("cache config", setup, teardown);
    CU_add_test(s, "defaults", test_defaults);
    CU_add_test(s, "not a cache key", test_not_a_cache_key);
    CU_add_test(s, "every key", test_every_key);
    CU_add_test(s, "invalid values", test_invalid_values);
    CU_add_test(s, "ssd-cache-size resolution", test_size_resolution);
    CU_add_test(s, "validate", test_validate);
    CU_add_test(s, "policy keys apply to their policy", test_policy_keys_apply);
}

UNIT_MAIN(add_suites)
