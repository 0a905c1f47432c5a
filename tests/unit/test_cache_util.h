/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache_util.h: helpers shared by the SSD cache tests: default policy
 * parameters, a seeded generator of skewed container ids, a simulation-mode
 * cache in one call, and an observer that records evictions/admissions. */
#ifndef DESTOR_TEST_CACHE_UTIL_H
#define DESTOR_TEST_CACHE_UTIL_H

#include "cache/config/cache_config.h"
#include "cache/container/cache_core.h"

#include <CUnit/CUnit.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

#define TEST_CONTAINER_SIZE 4096

/* A registered policy by name. */
static inline const CachePolicyOps *test_policy(const char *name)
{
    const CachePolicyOps *ops = NULL;
    CU_ASSERT_FATAL(cache_policy_lookup(name, &ops) && ops != NULL);
    return ops;
}

/* PLC's keys (plc.c) as the tests set them; test_settings() turns them
 * into the config values the cache reads. */
typedef enum { PLC_PRIORITY_HOTNESS, PLC_PRIORITY_FIXED } PlcPriorityMode;
typedef struct {
    uint32_t plc_filter_threshold;
    uint32_t plc_delay_threshold;
    gboolean plc_inout_auto;
    double plc_inout_factor;
    PlcPriorityMode plc_priority_mode;
    uint32_t plc_initial_priority;
    gboolean plc_delay_reset;
} PlcTestParams;

/* PLC's documented defaults. */
static inline PlcTestParams test_default_params(void)
{
    PlcTestParams p = { 4, 2, TRUE, 1.5, PLC_PRIORITY_HOTNESS, 1, FALSE };
    return p;
}

static inline void test_set(CachePolicySettings *s, const char *key, const char *value)
{
    GError *err = NULL;
    CU_ASSERT_TRUE(cache_policy_settings_set(s, key, value, &err));
    g_clear_error(&err);
}

/* Settings holding p (NULL: none set). The cache reads them only when it
 * opens; the last ones made are kept until the next call. */
static inline const CachePolicySettings *test_settings(const PlcTestParams *p)
{
    static CachePolicySettings *held;
    cache_policy_settings_free(held);
    held = cache_policy_settings_new();
    if (p == NULL)
        return held;
    char buf[64];
    g_snprintf(buf, sizeof buf, "%u", p->plc_filter_threshold);
    test_set(held, "plc-filter-threshold", buf);
    g_snprintf(buf, sizeof buf, "%u", p->plc_delay_threshold);
    test_set(held, "plc-delay-threshold", buf);
    g_ascii_formatd(buf, sizeof buf, "%.17g", p->plc_inout_factor);
    test_set(held, "plc-inout-factor", p->plc_inout_auto ? "auto" : buf);
    g_snprintf(buf, sizeof buf, "%u", p->plc_initial_priority);
    test_set(held, "plc-initial-priority", p->plc_priority_mode == PLC_PRIORITY_HOTNESS ? "hotness" : buf);
    test_set(held, "plc-delay-after-compare", p->plc_delay_reset ? "reset" : "keep");
    return held;
}

static inline CacheCoreOptions test_options(const CachePolicyOps *ops, const PlcTestParams *p,
                                            uint32_t capacity, uint32_t n, const uint32_t *refs)
{
    CacheConfig cfg;
    cache_config_init(&cfg);
    cfg.simulate = TRUE;
    CacheCoreOptions o;
    cache_core_options_from_config(&o, &cfg);
    cache_config_clear(&cfg);
    o.policy = ops;
    o.policy_settings = test_settings(p);
    o.capacity = capacity;
    o.n_containers = n;
    o.reference_count = refs;
    o.container_size = TEST_CONTAINER_SIZE;
    o.mode = CACHE_MODE_SIMULATE;
    return o;
}

static inline CacheCore *test_sim_open(const CachePolicyOps *ops, const PlcTestParams *p,
                                       uint32_t capacity, uint32_t n, const uint32_t *refs)
{
    CacheCoreOptions o = test_options(ops, p, capacity, n, refs);
    GError *err = NULL;
    CacheCore *c = cache_core_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static inline void test_run(CacheCore *c, const uint32_t *seq, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        GError *err = NULL;
        CU_ASSERT_TRUE(cache_access(c, seq[i], NULL, &err));
        g_clear_error(&err);
    }
}

/* splitmix64: a small seeded generator. */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A container id in [0, n), skewed towards small ids (density ~ x^-2/3)
 * so that there are hits and repeated accesses. */
static inline uint32_t test_skewed_id(uint64_t *state, uint32_t n)
{
    double u = (double)(test_rand(state) >> 11) / 9007199254740992.0;
    uint32_t id = (uint32_t)((double)n * u * u * u);
    return id < n ? id : n - 1;
}

static inline uint32_t *test_trace(uint64_t seed, uint32_t n, size_t len)
{
    uint32_t *t = g_new(uint32_t, len);
    uint64_t st = seed;
    for (size_t i = 0; i < len; i++)
        t[i] = test_skewed_id(&st, n);
    return t;
}

/* A policy alone over an env built as the core builds it (cache_core.c):
 * n containers counted in `mode`, `capacity` slots, all free, the policy's
 * keys from `settings` (NULL: defaults). test_env_create() makes the policy
 * and sets the aging it asks for; test_env_drive() then plays accesses the
 * way the core's access path does. slot_of is the test's own id -> slot map. */
typedef struct {
    const CachePolicyOps *ops;
    AccessCounts counts;
    ContainerId *slot_id;
    CacheSlot *slot_of;
    CachePolicyValue values[16];
    uint64_t counters[32];
    CachePolicyEnv env;
} TestEnv;

static inline void test_env_init(TestEnv *e, const CachePolicyOps *ops, const CachePolicySettings *settings,
                                 uint32_t capacity, uint32_t n, AccessCountsMode mode)
{
    memset(e, 0, sizeof *e);
    CU_ASSERT_FATAL(ops->n_keys <= G_N_ELEMENTS(e->values) && ops->n_counters <= G_N_ELEMENTS(e->counters));
    e->ops = ops;
    access_counts_init(&e->counts, mode, n);
    e->slot_id = g_new(ContainerId, capacity ? capacity : 1);
    for (uint32_t s = 0; s < capacity; s++)
        e->slot_id[s] = CACHE_NO_CONTAINER;
    e->slot_of = g_new(CacheSlot, n ? n : 1);
    for (uint32_t i = 0; i < n; i++)
        e->slot_of[i] = CACHE_NO_SLOT;
    cache_policy_settings_resolve(settings, ops, e->values);
    e->env = (CachePolicyEnv){ .capacity = capacity, .n_containers = n, .counts = &e->counts,
                               .slot_id = e->slot_id, .values = e->values, .counters = e->counters };
}

static inline void *test_env_create(TestEnv *e)
{
    void *st = e->ops->create(&e->env);
    cache_policy_set_age_window(e->ops, st, &e->counts);
    return st;
}

static inline void test_env_free(TestEnv *e)
{
    access_counts_clear(&e->counts);
    g_free(e->slot_id);
    g_free(e->slot_of);
}

/* Play accesses [from, to) of seq on policy st, appending each decision
 * ('h', 'r', 'a', or 'e' and the victim's id) to `log` when not NULL. */
static inline void test_env_drive(TestEnv *e, void *st, const uint32_t *seq, size_t from, size_t to, GString *log)
{
    const CachePolicyOps *ops = e->ops;
    for (size_t i = from; i < to; i++) {
        ContainerId id = seq[i];
        cache_policy_count_access(ops, st, &e->counts, id);
        if (e->slot_of[id] != CACHE_NO_SLOT) {
            ops->hit(st, e->slot_of[id]);
            if (log)
                g_string_append(log, "h ");
            continue;
        }
        uint32_t used = 0;
        CacheSlot slot = CACHE_NO_SLOT;
        for (uint32_t s = e->env.capacity; s-- > 0;) {
            if (cache_policy_env_occupied(&e->env, s))
                used++;
            else
                slot = s; /* the lowest free slot, as the core's free stack */
        }
        CacheSlot victim = CACHE_NO_SLOT;
        CacheDecision d = e->env.capacity ? ops->admit(st, id, used == e->env.capacity, &victim) : CACHE_REFUSE;
        if (d == CACHE_REFUSE) {
            if (log)
                g_string_append(log, "r ");
            continue;
        }
        if (d == CACHE_ADMIT_FREE) {
            if (log)
                g_string_append(log, "a ");
        } else {
            ContainerId old = e->slot_id[victim];
            if (log)
                g_string_append_printf(log, "e%u ", old);
            ops->removed(st, victim);
            e->slot_of[old] = CACHE_NO_SLOT;
            e->slot_id[victim] = CACHE_NO_CONTAINER;
            if (ops->reset_access_on_evict)
                access_counts_reset(&e->counts, old);
            slot = victim;
        }
        e->slot_id[slot] = id;
        e->slot_of[id] = slot;
        ops->inserted(st, slot);
    }
}

/* Records events of interest in order. */
typedef struct {
    GArray *evicted;  /* ContainerId */
    GArray *admitted; /* ContainerId */
    GArray *admit_counts; /* access_count at admission */
} TestLog;

static inline void test_log_observer(const CacheEvent *ev, void *user)
{
    TestLog *log = user;
    if (ev->kind == CACHE_EVENT_EVICT)
        g_array_append_val(log->evicted, ev->id);
    if (ev->kind == CACHE_EVENT_ADMIT) {
        g_array_append_val(log->admitted, ev->id);
        g_array_append_val(log->admit_counts, ev->access_count);
    }
}

static inline void test_log_init(TestLog *log)
{
    log->evicted = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    log->admitted = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    log->admit_counts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
}

static inline void test_log_free(TestLog *log)
{
    g_array_free(log->evicted, TRUE);
    g_array_free(log->admitted, TRUE);
    g_array_free(log->admit_counts, TRUE);
}

#define TEST_LOG_AT(arr, i) g_array_index((arr), ContainerId, (i))

/* The report's JSON object as printed (generated text), parsed back:
 * the caller unrefs it. */
static inline JsonObject *test_report_json(const CacheReport *r)
{
    JsonBuilder *b = json_builder_new();
    cache_report_json(r, b);
    JsonNode *root = json_builder_get_root(b);
    JsonGenerator *g = json_generator_new();
    json_generator_set_root(g, root);
    char *text = json_generator_to_data(g, NULL);
    JsonParser *p = json_parser_new();
    JsonObject *o = NULL;
    if (json_parser_load_from_data(p, text, -1, NULL) && JSON_NODE_HOLDS_OBJECT(json_parser_get_root(p)))
        o = json_object_ref(json_node_get_object(json_parser_get_root(p)));
    g_object_unref(p);
    g_free(text);
    g_object_unref(g);
    json_node_unref(root);
    g_object_unref(b);
    return o;
}

#endif
