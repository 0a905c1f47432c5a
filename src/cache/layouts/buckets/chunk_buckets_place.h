/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_place.h: where the bucketized layout puts a chunk and
 * what it evicts for it (AustereCache's bucket-local replacement), apart
 * from the bytes, so that the layout on the SSD (chunk_buckets.c) and its
 * simulation without data (chunk_buckets_model.c) make the same choices
 * from the same index and sketch. */
#ifndef DESTOR_CACHE_CHUNK_BUCKETS_PLACE_H
#define DESTOR_CACHE_CHUNK_BUCKETS_PLACE_H

#include "cache/layouts/buckets/chunk_buckets_index.h"
#include "cache/layouts/buckets/chunk_buckets_sketch.h"

/* The full fingerprint of the chunk whose head is sub-slot s. */
typedef void (*ChunkBucketsFpAt)(void *ctx, uint32_t s, Fingerprint *out);

/* The first sub-slot of the run of n to put a chunk in: a free run when
 * there is one, else the run whose chunks have the lowest total count
 * (1 + the sketch's estimate per chunk; the earliest such run). */
uint32_t chunk_buckets_choose_run(const ChunkBucketsIndex *x, const ChunkBucketsSketch *sk, uint32_t bucket,
                                  uint32_t n, ChunkBucketsFpAt fp_at, void *ctx);

/* Call fn with the head of each chunk overlapping sub-slots start..start+n-1
 * (the ones a put there evicts), in order. fn may unmark that chunk. */
void chunk_buckets_run_heads(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t start, uint32_t n,
                             void (*fn)(void *ctx, uint32_t head), void *ctx);

#endif
