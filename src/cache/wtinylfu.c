/* wtinylfu.c: W-TinyLFU (Einziger, Friedman & Manes, ACM TOS 2017): a small
 * LRU window in front of an SLRU main cache (slru.h) guarded by TinyLFU.
 * Every miss is admitted into the window (the window is on the SSD, so that
 * is the SSD write); containers later move between the window and the main
 * cache as metadata only. Every access, hit or miss, is added to the
 * frequency sketch (frequency_sketch.h) first.
 *
 *   hit in the window: move to its most recent end; in the main: SLRU hit.
 *   miss, cache not full: the newcomer enters the window; if the window is
 *     then over its size, its least recent entry moves to probation.
 *   miss, cache full: the window's least recent entry is the candidate. If
 *     its estimate exceeds the main victim's, the main victim is evicted and
 *     the candidate moves to probation; else the candidate is evicted. The
 *     newcomer enters the window.
 *
 * Choices the paper leaves open (docs/CACHE.md):
 *  - The window is floor(WTINYLFU_WINDOW_RATIO x C) slots (1%, the paper's
 *    and Caffeine's default), at least 1; the main cache holds the rest
 *    (`wtinylfu-window-ratio` with the policy seam). With C = 1 there is no
 *    main cache and the window alone is an LRU of one.
 *  - Ties keep the main victim (the candidate is evicted).
 *  - Sample size W = WTINYLFU_SAMPLE_FACTOR x C accesses (10). */
#include "cache/policy.h"
#include "cache/frequency_sketch.h"
#include "cache/slru.h"

#define WTINYLFU_WINDOW_RATIO 0.01
#define WTINYLFU_SAMPLE_FACTOR 10

enum { WINDOW, PROBATION, PROTECTED };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues q;
    Slru main;
    FrequencySketch sketch;
    uint32_t window_max;
} WTinyLfu;

static void *wtinylfu_create(const CachePolicyEnv *env)
{
    WTinyLfu *w = g_new0(WTinyLfu, 1);
    w->env = env;
    slot_queues_init(&w->q, env->capacity);
    uint32_t win = (uint32_t)(WTINYLFU_WINDOW_RATIO * env->capacity);
    w->window_max = win ? win : 1;
    slru_init(&w->main, PROBATION, PROTECTED,
              env->capacity > w->window_max ? env->capacity - w->window_max : 0);
    sketch_init(&w->sketch, env->capacity, (uint64_t)WTINYLFU_SAMPLE_FACTOR * env->capacity);
    return w;
}

static void wtinylfu_destroy(void *st)
{
    WTinyLfu *w = st;
    slot_queues_free(&w->q);
    sketch_free(&w->sketch);
    g_free(w);
}

static void wtinylfu_hit(void *st, CacheSlot slot)
{
    WTinyLfu *w = st;
    sketch_add(&w->sketch, w->env->slot_id[slot]);
    if (w->q.queue[slot] == WINDOW)
        slot_queues_move_to_tail(&w->q, WINDOW, slot);
    else
        slru_hit(&w->main, &w->q, slot);
}

static CacheDecision wtinylfu_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    WTinyLfu *w = st;
    sketch_add(&w->sketch, id);
    if (!full)
        return CACHE_ADMIT_FREE;
    if (w->q.len[WINDOW] == 0) { /* cannot happen while full; keep it safe */
        *victim = slru_victim(&w->main, &w->q);
        return CACHE_ADMIT_REPLACE;
    }
    CacheSlot cand = w->q.head[WINDOW];
    *victim = cand;
    if (slru_len(&w->main, &w->q) > 0) {
        CacheSlot mv = slru_victim(&w->main, &w->q);
        if (sketch_estimate(&w->sketch, w->env->slot_id[cand]) >
            sketch_estimate(&w->sketch, w->env->slot_id[mv])) {
            slot_queues_move_to_tail(&w->q, PROBATION, cand);
            *victim = mv;
        }
    }
    return CACHE_ADMIT_REPLACE;
}

static void wtinylfu_inserted(void *st, CacheSlot slot)
{
    WTinyLfu *w = st;
    slot_queues_append(&w->q, WINDOW, slot);
    if (w->q.len[WINDOW] > w->window_max)
        slot_queues_move_to_tail(&w->q, PROBATION, w->q.head[WINDOW]);
}

static void wtinylfu_removed(void *st, CacheSlot slot)
{
    slot_queues_unlink(&((WTinyLfu *)st)->q, slot);
}

const CachePolicyOps cache_policy_wtinylfu = {
    .name = "wtinylfu",
    .reset_access_on_evict = FALSE,
    .create = wtinylfu_create,
    .destroy = wtinylfu_destroy,
    .hit = wtinylfu_hit,
    .admit = wtinylfu_admit,
    .inserted = wtinylfu_inserted,
    .removed = wtinylfu_removed,
    .save = NULL,
    .load_slot = NULL,
    .load_done = NULL,
    /* the window/SLRU links, and the sketch: 4 rows of up to 2 C counters, 4 bits */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 4,
};
