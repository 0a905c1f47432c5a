/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_offer.c: ssd-cache-chunk-fetch container's second half. A
 * miss that reads its container whole has the container's other chunks in
 * hand; they are offered to the policy as admissions it may refuse
 * (chunk_cache.h "Offers"). The container's chunk list comes from its own
 * metadata, read once from the store and kept (per stored chunk of a
 * container fetched: its fingerprint, offset and length), so simulation and
 * real mode offer the same chunks in the same order. */
#include "cache/chunk/chunk_cache_internal.h"
#include "storage/container.h"
#include "util/error.h"

#include <string.h>

struct ChunkCacheContainerChunks {
    uint32_t n;
    ChunkRef refs[]; /* in the container's offset order */
};

void chunk_cache_offers_free(ChunkCache *c)
{
    if (c->container_chunks)
        g_hash_table_destroy(c->container_chunks);
    c->container_chunks = NULL;
}

/* The chunk list of container `id` out of its verified bytes. */
static ChunkCacheContainerChunks *list_of(const uint8_t *buf, size_t size, ContainerId id)
{
    uint32_t n = container_chunk_count(buf);
    ChunkCacheContainerChunks *l = g_malloc(sizeof *l + (size_t)n * sizeof(ChunkRef));
    l->n = n;
    for (uint32_t i = 0; i < n; i++) {
        ChunkRef *r = &l->refs[i];
        memset(r, 0, sizeof *r);
        container_chunk_entry(buf, size, i, &r->fp, &r->offset, &r->length);
        r->container = id;
    }
    return l;
}

/* Container id's chunk list: kept, or from `buf` (real mode: the container
 * the miss read), or read from the store (simulation). NULL when the store
 * cannot give it (warned once; nothing is offered). */
static const ChunkCacheContainerChunks *chunks_of(ChunkCache *c, ContainerId id, const uint8_t *buf)
{
    if (c->container_chunks == NULL)
        c->container_chunks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    ChunkCacheContainerChunks *l = g_hash_table_lookup(c->container_chunks, GUINT_TO_POINTER(id));
    if (l)
        return l;
    size_t size = c->opt.container_size;
    uint8_t *own = NULL;
    if (buf == NULL) {
        if (c->opt.backing == NULL)
            return NULL; /* a core with no store (unit drivers): offers come from the caller */
        GError *err = NULL;
        own = g_malloc(size);
        if (!container_source_read(c->opt.backing, id, own, &err)) {
            if (!c->offer_warned)
                destor_warning("SSD chunk cache: container %u's chunks cannot be offered: %s", id, err->message);
            c->offer_warned = TRUE;
            g_error_free(err);
            g_free(own);
            return NULL;
        }
        buf = own;
    }
    l = list_of(buf, size, id);
    g_free(own);
    c->container_chunk_entries += l->n;
    g_hash_table_insert(c->container_chunks, GUINT_TO_POINTER(id), l);
    return l;
}

gboolean chunk_cache_offer_locked(ChunkCache *c, const ChunkRef *ref, const uint8_t *data)
{
    g_assert(ref->length > 0);
    c->counters.offered++;
    if (chunk_cache_slot(c, &ref->fp) != CHUNK_NO_SLOT) {
        c->counters.offers_cached++; /* cached already: nothing changes */
        return FALSE;
    }
    ChunkAccess a = { .chunk = chunk_table_key(&ref->fp), .length = ref->length, .touch_offset = 0,
                      .touch_length = ref->length };
    a.address = chunk_address(a.chunk, 0); /* no recipe position: an address of its own, as a warm start */
    gboolean admitted = chunk_cache_admit(c, ref, &a, data, TRUE);
    if (admitted)
        c->counters.offers_admitted++;
    return admitted;
}

void chunk_cache_offer_container(ChunkCache *c, const ChunkCacheReader *reader, const ChunkRef *missed)
{
    const uint8_t *buf = NULL;
    if (c->layout != NULL) {
        buf = chunk_cache_real_container(reader, missed->container);
        g_assert(buf != NULL); /* the miss was just read from it */
    }
    const ChunkCacheContainerChunks *l = chunks_of(c, missed->container, buf);
    if (l == NULL)
        return;
    for (uint32_t i = 0; i < l->n; i++) {
        const ChunkRef *r = &l->refs[i];
        if (r->offset == missed->offset || r->length == 0)
            continue; /* the requested chunk went through the miss itself */
        const uint8_t *data = NULL;
        if (buf != NULL) {
            Fingerprint fp;
            data = buf + r->offset;
            fingerprint_compute(c->opt.fp_alg, data, r->length, &fp);
            if (memcmp(&fp, &r->fp, sizeof fp) != 0) {
                c->counters.offers_mismatched++; /* the container's metadata lies: never cached */
                continue;
            }
        }
        chunk_cache_offer_locked(c, r, data);
    }
}

gboolean chunk_cache_offer(ChunkCache *c, const ChunkRef *ref, GError **err)
{
    if (ref->length == 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "SSD chunk cache: an offer of 0 bytes");
        return FALSE;
    }
    if (c->layout != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "SSD chunk cache: real mode offers from the store");
        return FALSE;
    }
    g_mutex_lock(&c->lock);
    double start = c->model.now;
    chunk_cache_offer_locked(c, ref, NULL);
    c->own.model_s += c->model.now - start; /* in the request of the cache's own reader */
    g_mutex_unlock(&c->lock);
    return TRUE;
}

size_t chunk_cache_offers_memory(const ChunkCache *c)
{
    if (c->container_chunks == NULL)
        return 0;
    return (size_t)g_hash_table_size(c->container_chunks) * (sizeof(ChunkCacheContainerChunks) + 4 * sizeof(void *)) +
           (size_t)c->container_chunk_entries * sizeof(ChunkRef);
}
