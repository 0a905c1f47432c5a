/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_real.c: the chunk cache's real mode: the layout on the SSD
 * through the seam (chunk_layout.h: the chunk log, its capacity by the
 * reclaim rule of chunk_cache.h, or the buckets), opened with the cache's
 * identity, the warm start from what it holds, hits read from it and
 * checked, misses read from the store by the configured miss path. */
#include "cache/core/chunk_cache_internal.h"
#include "storage/chunk_read.h"
#include "storage/container.h"
#include "util/error.h"

#include <string.h>

typedef struct {
    GArray *fps;      /* Fingerprint */
    GArray *lengths;  /* uint32_t */
} LogChunks;

static void collect(void *ctx, const Fingerprint *fp, uint32_t length)
{
    LogChunks *l = ctx;
    g_array_append_val(l->fps, *fp);
    g_array_append_val(l->lengths, length);
}

/* Hand the chunks the layout holds to the policy, in the layout's order,
 * while they fit (buckets: all, the layout keeps its own capacity); drop
 * the rest from the layout. Each enters at an address of its own (its
 * recipe position is not known here). */
static void warm_start(ChunkCache *c)
{
    LogChunks l = { g_array_new(FALSE, FALSE, sizeof(Fingerprint)), g_array_new(FALSE, FALSE, sizeof(uint32_t)) };
    c->lops->foreach(c->layout, collect, &l);
    for (guint i = 0; i < l.fps->len; i++) {
        const Fingerprint *fp = &g_array_index(l.fps, Fingerprint, i);
        uint32_t len = g_array_index(l.lengths, uint32_t, i);
        if (len == 0 || (!c->buckets && c->used_bytes + len > c->opt.capacity_bytes)) {
            c->lops->drop(c->layout, fp);
            continue;
        }
        ChunkAccess a = { .chunk = chunk_table_key(fp), .length = len, .touch_offset = 0, .touch_length = len };
        a.address = chunk_address(a.chunk, 0);
        ChunkSlot s = chunk_cache_bind(c, fp, len);
        c->ops->inserted(c->pst, s, &a);
    }
    g_array_unref(l.fps);
    g_array_unref(l.lengths);
}

gboolean chunk_cache_real_open(ChunkCache *c, GError **err)
{
    const ChunkCacheOptions *o = &c->opt;
    ChunkLayoutOptions lo;
    chunk_cache_layout_options(c, &lo);
    lo.directory = o->directory;
    c->log_capacity = lo.capacity_bytes;
    c->layout = c->lops->open(&lo, err);
    if (c->layout == NULL)
        return FALSE;
    if (o->fetch == CHUNK_FETCH_CONTAINER)
        c->container_buf = g_malloc(o->container_size);
    warm_start(c);
    return TRUE;
}

gboolean chunk_cache_real_close(ChunkCache *c, GError **err)
{
    gboolean ok = c->layout == NULL || c->lops->close(c->layout, err);
    c->layout = NULL;
    g_free(c->container_buf);
    c->container_buf = NULL;
    return ok;
}

gboolean chunk_cache_real_get(ChunkCache *c, const ChunkRef *ref, uint8_t *buf)
{
    uint32_t len = 0;
    ChunkLayoutGet got = c->lops->get(c->layout, &ref->fp, buf, &len);
    if (got == CHUNK_LAYOUT_HIT && len == ref->length)
        return TRUE;
    c->counters.damaged++;
    if (got == CHUNK_LAYOUT_HIT) /* another length than the recipe's: not this chunk */
        c->lops->drop(c->layout, &ref->fp);
    if (!c->damaged_warned)
        destor_warning("SSD chunk cache: a cached chunk of container %u could not be served (%s); it and any "
                       "other such chunk are read from the store (counted in damaged)",
                       ref->container, got == CHUNK_LAYOUT_ABSENT ? "lost" : "damaged");
    c->damaged_warned = TRUE;
    return FALSE;
}

gboolean chunk_cache_real_fetch(ChunkCache *c, const ChunkRef *ref, uint8_t *buf, GError **err)
{
    if (c->opt.fetch == CHUNK_FETCH_CHUNK)
        return chunk_read(c->opt.backing, ref->container, ref->offset, ref->length, c->opt.fp_alg, &ref->fp, buf,
                          NULL, err);
    size_t size = c->opt.container_size;
    if (c->container_in_buf != ref->container) {
        c->container_in_buf = CACHE_NO_CONTAINER;
        if (!container_source_read(c->opt.backing, ref->container, c->container_buf, err))
            return FALSE;
        c->container_in_buf = ref->container;
    }
    if (!container_check_chunk(c->container_buf, size, ref->container, &ref->fp, ref->offset, ref->length, err))
        return FALSE;
    memcpy(buf, c->container_buf + ref->offset, ref->length);
    return TRUE;
}

const uint8_t *chunk_cache_real_container(const ChunkCache *c, ContainerId id)
{
    return c->container_buf != NULL && c->container_in_buf == id ? c->container_buf : NULL;
}
