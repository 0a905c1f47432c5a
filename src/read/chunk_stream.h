/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_stream.h: the chunks a read will ask for, in order, told ahead of
 * time. The restore caches that look into the future (restore_cache.h:
 * Belady's opt and the forward assembly area) pull them from here as far
 * ahead as they need, so a job's whole recipe is never held in memory. */
#ifndef DESTOR_CHUNK_STREAM_H
#define DESTOR_CHUNK_STREAM_H

#include "recipe/file_record.h"
#include "store/store.h"

#include <glib.h>

typedef struct ChunkStream ChunkStream;
struct ChunkStream {
    /* The next chunk: TRUE with *ref set; FALSE at the end (*err unset) or
     * when the recipe cannot be read (*err set). */
    gboolean (*next)(ChunkStream *self, ChunkRef *ref, GError **err);
    void (*free)(ChunkStream *self);
};

static inline gboolean chunk_stream_next(ChunkStream *s, ChunkRef *ref, GError **err)
{
    return s->next(s, ref, err);
}

static inline void chunk_stream_free(ChunkStream *s)
{
    if (s != NULL)
        s->free(s);
}

/* The chunks of r, which must outlive the stream. */
ChunkStream *chunk_stream_file(const FileRecord *r);
/* The chunks restore reads from job `job_id`: those of its regular files
 * with a plain stored path (safe_path.h; restore refuses the others before
 * reading them), in record order, read through a records reader of the
 * stream's own. */
ChunkStream *chunk_stream_restore(const Store *store, uint32_t job_id, GError **err);

#endif
