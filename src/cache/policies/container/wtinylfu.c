/* SPDX-License-Identifier: GPL-3.0-or-later */
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
 *  - The window is floor(wtinylfu-window-ratio x C) slots (1%, the paper's
 *    and Caffeine's default), at least 1; the main cache holds the rest.
 *    With C = 1 there is no main cache and the window alone is an LRU of one.
 *  - Ties keep the main victim (the candidate is evicted).
 *  - Sample size W = wtinylfu-sample-factor x C accesses (10).
 *
 * Counters: candidates_admitted (window victims that replaced the main
 * victim), candidates_evicted. Saved state, version 1: capacity u32,
 * window, probation and protected (each: length u32, slots u32 least
 * recent first), the sketch (frequency_sketch.h). */
#include "cache/policy/policy.h"
#include "cache/policy/frequency_sketch.h"
#include "cache/structures/slru.h"

enum { WINDOW, PROBATION, PROTECTED };
enum { KEY_WINDOW, KEY_SAMPLE, N_KEYS };
enum { CAND_ADMITTED, CAND_EVICTED, N_COUNTERS };

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
    uint32_t win = (uint32_t)(env->values[KEY_WINDOW].number * env->capacity);
    w->window_max = win ? win : 1;
    slru_init(&w->main, PROBATION, PROTECTED,
              env->capacity > w->window_max ? env->capacity - w->window_max : 0);
    sketch_init(&w->sketch, env->capacity, (uint64_t)env->values[KEY_SAMPLE].number * env->capacity);
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
    w->env->counters[*victim == cand ? CAND_EVICTED : CAND_ADMITTED]++;
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

static void wtinylfu_save_state(void *st, GByteArray *out)
{
    WTinyLfu *w = st;
    guint at = out->len;
    g_byte_array_set_size(out, at + 4);
    le32_put(out->data + at, w->env->capacity);
    slot_queues_save(&w->q, 3, out);
    sketch_save(&w->sketch, out);
}

static gboolean wtinylfu_load_state(void *st, const uint8_t *blob, size_t len)
{
    WTinyLfu *w = st;
    size_t at = 4;
    if (len < 4 || le32_get(blob) != w->env->capacity || !slot_queues_load(&w->q, 3, w->env, blob, len, &at) ||
        !sketch_load(&w->sketch, blob, len, &at) || at != len)
        return FALSE;
    slot_queues_adopt(&w->q, PROBATION, w->env);
    return TRUE;
}

static size_t wtinylfu_memory(const void *st)
{
    const WTinyLfu *w = st;
    return sizeof *w + w->env->capacity * SLOT_QUEUES_BYTES_PER_SLOT + FREQUENCY_SKETCH_BYTES(w->env->capacity);
}

static const CachePolicyKey wtinylfu_keys[N_KEYS] = {
    [KEY_WINDOW] = { "wtinylfu-window-ratio", CACHE_KEY_REAL, 0.0, 1.0, NULL, "0.01",
                     "the LRU window's share of the cache (rounded down, at least one slot)" },
    [KEY_SAMPLE] = { "wtinylfu-sample-factor", CACHE_KEY_UINT, 1, 1000, NULL, "10",
                     "the sketch halves its counters every this many x capacity accesses (W)" },
};

static const CachePolicyCounter wtinylfu_counters[N_COUNTERS] = {
    [CAND_ADMITTED] = { "candidates_admitted", "window victims admitted to the main cache", NULL },
    [CAND_EVICTED] = { "candidates_evicted", "window victims evicted", NULL },
};

const CachePolicyOps cache_policy_wtinylfu = {
    .name = "wtinylfu",
    .description = "W-TinyLFU: an LRU window before a TinyLFU-guarded SLRU; every miss enters the window",
    .citation = "Einziger, Friedman & Manes: TinyLFU, ACM TOS 2017",
    .offline = FALSE,
    .keys = wtinylfu_keys,
    .n_keys = N_KEYS,
    .counters = wtinylfu_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = wtinylfu_create,
    .destroy = wtinylfu_destroy,
    .hit = wtinylfu_hit,
    .admit = wtinylfu_admit,
    .inserted = wtinylfu_inserted,
    .removed = wtinylfu_removed,
    .state_version = 1,
    .save_state = wtinylfu_save_state,
    .load_state = wtinylfu_load_state,
    /* the window/SLRU links, and the sketch: 4 rows of up to 2 C counters, 4 bits */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 4,
    .memory = wtinylfu_memory,
};
