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
 *  - The sample size W is TINYLFU_SAMPLE_FACTOR x C accesses (10, the
 *    paper's example; `tinylfu-sample-factor` with the policy seam).
 *  - The sketch, its hashes and its aging: frequency_sketch.h. */
#include "cache/policy.h"
#include "cache/frequency_sketch.h"
#include "cache/slru.h"

#define TINYLFU_SAMPLE_FACTOR 10

enum { PROBATION, PROTECTED };

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
    sketch_init(&t->sketch, env->capacity, (uint64_t)TINYLFU_SAMPLE_FACTOR * env->capacity);
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
    if (estimate <= sketch_estimate(&t->sketch, t->env->slot_id[v]))
        return CACHE_REFUSE;
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

const CachePolicyOps cache_policy_tinylfu = {
    .name = "tinylfu",
    .reset_access_on_evict = FALSE,
    .create = tinylfu_create,
    .destroy = tinylfu_destroy,
    .hit = tinylfu_hit,
    .admit = tinylfu_admit,
    .inserted = tinylfu_inserted,
    .removed = tinylfu_removed,
    .save = NULL,
    .load_slot = NULL,
    .load_done = NULL,
    /* the SLRU links, and the sketch: 4 rows of up to 2 C counters, 4 bits */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 4,
};
