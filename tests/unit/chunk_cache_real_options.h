/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_real_options.h: the options of a chunk cache in real mode
 * (lru, the chunk log of 64 KiB segments in `dir`) over a test's own
 * ContainerSource of SHA-1 chunks, for the unit tests that open one. */
#ifndef DESTOR_TEST_CHUNK_CACHE_REAL_OPTIONS_H
#define DESTOR_TEST_CHUNK_CACHE_REAL_OPTIONS_H

#include "cache/chunk/chunk_cache.h"

#include <CUnit/Basic.h>
#include <string.h>

static inline void chunk_cache_real_options(ChunkCacheOptions *o, ContainerSource *backing, const char *dir,
                                            uint64_t capacity, ChunkFetch fetch, uint32_t avg_chunk)
{
    memset(o, 0, sizeof *o);
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup("lru", &o->policy));
    o->capacity_bytes = capacity;
    o->avg_chunk_size = avg_chunk;
    o->container_size = backing->container_size;
    o->fetch = fetch;
    o->mode = CACHE_MODE_REAL;
    device_model_params_default(&o->device);
    o->ssd_tbw_bytes = 1;
    o->directory = dir;
    memset(o->store_id, 7, sizeof o->store_id);
    o->fp_alg = FP_SHA1;
    o->backing = backing;
    o->segment_size = 64u * 1024;
    o->layout = CHUNK_LAYOUT_LOG;
}

#endif
