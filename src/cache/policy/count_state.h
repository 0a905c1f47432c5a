/* SPDX-License-Identifier: GPL-3.0-or-later */
/* count_state.h: the per-slot records of the saved state of the policies
 * that order their cached containers by the core's access counts (sigpop,
 * wlfu, minisim), written and read once: per slot, slot 0 first, its
 * recorded count (u32) and its stamp (u64: an insertion number or an
 * access tick, distinct among the cached slots; 0 for a free slot). */
#ifndef DESTOR_CACHE_COUNT_STATE_H
#define DESTOR_CACHE_COUNT_STATE_H

#include "cache/policy/policy.h"
#include "util/le.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>

#define COUNT_STATE_SLOT 12 /* bytes a slot */

static inline void count_state_save(const CachePolicyEnv *env, const uint32_t *key, const uint64_t *stamp, uint8_t *b)
{
    for (uint32_t slot = 0; slot < env->capacity; slot++, b += COUNT_STATE_SLOT) {
        gboolean in = cache_policy_env_occupied(env, slot);
        le32_put(b, in ? key[slot] : 0);
        le64_put(b + 4, in ? stamp[slot] : 0);
    }
}

static inline int count_state_by_stamp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Read the records at b into key and stamp (all 0 before) for the cached
 * slots the blob saved with a stamp; the others keep 0. FALSE if one does
 * not fit: a stamp above max_stamp, a count above the container's (with
 * exact counts: other than it), or two equal stamps. */
static inline gboolean count_state_load(const CachePolicyEnv *env, const uint8_t *b, uint64_t max_stamp,
                                        uint32_t *key, uint64_t *stamp)
{
    uint64_t *seen = g_new(uint64_t, env->capacity ? env->capacity : 1);
    uint32_t n = 0;
    gboolean ok = TRUE;
    for (uint32_t slot = 0; slot < env->capacity && ok; slot++, b += COUNT_STATE_SLOT) {
        uint32_t k = le32_get(b);
        uint64_t t = le64_get(b + 4);
        if (t == 0 || !cache_policy_env_occupied(env, slot))
            continue;
        uint32_t f = cache_policy_env_slot_count(env, slot);
        ok = t <= max_stamp && k <= f && (env->counts->mode != ACCESS_COUNTS_EXACT || k == f);
        key[slot] = k;
        stamp[slot] = seen[n++] = t;
    }
    qsort(seen, n, sizeof *seen, count_state_by_stamp);
    for (uint32_t i = 1; i < n && ok; i++)
        ok = seen[i] != seen[i - 1];
    g_free(seen);
    return ok;
}

#endif
