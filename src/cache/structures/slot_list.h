/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_list.h: an intrusive doubly-linked list over slot numbers, shared by
 * the FIFO and LRU policies (eviction end at the head, newest at the tail).
 * O(1) append, unlink and move; two uint32 links per slot. */
#ifndef DESTOR_CACHE_SLOT_LIST_H
#define DESTOR_CACHE_SLOT_LIST_H

#include "cache/policy/policy.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    uint32_t *prev, *next; /* capacity links each; CACHE_NO_SLOT ends */
    uint32_t head, tail;   /* head: next victim */
} SlotList;

static inline void slot_list_init(SlotList *l, uint32_t capacity)
{
    l->prev = g_new(uint32_t, capacity ? capacity : 1);
    l->next = g_new(uint32_t, capacity ? capacity : 1);
    l->head = l->tail = CACHE_NO_SLOT;
}

static inline void slot_list_free(SlotList *l)
{
    g_free(l->prev);
    g_free(l->next);
}

static inline void slot_list_append(SlotList *l, uint32_t s)
{
    l->prev[s] = l->tail;
    l->next[s] = CACHE_NO_SLOT;
    if (l->tail != CACHE_NO_SLOT)
        l->next[l->tail] = s;
    else
        l->head = s;
    l->tail = s;
}

static inline void slot_list_unlink(SlotList *l, uint32_t s)
{
    if (l->prev[s] != CACHE_NO_SLOT)
        l->next[l->prev[s]] = l->next[s];
    else
        l->head = l->next[s];
    if (l->next[s] != CACHE_NO_SLOT)
        l->prev[l->next[s]] = l->prev[s];
    else
        l->tail = l->prev[s];
}

static inline void slot_list_move_to_tail(SlotList *l, uint32_t s)
{
    if (l->tail == s)
        return;
    slot_list_unlink(l, s);
    slot_list_append(l, s);
}

/* words[s] = position from the head (0, 1, ...), for saving the order. */
static inline void slot_list_positions(const SlotList *l, uint64_t *words)
{
    uint64_t pos = 0;
    for (uint32_t s = l->head; s != CACHE_NO_SLOT; s = l->next[s])
        words[s] = pos++;
}

#endif
