/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore_cache.h: the restore cache restore-cache configures, as a
 * ChunkSource over a ContainerSource: the container LRU
 * (container_chunks.h), Belady's opt over the next restore-opt-window-size
 * chunks (container_chunks_new_opt) or the forward assembly area
 * (assembly_area.h). Each holds `containers` container-sized buffers (asm:
 * one read buffer and an area of containers - 1). The one place that
 * chooses among them. */
#ifndef DESTOR_RESTORE_CACHE_H
#define DESTOR_RESTORE_CACHE_H

#include "config/config.h"
#include "read/chunk_source.h"
#include "read/chunk_stream.h"
#include "storage/container_source.h"

#include <glib.h>

/* `future` (owned) names the chunks the source will be asked for, in
 * order; lru does not look at it. With `ids_only`, no bytes move and only
 * touch() may be used (simulation, planning a prefetcher's reads). */
ChunkSource *restore_cache_new(const RestoreCacheConfig *c, ContainerSource *src, ChunkStream *future,
                               gboolean ids_only);

/* The container reads `c` will make to read the chunks of `plan` (a second
 * stream over the same chunks as `future`) in order: what a prefetcher
 * reads ahead. An error of the stream or of an id no store holds ends the
 * plan there (the real read reports it). */
GArray *restore_cache_plan(const RestoreCacheConfig *c, size_t container_size, ChunkStream *future,
                           ChunkStream *plan);

#endif
