/* twoq.c: 2Q, the full version (Johnson & Shasha, VLDB 1994). Every miss
 * is admitted. Three lists:
 *   A1in  FIFO of containers seen once recently (cached), at most Kin;
 *   A1out ghost FIFO of ids evicted from A1in (no data), at most Kout;
 *   Am    LRU of containers that came back while their id was in A1out.
 * hit in Am:   move to Am's most recent end.    hit in A1in: nothing.
 * miss:        found in A1out -> enters Am; else -> enters A1in.
 * full:        |A1in| > Kin -> evict A1in's oldest, its id enters A1out
 *              (A1out drops its oldest beyond Kout);
 *              else -> evict Am's least recent (no ghost for it).
 *
 * Choices the paper leaves open (docs/CACHE.md):
 *  - Kin = floor(25% of C) and Kout = floor(50% of C), the paper's
 *    recommended shares (constants TWOQ_KIN_SHARE, TWOQ_KOUT_SHARE; they
 *    become the keys 2q-kin and 2q-kout with the policy seam).
 *  - A ghost hit takes the id out of A1out before the victim is chosen, so
 *    an id is never both cached and in A1out.
 *  - If Am is empty when A1in is within Kin (possible only while Kin >= C),
 *    A1in's oldest is evicted. */
#include "cache/policy.h"
#include "cache/ghost_list.h"
#include "cache/slot_queues.h"

#define TWOQ_KIN_SHARE 0.25
#define TWOQ_KOUT_SHARE 0.50

enum { A1IN, AM };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues q;     /* A1in (FIFO) and Am (LRU) */
    GhostList a1out;
    uint32_t kin;
    uint8_t pending;  /* where the container being admitted goes */
} TwoQ;

static void *twoq_create(const CachePolicyEnv *env)
{
    TwoQ *t = g_new0(TwoQ, 1);
    t->env = env;
    slot_queues_init(&t->q, env->capacity);
    t->kin = (uint32_t)(TWOQ_KIN_SHARE * env->capacity);
    ghost_list_init(&t->a1out, (uint32_t)(TWOQ_KOUT_SHARE * env->capacity));
    t->pending = A1IN;
    return t;
}

static void twoq_destroy(void *st)
{
    TwoQ *t = st;
    slot_queues_free(&t->q);
    ghost_list_free(&t->a1out);
    g_free(t);
}

static void twoq_hit(void *st, CacheSlot slot)
{
    TwoQ *t = st;
    if (t->q.queue[slot] == AM)
        slot_queues_move_to_tail(&t->q, AM, slot);
}

static CacheDecision twoq_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    TwoQ *t = st;
    t->pending = ghost_list_remove(&t->a1out, id) ? AM : A1IN;
    if (!full)
        return CACHE_ADMIT_FREE;
    if (t->q.len[A1IN] > t->kin || t->q.len[AM] == 0) {
        *victim = t->q.head[A1IN];
        ghost_list_push(&t->a1out, t->env->slot_id[*victim]);
    } else {
        *victim = t->q.head[AM];
    }
    return CACHE_ADMIT_REPLACE;
}

static void twoq_inserted(void *st, CacheSlot slot)
{
    TwoQ *t = st;
    slot_queues_append(&t->q, t->pending, slot);
    t->pending = A1IN;
}

static void twoq_removed(void *st, CacheSlot slot)
{
    slot_queues_unlink(&((TwoQ *)st)->q, slot);
}

const CachePolicyOps cache_policy_2q = {
    .name = "2q",
    .reset_access_on_evict = FALSE,
    .create = twoq_create,
    .destroy = twoq_destroy,
    .hit = twoq_hit,
    .admit = twoq_admit,
    .inserted = twoq_inserted,
    .removed = twoq_removed,
    .save = NULL,
    .load_slot = NULL,
    .load_done = NULL,
    /* the lists, plus A1out's share of ghost nodes and buckets per slot */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 4 * sizeof(uint32_t),
};
