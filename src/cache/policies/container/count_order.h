/* SPDX-License-Identifier: GPL-3.0-or-later */
/* count_order.h: the cached containers of the policies that order them by
 * the core's access counts (sigpop, wlfu, minisim), written once. Per slot
 * the count recorded at its last access or aging (its key) and a stamp
 * (distinct among the cached slots, 0 for a free slot, from a clock of the
 * order's own: an insertion number for sigpop, the tick of the last access
 * for wlfu and minisim); an indexed min-heap of the cached slots by (key,
 * stamp), the least frequent first and the oldest stamp among equals, or
 * by stamp alone while `by_stamp` (minisim's recency rule). Aging halves
 * every count each `window` accesses (the policy's count_age_window), then
 * the keys are re-read (counts_aged). The saved records: per slot, slot 0
 * first, its key u32 and its stamp u64 (0 for a free slot). Memory:
 * COUNT_ORDER_BYTES_PER_SLOT a slot. */
#ifndef DESTOR_CACHE_POLICIES_COUNT_ORDER_H
#define DESTOR_CACHE_POLICIES_COUNT_ORDER_H

#include "cache/policy/policy.h"
#include "cache/structures/slot_heap.h"
#include "util/le.h"

#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_ORDER_RECORD 12 /* saved bytes a slot */

/* Is (count ka, stamp ta) evicted before (kb, tb)? The least frequent
 * first, the oldest stamp among equals. */
static inline gboolean count_order_before(uint32_t ka, uint64_t ta, uint32_t kb, uint64_t tb)
{
    return ka != kb ? ka < kb : ta < tb;
}

typedef struct {
    CacheSlot slot;
} CountOrderEntry;

static inline gboolean count_order_less(const void *ctx, const CountOrderEntry *x, const CountOrderEntry *y);

SLOT_HEAP_DEFINE(CountHeap, count_heap, CountOrderEntry, count_order_less)

typedef struct {
    const CachePolicyEnv *env;
    uint64_t window;    /* accesses between two agings; 0: never age */
    uint64_t clock;     /* the last stamp given */
    uint32_t *key;      /* per slot: count recorded at the last access or aging */
    uint64_t *stamp;    /* per slot (0: free) */
    gboolean by_stamp;  /* ordered by stamp alone */
    CountHeap heap;     /* the cached slots; the top is the victim */
} CountOrder;

/* key, stamp, heap entry and position */
#define COUNT_ORDER_BYTES_PER_SLOT (sizeof(uint32_t) + sizeof(uint64_t) + SLOT_HEAP_BYTES_PER_SLOT(CountOrderEntry))

static inline gboolean count_order_less(const void *ctx, const CountOrderEntry *x, const CountOrderEntry *y)
{
    const CountOrder *o = ctx;
    CacheSlot a = x->slot, b = y->slot;
    if (o->by_stamp)
        return o->stamp[a] < o->stamp[b];
    return count_order_before(o->key[a], o->stamp[a], o->key[b], o->stamp[b]);
}

/* The accesses between two halvings for an age window of `a` x n
 * containers: floor(a n), at least 1; 0 when a is 0 (never age). */
static inline uint64_t count_order_window(double a, uint32_t n_containers)
{
    double w = floor(a * (double)n_containers);
    return a == 0 ? 0 : w < 1 ? 1 : (uint64_t)w;
}

/* An empty order, aged each age_window x n_containers accesses. */
static inline void count_order_init(CountOrder *o, const CachePolicyEnv *env, double age_window)
{
    uint32_t cap = env->capacity ? env->capacity : 1;
    o->env = env;
    o->window = count_order_window(age_window, env->n_containers);
    o->clock = 0;
    o->key = g_new0(uint32_t, cap);
    o->stamp = g_new0(uint64_t, cap);
    o->by_stamp = FALSE;
    count_heap_init(&o->heap, env->capacity, o);
}

static inline void count_order_free(CountOrder *o)
{
    g_free(o->key);
    g_free(o->stamp);
    count_heap_free(&o->heap);
}

/* Back to the state of init(), after a blob was refused half-read. */
static inline void count_order_forget(CountOrder *o)
{
    uint32_t cap = o->env->capacity ? o->env->capacity : 1;
    memset(o->key, 0, cap * sizeof *o->key);
    memset(o->stamp, 0, cap * sizeof *o->stamp);
    o->heap.size = 0;
    o->clock = 0;
}

/* The cached slot evicted next; the order must not be empty. */
static inline CacheSlot count_order_victim(CountOrder *o)
{
    return count_heap_top(&o->heap)->slot;
}

/* Every count was halved: re-read the cached slots' keys and restore the
 * order, O(C). */
static inline void count_order_aged(CountOrder *o)
{
    for (uint32_t i = 0; i < o->heap.size; i++) {
        CacheSlot s = o->heap.entry[i].slot;
        o->key[s] = cache_policy_env_slot_count(o->env, s);
    }
    count_heap_rebuild(&o->heap);
}

/* A hit of a cached slot: its key re-read, its stamp kept (sigpop's
 * insertion number); the key only grows between agings: later in the
 * order. */
static inline void count_order_recount(CountOrder *o, CacheSlot slot)
{
    o->key[slot] = cache_policy_env_slot_count(o->env, slot);
    count_heap_sink(&o->heap, slot);
}

/* A hit of a cached slot: its key re-read and a new stamp (wlfu's and
 * minisim's last access tick); both only grow between agings. */
static inline void count_order_hit(CountOrder *o, CacheSlot slot)
{
    o->key[slot] = cache_policy_env_slot_count(o->env, slot);
    o->stamp[slot] = ++o->clock;
    count_heap_sink(&o->heap, slot);
}

/* slot (now cached) joins with its count and a new stamp. */
static inline void count_order_insert(CountOrder *o, CacheSlot slot)
{
    o->key[slot] = cache_policy_env_slot_count(o->env, slot);
    o->stamp[slot] = ++o->clock;
    count_heap_insert(&o->heap, (CountOrderEntry){ slot });
}

static inline void count_order_remove(CountOrder *o, CacheSlot slot)
{
    count_heap_remove(&o->heap, slot);
    o->key[slot] = 0;
    o->stamp[slot] = 0;
}

/* Ops of a policy whose state begins with its CountOrder (sigpop's, wlfu's
 * and minisim's count_age_window, inserted and removed). */
static inline uint64_t count_order_age_window_op(void *st)
{
    return ((CountOrder *)st)->window;
}

static inline void count_order_inserted_op(void *st, CacheSlot slot)
{
    count_order_insert(st, slot);
}

static inline void count_order_removed_op(void *st, CacheSlot slot)
{
    count_order_remove(st, slot);
}

/* The order by stamp alone (TRUE) or by (key, stamp). */
static inline void count_order_by_stamp(CountOrder *o, gboolean by_stamp)
{
    o->by_stamp = by_stamp;
    count_heap_rebuild(&o->heap);
}

/* The records (COUNT_ORDER_RECORD x capacity bytes at b). */
static inline void count_order_save(const CountOrder *o, uint8_t *b)
{
    for (uint32_t slot = 0; slot < o->env->capacity; slot++, b += COUNT_ORDER_RECORD) {
        gboolean in = cache_policy_env_occupied(o->env, slot);
        le32_put(b, in ? o->key[slot] : 0);
        le64_put(b + 4, in ? o->stamp[slot] : 0);
    }
}

static inline int count_order_by_value(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Read the records at b into a fresh order whose clock was `clock`: the
 * cached slots saved with a stamp take their key and stamp; then each
 * cached slot saved as free joins with a new stamp, in slot order, after
 * them (a saved slot that was not restored is ignored). FALSE, and the
 * order as after init(), if a record does not fit: a stamp above the
 * clock, a key above the container's count (with exact counts: other than
 * it), or two equal stamps. */
static inline gboolean count_order_load(CountOrder *o, const uint8_t *b, uint64_t clock)
{
    const CachePolicyEnv *env = o->env;
    uint64_t *seen = g_new(uint64_t, env->capacity ? env->capacity : 1);
    uint32_t n = 0;
    gboolean ok = TRUE;
    for (uint32_t slot = 0; slot < env->capacity && ok; slot++, b += COUNT_ORDER_RECORD) {
        uint32_t k = le32_get(b);
        uint64_t t = le64_get(b + 4);
        if (t == 0 || !cache_policy_env_occupied(env, slot))
            continue;
        uint32_t f = cache_policy_env_slot_count(env, slot);
        ok = t <= clock && k <= f && (env->counts->mode != ACCESS_COUNTS_EXACT || k == f);
        o->key[slot] = k;
        o->stamp[slot] = seen[n++] = t;
    }
    qsort(seen, n, sizeof *seen, count_order_by_value);
    for (uint32_t i = 1; i < n && ok; i++)
        ok = seen[i] != seen[i - 1];
    g_free(seen);
    if (!ok) {
        count_order_forget(o);
        return FALSE;
    }
    o->clock = clock;
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (o->stamp[slot] != 0)
            count_heap_append(&o->heap, (CountOrderEntry){ slot });
    count_heap_rebuild(&o->heap);
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (cache_policy_env_occupied(env, slot) && o->stamp[slot] == 0)
            count_order_insert(o, slot);
    return TRUE;
}

#endif
