/* lfu.c: Least Frequently Used, in two variants of one heap. Every miss is
 * admitted; when full the victim is the cached container with the smallest
 * access_count. "lfu" (Perfect LFU) keeps every container's count for good,
 * cached or not; "lfu-incache" (In-Cache LFU, the common implementation)
 * has the core reset an evicted container's count, so a container competes
 * only with the accesses since it was last admitted. Tie-break: among equal counts, the one
 * least recently accessed (hit or insertion) goes first, so the order is
 * total and deterministic. A binary min-heap over slots keyed by
 * (access_count, last-access tick): O(log capacity) per hit and insertion. */
#include "cache/policy.h"

typedef struct {
    uint32_t count; /* access_count when last touched */
    uint32_t slot;
    uint64_t tick;  /* policy clock at last access */
} LfuKey;

typedef struct {
    const CachePolicyEnv *env;
    LfuKey *heap;  /* heap[0]: victim */
    uint32_t *pos; /* pos[slot]: index in heap */
    uint32_t size;
    uint64_t clock;
} Lfu;

static inline gboolean key_less(const LfuKey *a, const LfuKey *b)
{
    return a->count != b->count ? a->count < b->count : a->tick < b->tick;
}

static void heap_place(Lfu *l, uint32_t i, LfuKey k)
{
    l->heap[i] = k;
    l->pos[k.slot] = i;
}

static void sift_up(Lfu *l, uint32_t i)
{
    LfuKey k = l->heap[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!key_less(&k, &l->heap[parent]))
            break;
        heap_place(l, i, l->heap[parent]);
        i = parent;
    }
    heap_place(l, i, k);
}

static void sift_down(Lfu *l, uint32_t i)
{
    LfuKey k = l->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= l->size)
            break;
        if (c + 1 < l->size && key_less(&l->heap[c + 1], &l->heap[c]))
            c++;
        if (!key_less(&l->heap[c], &k))
            break;
        heap_place(l, i, l->heap[c]);
        i = c;
    }
    heap_place(l, i, k);
}

static uint32_t count_of(const Lfu *l, CacheSlot slot)
{
    return l->env->containers[l->env->slot_id[slot]].access_count;
}

static void *lfu_create(const CachePolicyEnv *env)
{
    Lfu *l = g_new0(Lfu, 1);
    uint32_t n = env->capacity ? env->capacity : 1;
    l->env = env;
    l->heap = g_new(LfuKey, n);
    l->pos = g_new(uint32_t, n);
    return l;
}

static void lfu_destroy(void *st)
{
    Lfu *l = st;
    g_free(l->heap);
    g_free(l->pos);
    g_free(l);
}

static void lfu_hit(void *st, CacheSlot slot)
{
    Lfu *l = st;
    uint32_t i = l->pos[slot];
    l->heap[i].count = count_of(l, slot);
    l->heap[i].tick = ++l->clock;
    sift_down(l, i); /* the key only grows */
}

static CacheDecision lfu_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Lfu *l = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = l->heap[0].slot;
    return CACHE_ADMIT_REPLACE;
}

static void lfu_inserted(void *st, CacheSlot slot)
{
    Lfu *l = st;
    LfuKey k = { .count = count_of(l, slot), .slot = slot, .tick = ++l->clock };
    heap_place(l, l->size++, k);
    sift_up(l, l->size - 1);
}

static void lfu_removed(void *st, CacheSlot slot)
{
    Lfu *l = st;
    uint32_t i = l->pos[slot];
    LfuKey last = l->heap[--l->size];
    if (i == l->size)
        return;
    LfuKey gone = l->heap[i];
    heap_place(l, i, last);
    if (key_less(&last, &gone))
        sift_up(l, i);
    else
        sift_down(l, i);
}

static uint64_t lfu_save(void *st, uint64_t *words)
{
    Lfu *l = st;
    for (uint32_t i = 0; i < l->size; i++)
        words[l->heap[i].slot] = l->heap[i].tick;
    return 0;
}

static void lfu_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    (void)word; /* called in old tick order: fresh ticks keep the order */
    lfu_inserted(st, slot);
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
        .load_done = NULL,                              \
        .bytes_per_slot = sizeof(LfuKey) + sizeof(uint32_t), \
    }

LFU_OPS(cache_policy_lfu, "lfu", "Perfect LFU: admit every miss, evict the fewest accesses ever (counts kept for every container)", FALSE);
LFU_OPS(cache_policy_lfu_incache, "lfu-incache", "In-Cache LFU: admit every miss, evict the fewest accesses since admission", TRUE);
