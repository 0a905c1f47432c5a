/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_source.h: the SSD chunk cache (ssd-cache-granularity chunk,
 * cache/chunk/chunk_cache.h) as the read path's ChunkSource: each chunk a
 * request reads is one chunk-cache access at the position file_output
 * locates it at. Opened from the configuration over the store (its size a
 * share of the stored containers' bytes). */
#ifndef DESTOR_CHUNK_CACHE_SOURCE_H
#define DESTOR_CHUNK_CACHE_SOURCE_H

#include "cache/chunk/chunk_cache.h"
#include "config/config.h"
#include "read/chunk_source.h"
#include "store/store.h"

#include <glib.h>

/* Open the chunk cache configured in cfg over store. */
ChunkCache *chunk_cache_source_open_cache(const Config *cfg, Store *store, GError **err);
/* The cache's position of an access to ref located at pos (file_output's
 * ChunkPosition), or, by a caller that does not locate (pos NULL), of the
 * whole chunk at an address of its own fingerprint. */
ChunkCachePosition chunk_cache_source_position(const ChunkPosition *pos, const ChunkRef *ref);
/* A ChunkSource over cache (not owned). Simulation: touch() only; real
 * mode: read() too. */
ChunkSource *chunk_cache_source_new(ChunkCache *cache);
/* The same through a reader of its own (chunk_cache_reader_new, freed
 * with it), for one of several threads reading through the cache at once;
 * its request bracket is chunk_cache_source_reader's. */
ChunkSource *chunk_cache_source_new_reader(ChunkCache *cache);
ChunkCacheReader *chunk_cache_source_reader(ChunkSource *src);

#endif
