/* SPDX-License-Identifier: GPL-3.0-or-later */
/* locality_cache.h: the near-exact index's cache of whole containers'
 * fingerprint lists, least recently used out (Destor's fingerprint cache:
 * fingerprint-index-cache-size containers). What it answers comes from a
 * container's own metadata section, so a hit names a chunk that container
 * holds. */
#ifndef DESTOR_LOCALITY_CACHE_H
#define DESTOR_LOCALITY_CACHE_H

#include "index/fp_index.h"

#include <glib.h>

typedef struct LocalityCache LocalityCache;

LocalityCache *locality_cache_new(guint containers);
void locality_cache_free(LocalityCache *c);

/* fp's location in a cached container (that container becomes the most
 * recently used); FALSE if no cached container holds it. */
gboolean locality_cache_lookup(LocalityCache *c, const Fingerprint *fp, ChunkLocation *loc);
/* Cache the chunk list of a sealed container (`size` bytes at `container`),
 * evicting the least recently used container if full. */
void locality_cache_insert(LocalityCache *c, const uint8_t *container, size_t size);
/* Read container `id` of `pool` into `buf` (a container's size) and cache
 * its chunk list; one that does not read back sound (freed by gc since it
 * was named) holds nothing. FALSE only on an I/O failure. */
gboolean locality_cache_prefetch(LocalityCache *c, ContainerSource *pool, ContainerId id, uint8_t *buf,
                                 GError **err);
gboolean locality_cache_holds(const LocalityCache *c, ContainerId id);
/* A held container becomes the most recently used (else nothing). */
void locality_cache_touch(LocalityCache *c, ContainerId id);
size_t locality_cache_bytes(const LocalityCache *c);

#endif
