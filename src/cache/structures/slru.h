/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slru.h: the segmented LRU main cache of TinyLFU and W-TinyLFU (Einziger,
 * Friedman & Manes, ACM TOS 2017): a probation segment and a protected
 * segment (80% of the main cache), both LRU, kept as two queues of a
 * SlotQueues. A newcomer enters probation; a hit in probation promotes the
 * container to protected, whose least recent entry, when protected is over
 * its size, goes back to probation's most recent end; a hit in protected
 * moves it to protected's most recent end. The main cache's victim is
 * probation's least recent entry, or protected's when probation is empty. */
#ifndef DESTOR_CACHE_SLRU_H
#define DESTOR_CACHE_SLRU_H

#include "cache/structures/slot_queues.h"

#define SLRU_PROTECTED_SHARE 0.80

typedef struct {
    uint8_t probation, protected_; /* queue numbers in the SlotQueues */
    uint32_t protected_max;        /* floor(80% of the main cache) */
} Slru;

static inline void slru_init(Slru *m, uint8_t probation, uint8_t protected_, uint32_t main_size)
{
    m->probation = probation;
    m->protected_ = protected_;
    m->protected_max = (uint32_t)(SLRU_PROTECTED_SHARE * main_size);
}

static inline void slru_hit(const Slru *m, SlotQueues *q, uint32_t s)
{
    slot_queues_move_to_tail(q, m->protected_, s);
    if (q->len[m->protected_] > m->protected_max)
        slot_queues_move_to_tail(q, m->probation, q->head[m->protected_]);
}

static inline uint32_t slru_len(const Slru *m, const SlotQueues *q)
{
    return q->len[m->probation] + q->len[m->protected_];
}

static inline uint32_t slru_victim(const Slru *m, const SlotQueues *q)
{
    return q->len[m->probation] ? q->head[m->probation] : q->head[m->protected_];
}

#endif
