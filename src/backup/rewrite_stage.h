/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rewrite_stage.h: the rewrite buffer between dedup and container packing.
 * With rewriting on, the job writer hands each chunk here after its index
 * lookup; a segment of rewrite-algorithm's buffer size is held (data
 * copied) until full, rewrite_policy decides which duplicates to write
 * again, and then, in stream order, each chunk is referenced where it is
 * stored or handed to the sink to be written as a new chunk. An entry whose
 * chunks are still held waits (its record shares the chunk list) and is
 * recorded, in order, once they are placed. */
#ifndef DESTOR_REWRITE_STAGE_H
#define DESTOR_REWRITE_STAGE_H

#include "backup/rewrite_policy.h"
#include "index/fp_index.h"
#include "recipe/file_record.h"

#include <glib.h>

/* Where the stage's decisions go: the job writer's own steps. */
typedef struct {
    /* Pack a chunk into the open container; fills *loc. */
    gboolean (*store)(void *ctx, const Fingerprint *fp, const uint8_t *data, size_t len, ChunkLocation *loc,
                      GError **err);
    /* Record a whole entry (job_meta_data, recipe index, counts). */
    gboolean (*record)(void *ctx, const FileRecord *r, GError **err);
    void *ctx;
} RewriteSink;

typedef struct {
    uint64_t rewritten_chunks, rewritten_bytes;
} RewriteTotals;

typedef struct RewriteStage RewriteStage;

/* har_sparse is taken (NULL: no HAR). Chunks stored in containers from
 * own_from on (the job's own) are never rewritten. restore_cache_containers:
 * the restore cache the cache-aware filter models. */
RewriteStage *rewrite_stage_new(const RewriteConfig *cfg, size_t container_size, ContainerId own_from,
                                GHashTable *har_sparse, unsigned restore_cache_containers, const RewriteSink *sink);
void rewrite_stage_free(RewriteStage *s);
/* Take the next chunk of r (appending its reference to r->chunks, placed
 * later); `stored` is where the index found it, NULL if it did not. */
gboolean rewrite_stage_add_chunk(RewriteStage *s, FileRecord *r, const Fingerprint *fp, const uint8_t *data,
                                 size_t len, const ChunkLocation *stored, GError **err);
/* Record r now, or once its chunks are placed (the stage keeps its own
 * reference to r's fields; the caller keeps r). */
gboolean rewrite_stage_add_entry(RewriteStage *s, const FileRecord *r, GError **err);
/* Place every held chunk and record every waiting entry (at commit). */
gboolean rewrite_stage_flush(RewriteStage *s, GError **err);
RewriteTotals rewrite_stage_totals(const RewriteStage *s);

#endif
