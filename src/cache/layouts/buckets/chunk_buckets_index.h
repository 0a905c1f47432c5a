/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_index.h: the bucketized layout's in-memory index
 * (chunk_buckets.h), apart so that the lookup benchmark measures it
 * alone: per sub-slot a 16-bit fingerprint prefix and two bits (used;
 * first sub-slot of its chunk), nothing else. A chunk is the run of used
 * sub-slots from its head to the next head or free sub-slot. */
#ifndef DESTOR_CACHE_CHUNK_BUCKETS_INDEX_H
#define DESTOR_CACHE_CHUNK_BUCKETS_INDEX_H

#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t n_buckets;
    uint32_t slots; /* sub-slots per bucket */
    uint16_t *prefix;
    uint8_t *used; /* bit per sub-slot */
    uint8_t *head; /* bit per sub-slot */
    uint64_t chunks, used_slots;
} ChunkBucketsIndex;

void chunk_buckets_index_init(ChunkBucketsIndex *x, uint32_t n_buckets, uint32_t slots);
void chunk_buckets_index_clear(ChunkBucketsIndex *x);

/* Fingerprints are cryptographic digests: bytes 0..1 are the prefix,
 * bytes 2..5 choose the bucket (every supported digest has >= 20 bytes). */
static inline uint16_t chunk_buckets_prefix_of(const Fingerprint *fp)
{
    return (uint16_t)(fp->bytes[0] | fp->bytes[1] << 8);
}
uint32_t chunk_buckets_bucket_of(const ChunkBucketsIndex *x, const Fingerprint *fp);

gboolean chunk_buckets_index_used(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s);
gboolean chunk_buckets_index_head(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s);
/* Sub-slots of the chunk whose head is s. */
uint32_t chunk_buckets_index_run(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s);
/* A chunk of prefix p in sub-slots s..s+n-1 (all free). */
void chunk_buckets_index_mark(ChunkBucketsIndex *x, uint32_t bucket, uint32_t s, uint32_t n, uint16_t p);
/* Forget the chunk whose head is s; returns its sub-slots. */
uint32_t chunk_buckets_index_unmark(ChunkBucketsIndex *x, uint32_t bucket, uint32_t s);
/* The first head at or after sub-slot `from` with prefix p, or -1. */
int chunk_buckets_index_find(const ChunkBucketsIndex *x, uint32_t bucket, uint16_t p, uint32_t from);
/* Does the bucket hold a head of prefix p? */
gboolean chunk_buckets_index_maybe(const ChunkBucketsIndex *x, const Fingerprint *fp);
size_t chunk_buckets_index_bytes_of(const ChunkBucketsIndex *x);
/* The whole index: in each bucket free sub-slots blank, every run of used
 * ones starting at a head, a chunk's sub-slots of one prefix; the counts
 * those of the bits. O(the sub-slots); each bucket changed is checked so
 * in a checking build (util/check.h). */
gboolean chunk_buckets_index_check(const ChunkBucketsIndex *x);

#endif
