/* SPDX-License-Identifier: GPL-3.0-or-later */
/* count_aging.h: aging by halving, written once for the policies that order
 * their cached containers by the core's access counts (sigpop, wlfu,
 * minisim): the accesses between two halvings (the policy's
 * count_age_window), and, after a halving (its counts_aged), its heap keys
 * re-read from the halved counts. */
#ifndef DESTOR_CACHE_COUNT_AGING_H
#define DESTOR_CACHE_COUNT_AGING_H

#include "cache/policy/policy.h"

#include <math.h>
#include <stdint.h>

/* The accesses between two halvings for an age window of `a` x n
 * containers: floor(a n), at least 1; 0 when a is 0 (never age). */
static inline uint64_t count_aging_window(double a, uint32_t n_containers)
{
    double w = floor(a * (double)n_containers);
    return a == 0 ? 0 : w < 1 ? 1 : (uint64_t)w;
}

/* Every count was halved: key[slot] becomes the halved count of each slot
 * in `heap` (a SLOT_HEAP_DEFINE heap of prefix `prefix`), whose order is
 * then rebuilt, O(C). */
#define COUNT_AGING_REKEY(env, key, heap, prefix)                         \
    do {                                                                  \
        for (uint32_t i_ = 0; i_ < (heap)->size; i_++) {                  \
            CacheSlot s_ = (heap)->entry[i_].slot;                        \
            (key)[s_] = cache_policy_env_slot_count((env), s_);           \
        }                                                                 \
        prefix##_rebuild(heap);                                           \
    } while (0)

#endif
