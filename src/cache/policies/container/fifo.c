/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fifo.c: First-In First-Out. Every miss is admitted; when full the victim
 * is the container written into the cache longest ago. Hits change nothing. */
#include "cache/policy/policy.h"
#include "cache/structures/slot_list.h"

typedef struct {
    SlotList order; /* insertion order, oldest at the head */
} Fifo;

static void *fifo_create(const CachePolicyEnv *env)
{
    Fifo *f = g_new0(Fifo, 1);
    slot_list_init(&f->order, env->capacity);
    return f;
}

static void fifo_destroy(void *st)
{
    Fifo *f = st;
    slot_list_free(&f->order);
    g_free(f);
}

static void fifo_hit(void *st, CacheSlot slot)
{
    (void)st;
    (void)slot;
}

static CacheDecision fifo_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Fifo *f = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = f->order.head;
    return CACHE_ADMIT_REPLACE;
}

static void fifo_inserted(void *st, CacheSlot slot)
{
    slot_list_append(&((Fifo *)st)->order, slot);
}

static void fifo_removed(void *st, CacheSlot slot)
{
    slot_list_unlink(&((Fifo *)st)->order, slot);
}

static uint64_t fifo_save(void *st, uint64_t *words)
{
    slot_list_positions(&((Fifo *)st)->order, words);
    return 0;
}

static void fifo_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    (void)word; /* called in saved order: appending restores it */
    fifo_inserted(st, slot);
}

const CachePolicyOps cache_policy_fifo = {
    .name = "fifo",
    .description = "First In First Out: admit every miss, evict the oldest admission",
    .citation = "classic (e.g. Belady, IBM Systems Journal 1966)",
    .reset_access_on_evict = FALSE,
    .create = fifo_create,
    .destroy = fifo_destroy,
    .hit = fifo_hit,
    .admit = fifo_admit,
    .inserted = fifo_inserted,
    .removed = fifo_removed,
    .save = fifo_save,
    .load_slot = fifo_load_slot,
    .load_done = NULL,
    .bytes_per_slot = 2 * sizeof(uint32_t),
};
