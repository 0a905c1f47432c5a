/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_chunks.c: a ChunkSource that slices chunks out of containers. */
#include "read/container_chunks.h"
#include "read/container_lru.h"
#include "read/opt_window.h"
#include "storage/container.h"
#include "util/error.h"

typedef struct {
    ChunkSource chunks;
    ContainerLru *lru;
    gboolean ids_only;
    OptWindow *future; /* opt: the reads to come; NULL: LRU */
} ContainerChunks;

/* opt: this read leaves the window of reads to come. */
static gboolean advance(ContainerChunks *cc, const ChunkRef *ref, GError **err)
{
    return cc->future == NULL || opt_window_advance(cc->future, ref->container, ref->offset, err);
}

/* The container holding `ref`, checked against the recipe; bytes that fail
 * the check are read again from the store when they came from a copy. */
static const uint8_t *read_chunk(ChunkSource *self, const ChunkRef *ref, GError **mismatch, GError **err)
{
    ContainerChunks *cc = (ContainerChunks *)self;
    g_assert(!cc->ids_only);
    size_t csize = container_lru_container_size(cc->lru);
    if (ref->offset < CONTAINER_HEADER_SIZE || (uint64_t)ref->offset + ref->length > csize) {
        g_set_error(mismatch, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "recipe names a chunk outside its container");
        return NULL;
    }
    if (!advance(cc, ref, err))
        return NULL;
    const uint8_t *cont = container_lru_get(cc->lru, ref->container, err);
    GError *bad = NULL;
    if (cont == NULL)
        return NULL;
    if (!container_check_chunk(cont, csize, ref->container, &ref->fp, ref->offset, ref->length, &bad)) {
        GError *again = NULL;
        cont = container_lru_reread(cc->lru, ref->container, &again);
        if (cont == NULL && again != NULL) {
            g_error_free(bad);
            g_propagate_error(err, again);
            return NULL;
        }
        if (cont != NULL) {
            g_clear_error(&bad);
            if (!container_check_chunk(cont, csize, ref->container, &ref->fp, ref->offset, ref->length, &bad))
                cont = NULL;
        }
        if (cont == NULL) {
            g_propagate_error(mismatch, bad);
            return NULL;
        }
    }
    return cont + ref->offset;
}

/* refs[0], then the chunks stored right after it in its container, each
 * checked against the container's metadata; not with opt, whose window
 * advances one read at a time. */
static const uint8_t *read_run(ChunkSource *self, const ChunkRef *refs, guint max, guint *n, GError **mismatch,
                               GError **err)
{
    ContainerChunks *cc = (ContainerChunks *)self;
    const uint8_t *first = read_chunk(self, &refs[0], mismatch, err);
    *n = 1;
    if (first == NULL || cc->future != NULL)
        return first;
    size_t csize = container_lru_container_size(cc->lru);
    const uint8_t *cont = first - refs[0].offset;
    for (; *n < max; (*n)++) {
        const ChunkRef *prev = &refs[*n - 1], *c = &refs[*n];
        if (c->container != refs[0].container || c->offset != prev->offset + prev->length ||
            (uint64_t)c->offset + c->length > csize ||
            !container_check_chunk(cont, csize, c->container, &c->fp, c->offset, c->length, NULL))
            break; /* read alone: a mismatch is handled there */
    }
    return first;
}

static gboolean touch_chunk(ChunkSource *self, const ChunkRef *ref, GError **err)
{
    ContainerChunks *cc = (ContainerChunks *)self;
    return advance(cc, ref, err) && container_lru_touch(cc->lru, ref->container, err);
}

static void clear(ChunkSource *self)
{
    container_lru_clear(((ContainerChunks *)self)->lru);
}

static uint64_t fetches(const ChunkSource *self)
{
    return container_lru_fetches(((const ContainerChunks *)self)->lru);
}

static void free_chunks(ChunkSource *self)
{
    ContainerChunks *cc = (ContainerChunks *)self;
    container_lru_free(cc->lru);
    opt_window_free(cc->future);
    g_free(cc);
}

static ChunkSource *make(ContainerLru *lru, gboolean ids_only)
{
    ContainerChunks *cc = g_new0(ContainerChunks, 1);
    cc->chunks = (ChunkSource){ .read = read_chunk, .read_run = ids_only ? NULL : read_run, .touch = touch_chunk,
                                .clear = clear, .fetches = fetches, .free = free_chunks };
    cc->lru = lru;
    cc->ids_only = ids_only;
    return &cc->chunks;
}

ChunkSource *container_chunks_new(ContainerSource *src, guint capacity)
{
    return make(container_lru_new(src, capacity), FALSE);
}

ChunkSource *container_chunks_new_ids_only(ContainerSource *src, guint capacity)
{
    return make(container_lru_new_ids_only(src, capacity), TRUE);
}

static uint64_t next_use(void *ctx, ContainerId id)
{
    return opt_window_next_use(ctx, id);
}

ChunkSource *container_chunks_new_opt(ContainerSource *src, guint capacity, guint window, ChunkStream *future,
                                      gboolean ids_only)
{
    OptWindow *w = opt_window_new(future, window);
    ChunkSource *chunks = make(container_lru_new_by_next_use(src, capacity, ids_only, next_use, w), ids_only);
    ((ContainerChunks *)chunks)->future = w;
    return chunks;
}
