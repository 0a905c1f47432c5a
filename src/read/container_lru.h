/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_lru.h: a small in-memory LRU of whole containers in front of a
 * ContainerSource, so consecutive chunks of one container cost one read.
 * Restore keeps one across the job (Destor's restore-cache); read-file
 * clears it per request so each request's container accesses reach the
 * source (and the SSD cache behind it) once per container. */
#ifndef DESTOR_CONTAINER_LRU_H
#define DESTOR_CONTAINER_LRU_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

typedef struct ContainerLru ContainerLru;

ContainerLru *container_lru_new(ContainerSource *src, guint capacity);
/* The same recency logic on ids alone: a miss calls the source with a NULL
 * buffer (a simulating cache), so the source sees exactly the accesses a
 * real LRU of this capacity would make. */
ContainerLru *container_lru_new_ids_only(ContainerSource *src, guint capacity);
/* The same cache with Belady's choice of victim (the opt restore cache):
 * a miss in a full cache drops the container whose next use, as
 * next_use(ctx, id) tells, is farthest; among those never used again, the
 * least recently used. */
typedef uint64_t (*ContainerNextUse)(void *ctx, ContainerId id);
ContainerLru *container_lru_new_by_next_use(ContainerSource *src, guint capacity, gboolean ids_only,
                                            ContainerNextUse next_use, void *ctx);
void container_lru_free(ContainerLru *lru);

/* The container's bytes (valid until the next get or clear). */
const uint8_t *container_lru_get(ContainerLru *lru, ContainerId id, GError **err);
/* The bytes get() gave for `id` did not hold what the recipe names: have
 * the source read it again from the store (container_source_reread) into
 * the same buffer. NULL with *err unset when the source keeps no copies
 * (the bytes came from the store: the mismatch is the store's own). */
const uint8_t *container_lru_reread(ContainerLru *lru, ContainerId id, GError **err);
/* Make `id` the most recent entry, reading it on a miss; for ids-only LRUs. */
gboolean container_lru_touch(ContainerLru *lru, ContainerId id, GError **err);
void container_lru_clear(ContainerLru *lru);

/* Reads that reached the source so far. */
uint64_t container_lru_fetches(const ContainerLru *lru);
size_t container_lru_container_size(const ContainerLru *lru);

#endif
