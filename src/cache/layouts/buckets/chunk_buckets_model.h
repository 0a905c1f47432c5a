/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_model.h: the bucketized layout (chunk_buckets.h) without
 * its data, for the chunk cache's simulation mode: the same buckets,
 * sub-slots, in-memory index and Count-Min sketch, and the same choices
 * (chunk_buckets_place.h), so simulation evicts exactly the chunks real
 * mode's layout evicts on the same trace. It keeps each chunk's full
 * fingerprint and length in memory where the layout keeps them on the
 * SSD. With compression the caller gives each chunk's stored length
 * (chunk_buckets_compress on its bytes, read once from the store), so
 * the model takes the sub-slots the layout would. */
#ifndef DESTOR_CACHE_CHUNK_BUCKETS_MODEL_H
#define DESTOR_CACHE_CHUNK_BUCKETS_MODEL_H

#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/layouts/buckets/chunk_buckets_index.h"
#include "cache/layouts/buckets/chunk_buckets_sketch.h"

typedef struct {
    ChunkBucketsIndex x;
    ChunkBucketsSketch sketch;
    Fingerprint *fp;  /* per sub-slot: the chunk whose head it is */
    uint32_t *length; /* per sub-slot, on heads */
    uint32_t subslot;
    uint64_t bucket_size;
    ChunkBucketsDropped dropped;
    void *dropped_ctx;
} ChunkBucketsModel;

/* The default geometry over capacity_bytes (as chunk_buckets_open with
 * subslot_size and slots 0); FALSE with a CONFIG error when it holds no
 * bucket. */
gboolean chunk_buckets_model_init(ChunkBucketsModel *m, uint64_t capacity_bytes, ChunkBucketsDropped dropped,
                                  void *dropped_ctx, GError **err);
void chunk_buckets_model_clear(ChunkBucketsModel *m);
uint32_t chunk_buckets_model_max_chunk(const ChunkBucketsModel *m);
/* Put a chunk the model does not hold (len in 1..max_chunk), taking the
 * sub-slots of `stored` bytes (1..len: len when stored as it is): evicts
 * as the layout's put does (through `dropped`) and counts it in the
 * sketch. */
void chunk_buckets_model_put(ChunkBucketsModel *m, const Fingerprint *fp, uint32_t len, uint32_t stored);
/* A hit on a held chunk: counted in the sketch, as the layout's get. */
void chunk_buckets_model_hit(ChunkBucketsModel *m, const Fingerprint *fp);
/* FALSE when it was not held. */
gboolean chunk_buckets_model_drop(ChunkBucketsModel *m, const Fingerprint *fp);
gboolean chunk_buckets_model_contains(const ChunkBucketsModel *m, const Fingerprint *fp);
/* What the layout's index takes for the same chunks (prefixes, bits,
 * sketch): the memory real mode needs, not the model's. */
size_t chunk_buckets_model_index_bytes(const ChunkBucketsModel *m);

#endif
