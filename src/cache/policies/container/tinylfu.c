/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tinylfu.c: TinyLFU as an admission policy on its own (Einziger, Friedman
 * & Manes, ACM TOS 2017) in front of an SLRU main cache (slru.h: 20%
 * probation, 80% protected). Every access, hit or miss, is added to the
 * frequency sketch (frequency_sketch.h) first. A miss is admitted into
 * probation while a slot is free; when the cache is full it is admitted only
 * if its estimate exceeds the SLRU victim's, which it then replaces; else it
 * is refused and costs no SSD write.
 *
 * Choices the paper leaves open (docs/CACHE.md):
 *  - Ties keep the victim ("exceeds": strictly greater).
 *  - The sample size W is tinylfu-sample-factor x C accesses (10, the
 *    paper's example).
 *  - The sketch, its hashes and its aging: frequency_sketch.h.
 *
 * Counter: refused_estimate. Saved state, version 1: capacity u32,
 * probation and protected (each: length u32, slots u32 least recent
 * first), the sketch (frequency_sketch.h). */
#include "cache/policy/policy.h"
#include "cache/policy/frequency_sketch.h"
#include "cache/structures/slru.h"

enum { PROBATION, PROTECTED };
enum { KEY_SAMPLE, N_KEYS };
enum { REFUSED, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues q;
    Slru main;
    FrequencySketch sketch;
} TinyLfu;

static void *tinylfu_create(const CachePolicyEnv *env)
{
    TinyLfu *t = g_new0(TinyLfu, 1);
    t->env = env;
    slot_queues_init(&t->q, env->capacity);
    slru_init(&t->main, PROBATION, PROTECTED, env->capacity);
    sketch_init(&t->sketch, env->capacity, (uint64_t)env->values[KEY_SAMPLE].number * env->capacity);
    return t;
}

static void tinylfu_destroy(void *st)
{
    TinyLfu *t = st;
    slot_queues_free(&t->q);
    sketch_free(&t->sketch);
    g_free(t);
}

static void tinylfu_hit(void *st, CacheSlot slot)
{
    TinyLfu *t = st;
    sketch_add(&t->sketch, t->env->slot_id[slot]);
    slru_hit(&t->main, &t->q, slot);
}

static CacheDecision tinylfu_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    TinyLfu *t = st;
    unsigned estimate = sketch_add(&t->sketch, id);
    if (!full)
        return CACHE_ADMIT_FREE;
    CacheSlot v = slru_victim(&t->main, &t->q);
    if (estimate <= sketch_estimate(&t->sketch, t->env->slot_id[v])) {
        t->env->counters[REFUSED]++;
        return CACHE_REFUSE;
    }
    *victim = v;
    return CACHE_ADMIT_REPLACE;
}

static void tinylfu_inserted(void *st, CacheSlot slot)
{
    slot_queues_append(&((TinyLfu *)st)->q, PROBATION, slot);
}

static void tinylfu_removed(void *st, CacheSlot slot)
{
    slot_queues_unlink(&((TinyLfu *)st)->q, slot);
}

static void tinylfu_save_state(void *st, GByteArray *out)
{
    TinyLfu *t = st;
    guint at = out->len;
    g_byte_array_set_size(out, at + 4);
    le32_put(out->data + at, t->env->capacity);
    slot_queues_save(&t->q, 2, out);
    sketch_save(&t->sketch, out);
}

static gboolean tinylfu_load_state(void *st, const uint8_t *blob, size_t len)
{
    TinyLfu *t = st;
    size_t at = 4;
    if (len < 4 || le32_get(blob) != t->env->capacity || !slot_queues_load(&t->q, 2, t->env, blob, len, &at) ||
        !sketch_load(&t->sketch, blob, len, &at) || at != len)
        return FALSE;
    slot_queues_adopt(&t->q, PROBATION, t->env);
    return TRUE;
}

static size_t tinylfu_memory(const void *st)
{
    const TinyLfu *t = st;
    return sizeof *t + t->env->capacity * SLOT_QUEUES_BYTES_PER_SLOT + FREQUENCY_SKETCH_BYTES(t->env->capacity);
}

static const CachePolicyKey tinylfu_keys[N_KEYS] = {
    [KEY_SAMPLE] = { "tinylfu-sample-factor", CACHE_KEY_UINT, 1, 1000, NULL, "10",
                     "the sketch halves its counters every this many x capacity accesses (W)" },
};

static const CachePolicyCounter tinylfu_counters[N_COUNTERS] = {
    [REFUSED] = { "refused_estimate", "refused: estimate not above the victim's", NULL },
};

const CachePolicyOps cache_policy_tinylfu = {
    .name = "tinylfu",
    .description = "TinyLFU admission (count-min sketch) in front of an SLRU: admit a miss only if more frequent than the victim",
    .citation = "Einziger, Friedman & Manes: TinyLFU, ACM TOS 2017",
    .offline = FALSE,
    .keys = tinylfu_keys,
    .n_keys = N_KEYS,
    .counters = tinylfu_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = tinylfu_create,
    .destroy = tinylfu_destroy,
    .hit = tinylfu_hit,
    .admit = tinylfu_admit,
    .inserted = tinylfu_inserted,
    .removed = tinylfu_removed,
    .state_version = 1,
    .save_state = tinylfu_save_state,
    .load_state = tinylfu_load_state,
    /* the SLRU links, and the sketch: 4 rows of up to 2 C counters, 4 bits */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 4,
    .memory = tinylfu_memory,
};
