/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_recorder.h: a ChunkSource that moves no bytes and writes down every
 * chunk access the read path makes, at the position the SSD chunk cache
 * would see it (chunk_cache_source_position): the chunk-granularity walk
 * of `destor trace compile` (ssd-cache-granularity chunk). Each distinct
 * chunk reference is kept once in a table; an access names its entry. A
 * container id past the pool is the pool's own error (INTEGRITY), as the
 * id source's. */
#ifndef DESTOR_CHUNK_RECORDER_H
#define DESTOR_CHUNK_RECORDER_H

#include "read/chunk_source.h"
#include "recipe/file_record.h"

#include <glib.h>
#include <stdint.h>

/* One chunk access: the chunk (an index into the recording's table), its
 * source address and the bytes of it the request reads. */
typedef struct {
    uint32_t chunk;
    uint32_t touch_offset, touch_length;
    uint64_t address;
} ChunkTouch;

typedef struct {
    GArray *chunks;  /* ChunkRef: each distinct reference once, in first-access order */
    GArray *touches; /* ChunkTouch: every access, in order */
} ChunkRecording;

/* Records into rec (arrays not owned, appended to); ids must be below
 * n_containers. */
ChunkSource *chunk_recorder_new(ChunkRecording *rec, uint32_t n_containers);

#endif
