/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lfu.c: Least Frequently Used, in two variants of one heap. Every miss is
 * admitted; when full the victim is the cached container with the smallest
 * access_count. "lfu" (Perfect LFU) keeps every container's count for good,
 * cached or not; "lfu-incache" (In-Cache LFU, the common implementation)
 * has the core reset an evicted container's count, so a container competes
 * only with the accesses since it was last admitted. Tie-break: among equal counts, the one
 * least recently accessed (hit or insertion) goes first, so the order is
 * total and deterministic. A binary min-heap over slots (slot_heap.h),
 * keyed by (access_count, last-access tick): O(log capacity) per hit and
 * insertion. */
#include "cache/policy/policy.h"
#include "cache/structures/slot_heap.h"

typedef struct {
    uint32_t count; /* access_count when last touched */
    CacheSlot slot;
    uint64_t tick;  /* policy clock at last access */
} LfuKey;

static inline gboolean key_less(const void *ctx, const LfuKey *a, const LfuKey *b)
{
    (void)ctx;
    return a->count != b->count ? a->count < b->count : a->tick < b->tick;
}

SLOT_HEAP_DEFINE(LfuHeap, lfu_heap, LfuKey, key_less)

typedef struct {
    const CachePolicyEnv *env;
    LfuHeap heap; /* top: the victim */
    uint64_t clock;
    uint32_t *saved_count; /* per slot, between load_slot and load_done */
} Lfu;

static uint32_t count_of(const Lfu *l, CacheSlot slot)
{
    return cache_policy_env_slot_count(l->env, slot);
}

static void *lfu_create(const CachePolicyEnv *env)
{
    Lfu *l = g_new0(Lfu, 1);
    l->env = env;
    lfu_heap_init(&l->heap, env->capacity, NULL);
    return l;
}

static void lfu_destroy(void *st)
{
    Lfu *l = st;
    lfu_heap_free(&l->heap);
    g_free(l->saved_count);
    g_free(l);
}

static void lfu_hit(void *st, CacheSlot slot)
{
    Lfu *l = st;
    LfuKey *k = lfu_heap_of(&l->heap, slot);
    /* The key grows, but for a sketch's count lowered by the reset of a
     * container sharing its counters (lfu-incache, cache-counters sketch):
     * update moves it whichever way it went. */
    k->count = count_of(l, slot);
    k->tick = ++l->clock;
    lfu_heap_update(&l->heap, slot);
}

static CacheDecision lfu_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Lfu *l = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = lfu_heap_top(&l->heap)->slot;
    return CACHE_ADMIT_REPLACE;
}

static void lfu_inserted(void *st, CacheSlot slot)
{
    Lfu *l = st;
    LfuKey k = { .count = count_of(l, slot), .slot = slot, .tick = ++l->clock };
    lfu_heap_insert(&l->heap, k);
}

static void lfu_removed(void *st, CacheSlot slot)
{
    Lfu *l = st;
    lfu_heap_remove(&l->heap, slot);
}

/* What a clean shutdown keeps, per slot: the key's rank in tick order in
 * the high 32 bits (load_slot comes in that order, and fresh ticks keep
 * it) and its count as last touched in the low 32, which a sketch's
 * collisions or an aging may have moved away from the count now. The
 * policy-wide word says the words are so; a cache saved before carried
 * the tick alone (policy word 0), and its keys take the counts of now. */
#define LFU_WORDS_RANK_COUNT 1u

static int by_tick(const void *a, const void *b)
{
    const LfuKey *x = a, *y = b;
    return x->tick < y->tick ? -1 : x->tick > y->tick;
}

static uint64_t lfu_save(void *st, uint64_t *words)
{
    Lfu *l = st;
    if (l->heap.size == 0)
        return LFU_WORDS_RANK_COUNT;
    LfuKey *keys = g_memdup2(l->heap.entry, (gsize)l->heap.size * sizeof *keys);
    qsort(keys, l->heap.size, sizeof *keys, by_tick);
    for (uint32_t rank = 0; rank < l->heap.size; rank++)
        words[keys[rank].slot] = (uint64_t)rank << 32 | keys[rank].count;
    g_free(keys);
    return LFU_WORDS_RANK_COUNT;
}

static void lfu_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    Lfu *l = st;
    if (l->saved_count == NULL)
        l->saved_count = g_new0(uint32_t, l->env->capacity);
    l->saved_count[slot] = (uint32_t)word;
    lfu_inserted(st, slot);
}

static void lfu_load_done(void *st, uint64_t policy_word)
{
    Lfu *l = st;
    if (policy_word == LFU_WORDS_RANK_COUNT) {
        for (uint32_t i = 0; i < l->heap.size; i++)
            l->heap.entry[i].count = l->saved_count[l->heap.entry[i].slot];
        lfu_heap_rebuild(&l->heap);
    }
    g_free(l->saved_count);
    l->saved_count = NULL;
}

/* The two variants differ only in whether the core forgets a count. */
#define LFU_OPS(ops, policy_name, desc, reset)                \
    const CachePolicyOps ops = {                        \
        .name = policy_name,                            \
        .description = desc,                            \
        .citation = "classic (e.g. Aho, Denning, Ullman, JACM 1971)", \
        .reset_access_on_evict = reset,                 \
        .create = lfu_create,                           \
        .destroy = lfu_destroy,                         \
        .hit = lfu_hit,                                 \
        .admit = lfu_admit,                             \
        .inserted = lfu_inserted,                       \
        .removed = lfu_removed,                         \
        .save = lfu_save,                               \
        .load_slot = lfu_load_slot,                     \
        .load_done = lfu_load_done,                     \
        .bytes_per_slot = SLOT_HEAP_BYTES_PER_SLOT(LfuKey), \
    }

LFU_OPS(cache_policy_lfu, "lfu", "Perfect LFU: admit every miss, evict the fewest accesses ever (counts kept for every container)", FALSE);
LFU_OPS(cache_policy_lfu_incache, "lfu-incache", "In-Cache LFU: admit every miss, evict the fewest accesses since admission", TRUE);
