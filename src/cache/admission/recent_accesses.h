/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recent_accesses.h: the admission rules' shared estimate of how often a
 * container or chunk was accessed lately, for rules that have no policy
 * state to read: TinyLFU's count-min sketch (frequency_sketch.h: 4-bit
 * counters, halved every W accesses) with W = 10 x the objects the cache
 * holds, the paper's sample size (tinylfu-sample-factor's default). A
 * 64-bit key (a chunk's identity) is folded to the sketch's 32 bits. */
#ifndef DESTOR_CACHE_RECENT_ACCESSES_H
#define DESTOR_CACHE_RECENT_ACCESSES_H

#include "cache/admission/admission.h"
#include "cache/policy/frequency_sketch.h"

#define RECENT_ACCESSES_SAMPLE_FACTOR 10

typedef FrequencySketch RecentAccesses;

static inline ContainerId recent_accesses_key(uint64_t key)
{
    return (ContainerId)(key ^ (key >> 32));
}

static inline void recent_accesses_init(RecentAccesses *r, const AdmissionEnv *env)
{
    uint32_t n = env->objects > UINT32_MAX ? UINT32_MAX : (uint32_t)(env->objects ? env->objects : 1);
    sketch_init(r, n, (uint64_t)RECENT_ACCESSES_SAMPLE_FACTOR * n);
}

/* Record an access; TRUE when it completed a window (every count halved). */
static inline gboolean recent_accesses_add(RecentAccesses *r, uint64_t key)
{
    uint64_t before = r->accesses;
    sketch_add(r, recent_accesses_key(key));
    return r->accesses <= before;
}

static inline unsigned recent_accesses_estimate(const RecentAccesses *r, uint64_t key)
{
    return sketch_estimate(r, recent_accesses_key(key));
}

static inline size_t recent_accesses_memory(const RecentAccesses *r)
{
    return (size_t)SKETCH_ROWS * r->width / 2;
}

#endif
