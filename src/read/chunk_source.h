/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_source.h: the chunk-level read seam. Every read of stored bytes
 * (read-file, restore, trace replays) asks for one chunk at a time, as its
 * recipe names it (fingerprint, container, offset, length), and gets those
 * bytes checked against the recipe. Below the seam today: whole containers
 * through a small LRU and the ContainerSource behind it (the store, or the
 * SSD container cache over it: container_chunks.c), or the SSD chunk
 * cache (ssd-cache-granularity chunk: chunk_cache_source.c), which also
 * wants to know where each chunk is read from (locate). */
#ifndef DESTOR_CHUNK_SOURCE_H
#define DESTOR_CHUNK_SOURCE_H

#include "recipe/file_record.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* Where the next read or touch comes from: the file (file_output_file_key:
 * its path and job), the chunk's index in its recipe, and the bytes of the
 * chunk the request wants. */
typedef struct {
    uint64_t file;
    uint32_t index;
    uint32_t offset, length; /* [offset, offset + length) of the chunk */
} ChunkPosition;

typedef struct ChunkSource ChunkSource;
struct ChunkSource {
    /* The ref->length bytes of chunk `ref`, valid until the next call. NULL
     * with *err set when they cannot be read (I/O, a damaged container), or
     * with *mismatch set when what is stored there is not the chunk the
     * recipe names, even in the origin's own copy (the caller names the
     * file: the recipe or the store is damaged). */
    const uint8_t *(*read)(ChunkSource *self, const ChunkRef *ref, GError **mismatch, GError **err);
    /* Make the access a read would make, moving no bytes (simulation). */
    gboolean (*touch)(ChunkSource *self, const ChunkRef *ref, GError **err);
    /* Forget what is held, so the next request's reads reach the source. */
    void (*clear)(ChunkSource *self);
    /* Reads that reached the source below so far. */
    uint64_t (*fetches)(const ChunkSource *self);
    void (*free)(ChunkSource *self);
    /* Optional (NULL: one chunk a read). As read, for refs[0], and as many
     * of refs[1..max) as lie right after it in the same held bytes (the
     * same container, back to back), each checked against its recipe as
     * read checks it: *n (at least 1) chunks' bytes in a row, valid until
     * the next call. A file's chunks are stored in order, so a whole
     * container's worth reaches the caller in one piece, to be written
     * out without being gathered first. Not given with locate or ahead. */
    const uint8_t *(*read_run)(ChunkSource *self, const ChunkRef *refs, guint max, guint *n, GError **mismatch,
                               GError **err);
    /* Optional (NULL: the source does not care): the position of the chunk
     * the next read or touch asks for. */
    void (*locate)(ChunkSource *self, const ChunkPosition *pos);
    /* Optional (NULL: nothing to gain): the next reads will ask for
     * refs[0..n) in this order (refs stays valid until then), so a source
     * may fetch them together (the SSD chunk cache reads its hits with
     * several SSD reads in flight). A hint: the reads decide. */
    void (*ahead)(ChunkSource *self, const ChunkRef *refs, size_t n);
};

static inline void chunk_source_locate(ChunkSource *s, const ChunkPosition *pos)
{
    if (s->locate != NULL)
        s->locate(s, pos);
}

static inline void chunk_source_ahead(ChunkSource *s, const ChunkRef *refs, size_t n)
{
    if (s->ahead != NULL)
        s->ahead(s, refs, n);
}

static inline const uint8_t *chunk_source_read(ChunkSource *s, const ChunkRef *ref, GError **mismatch,
                                               GError **err)
{
    return s->read(s, ref, mismatch, err);
}

/* refs[0] and the chunks after it that read_run gives with it (*n), or
 * refs[0] alone. */
static inline const uint8_t *chunk_source_read_run(ChunkSource *s, const ChunkRef *refs, guint max, guint *n,
                                                   GError **mismatch, GError **err)
{
    g_assert(max > 0);
    *n = 1;
    return s->read_run != NULL ? s->read_run(s, refs, max, n, mismatch, err) : s->read(s, refs, mismatch, err);
}

static inline gboolean chunk_source_touch(ChunkSource *s, const ChunkRef *ref, GError **err)
{
    return s->touch(s, ref, err);
}

static inline void chunk_source_clear(ChunkSource *s)
{
    s->clear(s);
}

static inline uint64_t chunk_source_fetches(const ChunkSource *s)
{
    return s->fetches(s);
}

static inline void chunk_source_free(ChunkSource *s)
{
    if (s != NULL)
        s->free(s);
}

#endif
