/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cached_source.h: put the SSD cache (ssd-cache-* keys) between a reader
 * and the store's container pool: the container cache, or with
 * ssd-cache-granularity chunk the chunk cache (chunk_cache_source.h). The cache's size may be a share of the
 * stored containers, and PLC needs their reference counts, so both come
 * from the store here. Shared by read-file and restore. */
#ifndef DESTOR_CACHED_SOURCE_H
#define DESTOR_CACHED_SOURCE_H

#include "cache/container/cache_core.h"
#include "cache/chunk/chunk_cache.h"
#include "config/config.h"
#include "store/store.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    CacheCore *cache;          /* the container cache, or NULL */
    ChunkCache *chunk_cache;   /* ssd-cache-granularity chunk: the chunk cache
                                  instead (cache NULL) */
    uint32_t *reference_count; /* must outlive the cache; NULL unless the
                                  policy reads them (needs_reference_count) */
    const CachePolicyOps *policy; /* the configured policy */
} CachedSource;

/* Open the cache configured in cfg over store's pool. Trouble with the SSD
 * itself (an I/O error on its files) is not the reader's failure: it is
 * warned about and cs->cache stays NULL, so the caller reads from the
 * store. A busy cache directory or a bad setting is an error. */
gboolean cached_source_open(CachedSource *cs, const Config *cfg, Store *store, GError **err);
/* A job committed since the cache opened may name containers written
 * since: let the cache serve every container the pool holds now, with the
 * newest reference counts. Cheap when the pool has not grown. */
gboolean cached_source_follow(CachedSource *cs, Store *store, GError **err);
/* Save the cache's metadata and free it. If saving fails, warn: the next
 * open then checks every entry against its checksum. */
void cached_source_close(CachedSource *cs);

#endif
