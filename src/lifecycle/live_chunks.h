/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_chunks.h: the chunks live jobs reference, by location: what gc
 * reads from the records of every live job before it frees or copies
 * anything. One sorted array of distinct (container, offset, length),
 * 12 bytes a distinct live chunk. */
#ifndef DESTOR_LIVE_CHUNKS_H
#define DESTOR_LIVE_CHUNKS_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    ContainerId container;
    uint32_t offset;
    uint32_t length;
} LiveChunk;

/* Start collecting. */
GArray *live_chunks_new(void);
void live_chunks_add(GArray *chunks, ContainerId container, uint32_t offset, uint32_t length);
/* Sort and drop repeats; call once, after the last add. */
void live_chunks_seal(GArray *chunks);
/* Index of the first chunk of `container` (or of the next container after
 * it; chunks->len when none) in a sealed array. */
guint live_chunks_first(const GArray *chunks, ContainerId container);
/* Index of the chunk at (container, offset) in a sealed array, or -1. */
gint64 live_chunks_find(const GArray *chunks, ContainerId container, uint32_t offset);

#endif
