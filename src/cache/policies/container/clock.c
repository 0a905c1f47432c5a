/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clock.c: CLOCK, or second chance (Corbato 1968). Every miss is admitted.
 * Each cached container has one reference bit, set on a hit; a newcomer
 * starts with it clear. When the cache is full the hand looks at the
 * container it points to: a set bit is cleared and the hand moves on; the
 * first container with a clear bit is the victim.
 *
 * The clock is kept as a queue in hand order (the hand points at the head):
 * passing a container moves it to the tail, and the newcomer that takes the
 * victim's place is put at the tail, i.e. just behind the hand, as in a
 * ring where it takes the victim's frame and the hand steps past it. Before
 * the cache is full newcomers are added behind the hand in arrival order.
 * This is the same clock as libCacheSim's "Clock" (FIFO with reinsertion),
 * so both give the same misses on the same sequence (POLICIES.md). */
#include "cache/policy/policy.h"
#include "cache/structures/slot_queues.h"

typedef struct {
    SlotQueues ring; /* one queue: the head is under the hand */
    uint8_t *ref;    /* reference bit per slot */
} Clock;

static void *clock_create(const CachePolicyEnv *env)
{
    Clock *c = g_new0(Clock, 1);
    slot_queues_init(&c->ring, env->capacity);
    c->ref = g_new0(uint8_t, env->capacity ? env->capacity : 1);
    return c;
}

static void clock_destroy(void *st)
{
    Clock *c = st;
    slot_queues_free(&c->ring);
    g_free(c->ref);
    g_free(c);
}

static void clock_hit(void *st, CacheSlot slot)
{
    ((Clock *)st)->ref[slot] = 1;
}

static CacheDecision clock_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Clock *c = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    uint32_t s;
    while (c->ref[s = c->ring.head[0]]) { /* ends: every pass clears a bit */
        c->ref[s] = 0;
        slot_queues_move_to_tail(&c->ring, 0, s);
    }
    *victim = s;
    return CACHE_ADMIT_REPLACE;
}

static void clock_inserted(void *st, CacheSlot slot)
{
    Clock *c = st;
    c->ref[slot] = 0;
    slot_queues_append(&c->ring, 0, slot);
}

static void clock_removed(void *st, CacheSlot slot)
{
    Clock *c = st;
    slot_queues_unlink(&c->ring, slot);
    c->ref[slot] = 0;
}

/* Saved word: position from the hand << 1 | reference bit. */
static uint64_t clock_save(void *st, uint64_t *words)
{
    Clock *c = st;
    uint64_t pos = 0;
    for (uint32_t s = c->ring.head[0]; s != CACHE_NO_SLOT; s = c->ring.next[s])
        words[s] = pos++ << 1 | c->ref[s];
    return 0;
}

static void clock_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    Clock *c = st; /* called in saved order: appending restores the ring */
    slot_queues_append(&c->ring, 0, slot);
    c->ref[slot] = word & 1;
}

const CachePolicyOps cache_policy_clock = {
    .name = "clock",
    .description = "CLOCK (second chance): one reference bit, the hand clears set bits and evicts the first clear one",
    .citation = "Corbato, a paging experiment with the Multics system, 1968",
    .offline = FALSE,
    .reset_access_on_evict = FALSE,
    .create = clock_create,
    .destroy = clock_destroy,
    .hit = clock_hit,
    .admit = clock_admit,
    .inserted = clock_inserted,
    .removed = clock_removed,
    .save = clock_save,
    .load_slot = clock_load_slot,
    .load_done = NULL,
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + sizeof(uint8_t),
};
