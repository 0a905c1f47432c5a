/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_model.c: the bucketized layout's decisions without data
 * (chunk_buckets_model.h). */
#include "cache/layouts/buckets/chunk_buckets_model.h"
#include "cache/layouts/buckets/chunk_buckets_format.h"
#include "cache/layouts/buckets/chunk_buckets_place.h"
#include "util/error.h"

#include <string.h>

gboolean chunk_buckets_model_init(ChunkBucketsModel *m, uint64_t capacity_bytes, ChunkBucketsDropped dropped,
                                  void *dropped_ctx, GError **err)
{
    memset(m, 0, sizeof *m);
    uint32_t slots = CHUNK_BUCKETS_DEFAULT_SLOTS;
    m->subslot = CHUNK_BUCKETS_DEFAULT_SUBSLOT;
    m->bucket_size = chunk_buckets_bucket_size(slots, m->subslot);
    if (capacity_bytes < m->bucket_size || capacity_bytes / m->bucket_size > UINT32_MAX / 2) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk buckets: ssd-cache-size must hold one bucket (%" G_GUINT64_FORMAT " bytes) and not too many",
                    m->bucket_size);
        return FALSE;
    }
    uint32_t n_buckets = (uint32_t)(capacity_bytes / m->bucket_size);
    chunk_buckets_index_init(&m->x, n_buckets, slots);
    chunk_buckets_sketch_init(&m->sketch, (uint64_t)n_buckets * slots);
    m->fp = g_new0(Fingerprint, (size_t)n_buckets * slots);
    m->length = g_new0(uint32_t, (size_t)n_buckets * slots);
    m->dropped = dropped;
    m->dropped_ctx = dropped_ctx;
    return TRUE;
}

void chunk_buckets_model_clear(ChunkBucketsModel *m)
{
    chunk_buckets_index_clear(&m->x);
    chunk_buckets_sketch_clear(&m->sketch);
    g_free(m->fp);
    g_free(m->length);
    memset(m, 0, sizeof *m);
}

uint32_t chunk_buckets_model_max_chunk(const ChunkBucketsModel *m)
{
    return chunk_buckets_largest_chunk(m->x.slots, m->subslot);
}

static size_t at(const ChunkBucketsModel *m, uint32_t bucket, uint32_t s)
{
    return (size_t)bucket * m->x.slots + s;
}

/* The head sub-slot of fp, or -1. */
static int find(const ChunkBucketsModel *m, uint32_t bucket, const Fingerprint *fp)
{
    uint16_t p = chunk_buckets_prefix_of(fp);
    for (int s = chunk_buckets_index_find(&m->x, bucket, p, 0); s >= 0;
         s = chunk_buckets_index_find(&m->x, bucket, p, (uint32_t)s + 1))
        if (memcmp(m->fp[at(m, bucket, (uint32_t)s)].bytes, fp->bytes, FP_SLOT) == 0)
            return s;
    return -1;
}

gboolean chunk_buckets_model_contains(const ChunkBucketsModel *m, const Fingerprint *fp)
{
    return find(m, chunk_buckets_bucket_of(&m->x, fp), fp) >= 0;
}

typedef struct {
    ChunkBucketsModel *m;
    uint32_t bucket;
} Ctx;

static void fp_at(void *ctx, uint32_t s, Fingerprint *out)
{
    Ctx *c = ctx;
    *out = c->m->fp[at(c->m, c->bucket, s)];
}

static void evict_head(void *ctx, uint32_t s)
{
    Ctx *c = ctx;
    ChunkBucketsModel *m = c->m;
    size_t i = at(m, c->bucket, s);
    Fingerprint fp = m->fp[i];
    uint32_t len = m->length[i];
    chunk_buckets_index_unmark(&m->x, c->bucket, s);
    if (m->dropped)
        m->dropped(m->dropped_ctx, &fp, len);
}

void chunk_buckets_model_put(ChunkBucketsModel *m, const Fingerprint *fp, uint32_t len, uint32_t stored)
{
    g_assert(len >= 1 && len <= chunk_buckets_model_max_chunk(m) && stored >= 1 && stored <= len);
    Ctx c = { m, chunk_buckets_bucket_of(&m->x, fp) };
    g_assert(find(m, c.bucket, fp) < 0);
    uint32_t n = (stored + m->subslot - 1) / m->subslot;
    uint32_t start = chunk_buckets_choose_run(&m->x, &m->sketch, c.bucket, n, fp_at, &c);
    chunk_buckets_run_heads(&m->x, c.bucket, start, n, evict_head, &c);
    chunk_buckets_index_mark(&m->x, c.bucket, start, n, chunk_buckets_prefix_of(fp));
    m->fp[at(m, c.bucket, start)] = *fp;
    m->length[at(m, c.bucket, start)] = len;
    chunk_buckets_sketch_add(&m->sketch, fp);
}

void chunk_buckets_model_hit(ChunkBucketsModel *m, const Fingerprint *fp)
{
    g_assert(chunk_buckets_model_contains(m, fp));
    chunk_buckets_sketch_add(&m->sketch, fp);
}

gboolean chunk_buckets_model_drop(ChunkBucketsModel *m, const Fingerprint *fp)
{
    uint32_t bucket = chunk_buckets_bucket_of(&m->x, fp);
    int s = find(m, bucket, fp);
    if (s < 0)
        return FALSE;
    chunk_buckets_index_unmark(&m->x, bucket, (uint32_t)s);
    return TRUE;
}

size_t chunk_buckets_model_index_bytes(const ChunkBucketsModel *m)
{
    return chunk_buckets_index_bytes_of(&m->x) + chunk_buckets_sketch_bytes(&m->sketch) +
           (m->x.n_buckets + 7) / 8; /* the layout's dirty bit per bucket */
}
