/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_internal.h: the ChunkCache structure, shared by the files
 * that implement it (chunk_cache.c: access path; chunk_cache_report.c:
 * statistics). Nothing outside src/cache includes it. */
#ifndef DESTOR_CHUNK_CACHE_INTERNAL_H
#define DESTOR_CHUNK_CACHE_INTERNAL_H

#include "cache/core/chunk_cache.h"
#include "cache/structures/chunk_table.h"

/* Containers a request remembers having read whole (ssd-cache-chunk-fetch
 * container): a later miss in one of them costs no second HDD read. As
 * many as the container read path's per-request LRU (read_session.h). */
#define CHUNK_CACHE_REQUEST_CONTAINERS 8

struct ChunkCache {
    GMutex lock;
    ChunkCacheOptions opt;
    const ChunkPolicyOps *ops;
    void *pst;
    CachePolicyValue *values;
    uint64_t *policy_counters;
    ChunkPolicyEnv env;

    /* the data cache: per slot */
    Fingerprint *fp;
    uint32_t *length;   /* 0: a free slot */
    ContainerId *container;
    uint32_t *offset;
    uint32_t n_slots;   /* slots the arrays hold */
    uint32_t *free_slots; /* stack of free slots below n_slots */
    uint32_t n_free;
    uint32_t n_taken;   /* slots ever used: each below it is occupied or free */
    uint64_t used_bytes;
    ChunkTable table;

    ChunkCacheCounters counters;
    DeviceModel model;
    gboolean in_request, request_missed;
    uint64_t request_accesses; /* counters.accesses when the request began */
    double request_model_start;
    gint64 request_wall_start;
    ContainerId request_read[CHUNK_CACHE_REQUEST_CONTAINERS]; /* fetch container */
    uint32_t n_request_read, next_request_read;

    ChunkObserver observer;
    void *observer_data;
};

#endif
