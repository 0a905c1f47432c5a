/* SPDX-License-Identifier: GPL-3.0-or-later */
/* segment_stage.h: the segment buffer before dedup, for an index that
 * looks a whole segment up at once (fingerprint-index near-exact logical
 * silo). Each chunk is held (its data copied) until the segmenting rule
 * (index/segmenting.h) ends its segment; then the segment's fingerprints
 * are announced to the index and its chunks handed on, in stream order, to
 * be deduplicated and placed (each appending its reference to its file's
 * chunk list). An entry that comes while chunks are held waits (its record
 * shares the chunk list) and is handed on, in order, after them. */
#ifndef DESTOR_SEGMENT_STAGE_H
#define DESTOR_SEGMENT_STAGE_H

#include "index/fp_index_params.h"
#include "recipe/file_record.h"

#include <glib.h>

/* The job writer's own steps. */
typedef struct {
    /* The next n chunks handed on are these, a segment. */
    gboolean (*segment)(void *ctx, const Fingerprint *fps, guint n, GError **err);
    /* Dedup and place a chunk of the record whose chunk list is r->chunks
     * (only that field is set), appending its reference there. */
    gboolean (*chunk)(void *ctx, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                      GError **err);
    /* A whole entry, its chunks all handed on. */
    gboolean (*entry)(void *ctx, const FileRecord *r, GError **err);
    void *ctx;
} SegmentSink;

typedef struct SegmentStage SegmentStage;

SegmentStage *segment_stage_new(const SegmentParams *p, size_t fp_len, const SegmentSink *sink);
void segment_stage_free(SegmentStage *s);
/* The next chunk of r (its reference appended to r->chunks later). */
gboolean segment_stage_add_chunk(SegmentStage *s, FileRecord *r, const Fingerprint *fp, const uint8_t *data,
                                 size_t len, GError **err);
/* An entry after its chunks (the caller keeps r). */
gboolean segment_stage_add_entry(SegmentStage *s, const FileRecord *r, GError **err);
/* Hand on every held chunk and waiting entry (at commit). */
gboolean segment_stage_flush(SegmentStage *s, GError **err);

#endif
