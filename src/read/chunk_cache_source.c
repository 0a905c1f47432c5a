/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_source.c: a ChunkSource that sends every chunk access to the
 * SSD chunk cache. */
#include "read/chunk_cache_source.h"
#include "cache/structures/chunk_table.h"
#include "util/error.h"

#include <string.h>

typedef struct {
    ChunkSource chunks;
    ChunkCache *cache;
    ChunkCacheReader *reader; /* its own, or NULL: the cache's */
    ChunkPosition pos;
    gboolean located; /* pos is the next access's */
    ChunkCacheBuf buf; /* real mode: the last chunk read */
} ChunkCacheSource;

ChunkCache *chunk_cache_source_open_cache(const Config *cfg, Store *store, GError **err)
{
    uint32_t n_containers;
    ChunkCacheOptions o;
    if (!container_store_count(store->containers, &n_containers, err) ||
        !chunk_cache_options_from_config(&o, &cfg->cache, store->container_size, n_containers,
                                         cfg->chunk_sizes.avg_size, err))
        return NULL;
    if (o.mode == CACHE_MODE_REAL && !store->has_id) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "the store in %s has no identity yet (made by an older destor): back up once before using "
                    "the SSD chunk cache",
                    store->dir);
        return NULL;
    }
    G_STATIC_ASSERT(STORE_ID_LEN == CHUNK_LAYOUT_STORE_ID_LEN);
    memcpy(o.store_id, store->id.bytes, STORE_ID_LEN);
    o.fp_alg = store->fingerprint;
    o.backing = container_store_source(store->containers);
    return chunk_cache_open(&o, err);
}

static void locate(ChunkSource *self, const ChunkPosition *pos)
{
    ChunkCacheSource *s = (ChunkCacheSource *)self;
    s->pos = *pos;
    s->located = TRUE;
}

ChunkCachePosition chunk_cache_source_position(const ChunkPosition *pos, const ChunkRef *ref)
{
    ChunkCachePosition p = { 0, 0, ref->length };
    if (pos != NULL) {
        p.address = chunk_address(pos->file, pos->index);
        p.touch_offset = pos->offset;
        p.touch_length = pos->length;
    } else {
        p.address = chunk_address(chunk_table_key(&ref->fp), 0);
    }
    return p;
}

/* The position of the access to ref: as located, or not. */
static ChunkCachePosition position(ChunkCacheSource *s, const ChunkRef *ref)
{
    ChunkCachePosition p = chunk_cache_source_position(s->located ? &s->pos : NULL, ref);
    s->located = FALSE;
    return p;
}

static gboolean touch(ChunkSource *self, const ChunkRef *ref, GError **err)
{
    ChunkCacheSource *s = (ChunkCacheSource *)self;
    ChunkCachePosition p = position(s, ref);
    return chunk_cache_touch(s->cache, ref, &p, err);
}

/* Real mode: the chunk's bytes through the cache. The store's bytes not
 * being the recipe's chunk is the caller's mismatch (it names the file). */
static const uint8_t *read_chunk(ChunkSource *self, const ChunkRef *ref, GError **mismatch, GError **err)
{
    ChunkCacheSource *s = (ChunkCacheSource *)self;
    ChunkCachePosition p = position(s, ref);
    GError *local = NULL;
    if (s->reader != NULL ? chunk_cache_reader_read_buf(s->reader, ref, &p, &s->buf, &local)
                          : chunk_cache_read_buf(s->cache, ref, &p, &s->buf, &local))
        return s->buf.data;
    g_propagate_error(g_error_matches(local, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY) ? mismatch : err, local);
    return NULL;
}

static void ahead(ChunkSource *self, const ChunkRef *refs, size_t n)
{
    chunk_cache_read_ahead(((ChunkCacheSource *)self)->cache, refs, n);
}

static void clear(ChunkSource *self)
{
    ((ChunkCacheSource *)self)->located = FALSE;
}

static uint64_t fetches(const ChunkSource *self)
{
    return chunk_cache_hdd_reads(((const ChunkCacheSource *)self)->cache);
}

static void free_source(ChunkSource *self)
{
    ChunkCacheSource *s = (ChunkCacheSource *)self;
    chunk_cache_reader_free(s->reader);
    g_free(s->buf.data);
    g_free(self);
}

ChunkSource *chunk_cache_source_new(ChunkCache *cache)
{
    ChunkCacheSource *s = g_new0(ChunkCacheSource, 1);
    s->chunks = (ChunkSource){ .read = read_chunk, .touch = touch, .clear = clear, .fetches = fetches,
                               .free = free_source, .locate = locate, .ahead = ahead };
    s->cache = cache;
    return &s->chunks;
}

ChunkSource *chunk_cache_source_new_reader(ChunkCache *cache)
{
    ChunkSource *src = chunk_cache_source_new(cache);
    ((ChunkCacheSource *)src)->reader = chunk_cache_reader_new(cache);
    return src;
}

ChunkCacheReader *chunk_cache_source_reader(ChunkSource *src)
{
    ChunkCacheReader *r = ((ChunkCacheSource *)src)->reader;
    g_assert(r != NULL);
    return r;
}
