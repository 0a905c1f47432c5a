/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_recorder.c: the chunk accesses of a walk of the read path, written
 * down. */
#include "read/chunk_recorder.h"
#include "read/chunk_cache_source.h"
#include "util/error.h"

#include <string.h>

typedef struct {
    ChunkSource chunks;
    ChunkRecording *rec;
    uint32_t n_containers;
    GHashTable *index; /* ChunkRef* (in a slice of its own) -> table index + 1 */
    ChunkPosition pos;
    gboolean located;
} ChunkRecorder;

static guint ref_hash(gconstpointer p)
{
    const ChunkRef *r = p;
    uint32_t h;
    memcpy(&h, r->fp.bytes, sizeof h);
    return h ^ r->container ^ (r->offset * 2654435761u);
}

static gboolean ref_equal(gconstpointer a, gconstpointer b)
{
    const ChunkRef *x = a, *y = b;
    return x->container == y->container && x->offset == y->offset && x->length == y->length &&
           memcmp(x->fp.bytes, y->fp.bytes, sizeof x->fp.bytes) == 0;
}

static void locate(ChunkSource *self, const ChunkPosition *pos)
{
    ChunkRecorder *s = (ChunkRecorder *)self;
    s->pos = *pos;
    s->located = TRUE;
}

static gboolean touch(ChunkSource *self, const ChunkRef *ref, GError **err)
{
    ChunkRecorder *s = (ChunkRecorder *)self;
    if (ref->container >= s->n_containers) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u is past the pool's %u containers",
                    ref->container, s->n_containers);
        return FALSE;
    }
    ChunkCachePosition p = chunk_cache_source_position(s->located ? &s->pos : NULL, ref);
    s->located = FALSE;
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(s->index, ref));
    if (at == 0) {
        g_array_append_val(s->rec->chunks, *ref);
        at = s->rec->chunks->len;
        g_hash_table_insert(s->index, g_memdup2(ref, sizeof *ref), GUINT_TO_POINTER(at));
    }
    ChunkTouch t = { .chunk = at - 1, .touch_offset = p.touch_offset, .touch_length = p.touch_length,
                     .address = p.address };
    g_array_append_val(s->rec->touches, t);
    return TRUE;
}

static const uint8_t *read_chunk(ChunkSource *self, const ChunkRef *ref, GError **mismatch, GError **err)
{
    (void)self, (void)ref, (void)mismatch;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s", "the chunk recorder reads no bytes");
    return NULL;
}

static void clear(ChunkSource *self)
{
    ((ChunkRecorder *)self)->located = FALSE;
}

static uint64_t fetches(const ChunkSource *self)
{
    (void)self;
    return 0;
}

static void free_recorder(ChunkSource *self)
{
    g_hash_table_destroy(((ChunkRecorder *)self)->index);
    g_free(self);
}

ChunkSource *chunk_recorder_new(ChunkRecording *rec, uint32_t n_containers)
{
    ChunkRecorder *s = g_new0(ChunkRecorder, 1);
    s->chunks = (ChunkSource){ .read = read_chunk, .touch = touch, .clear = clear, .fetches = fetches,
                               .free = free_recorder, .locate = locate };
    s->rec = rec;
    s->n_containers = n_containers;
    s->index = g_hash_table_new_full(ref_hash, ref_equal, g_free, NULL);
    return &s->chunks;
}
