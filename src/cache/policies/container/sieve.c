/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sieve.c: SIEVE (Zhang, Yang, Yue, Vigfusson, Rashmi; NSDI 2024). Every
 * miss is admitted. The cached containers form one FIFO queue in insertion
 * order; a hit sets the container's visited bit and moves nothing. When the
 * cache is full a hand walks from the oldest entry towards the newest,
 * clearing visited bits, and evicts the first container whose bit is clear.
 * The hand then stays where it is (at the next newer entry) for the next
 * eviction; past the newest entry it wraps around to the oldest. A newcomer
 * enters at the newest end with its bit clear, so it is looked at only when
 * the hand comes round again.
 *
 * Choices the paper leaves open: before the first eviction (and after the
 * hand walks off the newest end) the hand starts at the oldest entry; when
 * the core drops the container under the hand (a damaged copy), the hand
 * moves to the next newer entry, as after an eviction. */
#include "cache/policy/policy.h"
#include "cache/structures/slot_queues.h"

typedef struct {
    SlotQueues queue;  /* one queue: oldest at the head */
    uint8_t *visited;  /* per slot */
    uint32_t hand;     /* slot, or CACHE_NO_SLOT: start at the oldest */
} Sieve;

static void *sieve_create(const CachePolicyEnv *env)
{
    Sieve *v = g_new0(Sieve, 1);
    slot_queues_init(&v->queue, env->capacity);
    v->visited = g_new0(uint8_t, env->capacity ? env->capacity : 1);
    v->hand = CACHE_NO_SLOT;
    return v;
}

static void sieve_destroy(void *st)
{
    Sieve *v = st;
    slot_queues_free(&v->queue);
    g_free(v->visited);
    g_free(v);
}

static void sieve_hit(void *st, CacheSlot slot)
{
    ((Sieve *)st)->visited[slot] = 1;
}

static CacheDecision sieve_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Sieve *v = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    uint32_t s = v->hand != CACHE_NO_SLOT ? v->hand : v->queue.head[0];
    while (v->visited[s]) { /* ends: every step clears a bit */
        v->visited[s] = 0;
        s = v->queue.next[s] != CACHE_NO_SLOT ? v->queue.next[s] : v->queue.head[0];
    }
    v->hand = v->queue.next[s];
    *victim = s;
    return CACHE_ADMIT_REPLACE;
}

static void sieve_inserted(void *st, CacheSlot slot)
{
    Sieve *v = st;
    v->visited[slot] = 0;
    slot_queues_append(&v->queue, 0, slot);
}

static void sieve_removed(void *st, CacheSlot slot)
{
    Sieve *v = st;
    if (v->hand == slot)
        v->hand = v->queue.next[slot];
    slot_queues_unlink(&v->queue, slot);
    v->visited[slot] = 0;
}

/* Saved word: position from the oldest << 2 | under the hand << 1 | visited. */
static uint64_t sieve_save(void *st, uint64_t *words)
{
    Sieve *v = st;
    uint64_t pos = 0;
    for (uint32_t s = v->queue.head[0]; s != CACHE_NO_SLOT; s = v->queue.next[s])
        words[s] = pos++ << 2 | (uint64_t)(s == v->hand) << 1 | v->visited[s];
    return 0;
}

static void sieve_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    Sieve *v = st; /* called in saved order: appending restores the queue */
    slot_queues_append(&v->queue, 0, slot);
    v->visited[slot] = word & 1;
    if (word & 2)
        v->hand = slot;
}

const CachePolicyOps cache_policy_sieve = {
    .name = "sieve",
    .description = "SIEVE: a FIFO queue with visited bits and a hand that keeps its place",
    .citation = "Zhang, Yang, Yue, Vigfusson, Rashmi: SIEVE, NSDI 2024",
    .offline = FALSE,
    .reset_access_on_evict = FALSE,
    .create = sieve_create,
    .destroy = sieve_destroy,
    .hit = sieve_hit,
    .admit = sieve_admit,
    .inserted = sieve_inserted,
    .removed = sieve_removed,
    .save = sieve_save,
    .load_slot = sieve_load_slot,
    .load_done = NULL,
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + sizeof(uint8_t),
};
