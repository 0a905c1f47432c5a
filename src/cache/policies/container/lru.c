/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lru.c: Least Recently Used. Every miss is admitted; when full the victim
 * is the cached container whose last access (hit or insertion) is oldest. */
#include "cache/policy/policy.h"
#include "cache/structures/slot_list.h"

typedef struct {
    SlotList order; /* least recently used at the head */
} Lru;

static void *lru_create(const CachePolicyEnv *env)
{
    Lru *l = g_new0(Lru, 1);
    slot_list_init(&l->order, env->capacity);
    return l;
}

static void lru_destroy(void *st)
{
    Lru *l = st;
    slot_list_free(&l->order);
    g_free(l);
}

static void lru_hit(void *st, CacheSlot slot)
{
    slot_list_move_to_tail(&((Lru *)st)->order, slot);
}

static CacheDecision lru_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Lru *l = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = l->order.head;
    return CACHE_ADMIT_REPLACE;
}

static void lru_inserted(void *st, CacheSlot slot)
{
    slot_list_append(&((Lru *)st)->order, slot);
}

static void lru_removed(void *st, CacheSlot slot)
{
    slot_list_unlink(&((Lru *)st)->order, slot);
}

static uint64_t lru_save(void *st, uint64_t *words)
{
    slot_list_positions(&((Lru *)st)->order, words);
    return 0;
}

static void lru_load_slot(void *st, CacheSlot slot, uint64_t word)
{
    (void)word; /* called from least to most recent: appending restores it */
    lru_inserted(st, slot);
}

const CachePolicyOps cache_policy_lru = {
    .name = "lru",
    .description = "Least Recently Used: admit every miss, evict the least recently accessed",
    .citation = "classic (e.g. Mattson et al., IBM Systems Journal 1970)",
    .reset_access_on_evict = FALSE,
    .create = lru_create,
    .destroy = lru_destroy,
    .hit = lru_hit,
    .admit = lru_admit,
    .inserted = lru_inserted,
    .removed = lru_removed,
    .save = lru_save,
    .load_slot = lru_load_slot,
    .load_done = NULL,
    .bytes_per_slot = 2 * sizeof(uint32_t),
};
