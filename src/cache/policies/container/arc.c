/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arc.c: ARC, Adaptive Replacement Cache (Megiddo & Modha, FAST 2003), as
 * published (Fig. 4 of the paper). Every miss is admitted. Cached: T1 (seen
 * once recently) and T2 (seen at least twice), both LRU. Ghosts (ids only):
 * B1 (evicted from T1) and B2 (evicted from T2). p is the target size of T1.
 *
 *   hit (T1 or T2):  move to T2's most recent end.
 *   miss, id in B1:  p = min(p + max(1, |B2| / |B1|), C); REPLACE; -> T2
 *   miss, id in B2:  p = max(p - max(1, |B1| / |B2|), 0); REPLACE; -> T2
 *   other miss:      if |T1| + |B1| = C:
 *                        |T1| < C: drop B1's oldest; REPLACE
 *                        else:     evict T1's least recent (no ghost)
 *                    else if |T1| + |T2| + |B1| + |B2| >= C:
 *                        that sum = 2C: drop B2's oldest; REPLACE
 *                    -> T1
 *   REPLACE: if |T1| >= 1 and (|T1| > p or (id was in B2 and |T1| = p)):
 *                evict T1's least recent, its id becomes B1's newest
 *            else evict T2's least recent, its id becomes B2's newest
 *
 * Choices the paper leaves open (docs/CACHE.md):
 *  - p is an integer and |B2| / |B1| is integer division (rounded down).
 *  - The ghost hit's id leaves its ghost list before REPLACE adds one.
 *  - REPLACE only when the cache is full: while a slot is free (at the start,
 *    or after the core dropped a damaged copy) the newcomer takes it and
 *    nothing is evicted; the ghost bookkeeping above is done all the same.
 *  - If the list REPLACE picks is empty (it cannot be while the invariants
 *    hold), the other list's least recent is evicted.
 *
 * No keys (ARC has no parameter). Counters: ghost_hits_b1, ghost_hits_b2.
 * Saved state, version 1: capacity u32, p u32, T1 and T2 (each: length
 * u32, slots u32 least recent first), B1 and B2 (each: length u32, ids u32
 * oldest first). */
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/slot_queues.h"

enum { T1, T2 };
enum { B1, B2 };
enum { HITS_B1, HITS_B2, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues t;      /* T1 and T2, least recent at the heads */
    GhostList b;       /* B1 (list B1) and B2 (list B2), one index */
    uint32_t c, p;
    uint8_t pending;   /* list of the container being admitted */
} Arc;

static void *arc_create(const CachePolicyEnv *env)
{
    Arc *a = g_new0(Arc, 1);
    a->env = env;
    a->c = env->capacity;
    slot_queues_init(&a->t, env->capacity);
    ghost_list_init(&a->b, 2 * env->capacity);
    a->pending = T1;
    return a;
}

static void arc_destroy(void *st)
{
    Arc *a = st;
    slot_queues_free(&a->t);
    ghost_list_free(&a->b);
    g_free(a);
}

static void arc_hit(void *st, CacheSlot slot)
{
    slot_queues_move_to_tail(&((Arc *)st)->t, T2, slot);
}

static CacheSlot arc_replace(Arc *a, gboolean in_b2)
{
    uint32_t t1 = a->t.len[T1];
    gboolean from_t1 = t1 >= 1 && (t1 > a->p || (in_b2 && t1 == a->p));
    if (a->t.len[from_t1 ? T1 : T2] == 0)
        from_t1 = !from_t1;
    CacheSlot victim = a->t.head[from_t1 ? T1 : T2];
    ghost_list_push_to(&a->b, from_t1 ? B1 : B2, a->env->slot_id[victim]);
    return victim;
}

static CacheDecision arc_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Arc *a = st;
    uint32_t b1 = a->b.len[B1], b2 = a->b.len[B2];
    gboolean in_b2 = FALSE;
    int ghost = ghost_list_take(&a->b, id);
    if (ghost >= 0)
        a->env->counters[ghost == B1 ? HITS_B1 : HITS_B2]++;
    if (ghost == B1) {
        uint32_t delta = b1 >= b2 ? 1 : b2 / b1;
        a->p = a->p + delta < a->c ? a->p + delta : a->c;
        a->pending = T2;
    } else if (ghost == B2) {
        uint32_t delta = b2 >= b1 ? 1 : b1 / b2;
        a->p = a->p > delta ? a->p - delta : 0;
        a->pending = T2;
        in_b2 = TRUE;
    } else {
        a->pending = T1;
        uint32_t t1 = a->t.len[T1], t2 = a->t.len[T2];
        if (t1 + b1 >= a->c) {
            if (t1 < a->c) {
                ghost_list_pop_oldest_of(&a->b, B1);
            } else if (full) {
                *victim = a->t.head[T1];
                return CACHE_ADMIT_REPLACE;
            }
        } else if (t1 + t2 + b1 + b2 >= 2 * a->c) {
            ghost_list_pop_oldest_of(&a->b, B2);
        }
    }
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = arc_replace(a, in_b2);
    return CACHE_ADMIT_REPLACE;
}

static void arc_inserted(void *st, CacheSlot slot)
{
    Arc *a = st;
    slot_queues_append(&a->t, a->pending, slot);
    a->pending = T1;
}

static void arc_removed(void *st, CacheSlot slot)
{
    slot_queues_unlink(&((Arc *)st)->t, slot);
}

static void arc_save_state(void *st, GByteArray *out)
{
    Arc *a = st;
    guint at = out->len;
    g_byte_array_set_size(out, at + 8);
    le32_put(out->data + at, a->c);
    le32_put(out->data + at + 4, a->p);
    slot_queues_save(&a->t, 2, out);
    ghost_list_save(&a->b, 2, out);
}

static gboolean arc_load_state(void *st, const uint8_t *blob, size_t len)
{
    Arc *a = st;
    size_t at = 8;
    if (len < 8 || le32_get(blob) != a->c || le32_get(blob + 4) > a->c ||
        !slot_queues_load(&a->t, 2, a->env, blob, len, &at) || !ghost_list_load(&a->b, 2, blob, len, &at) ||
        at != len)
        return FALSE;
    a->p = le32_get(blob + 4);
    slot_queues_adopt(&a->t, T1, a->env);
    return TRUE;
}

static size_t arc_memory(const void *st)
{
    const Arc *a = st;
    return sizeof *a + a->c * SLOT_QUEUES_BYTES_PER_SLOT + GHOST_LIST_BYTES(a->b.max);
}

static const CachePolicyCounter arc_counters[N_COUNTERS] = {
    [HITS_B1] = { "ghost_hits_b1", "misses found in B1 (p grows)", NULL },
    [HITS_B2] = { "ghost_hits_b2", "misses found in B2 (p shrinks)", NULL },
};

const CachePolicyOps cache_policy_arc = {
    .name = "arc",
    .description = "ARC: T1/T2 LRU lists with ghosts B1/B2 and an adaptive target p",
    .citation = "Megiddo & Modha, ARC, FAST 2003",
    .offline = FALSE,
    .counters = arc_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = arc_create,
    .destroy = arc_destroy,
    .hit = arc_hit,
    .admit = arc_admit,
    .inserted = arc_inserted,
    .removed = arc_removed,
    .state_version = 1,
    .save_state = arc_save_state,
    .load_state = arc_load_state,
    /* T1/T2 links, and the ghost pool of 2 C ids with its index */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 2 * (3 * sizeof(uint32_t) + 1) + 4 * sizeof(uint32_t),
    .memory = arc_memory,
};
