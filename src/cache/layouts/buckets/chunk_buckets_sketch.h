/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_sketch.h: the Count-Min sketch (4 rows of 4-bit counters)
 * that the bucketized chunk layout replaces by: AustereCache keeps its
 * per-chunk counts in such a sketch instead of per-chunk memory. Counts
 * saturate at 15; every `period` increments all counters are halved, so
 * old popularity fades (our stand-in for the paper's recent/old halves of
 * its LBA buckets, which this layout does not have). */
#ifndef DESTOR_CACHE_CHUNK_BUCKETS_SKETCH_H
#define DESTOR_CACHE_CHUNK_BUCKETS_SKETCH_H

#include "util/fingerprint.h"

#include <stddef.h>
#include <stdint.h>

#define CHUNK_BUCKETS_SKETCH_ROWS 4u

typedef struct {
    uint8_t *nibbles; /* ROWS * width counters, two a byte */
    uint32_t width;   /* a power of two */
    uint64_t period;  /* increments between halvings */
    uint64_t since;   /* increments since the last halving */
} ChunkBucketsSketch;

/* width: at least `counters` (rounded up to a power of two). */
void chunk_buckets_sketch_init(ChunkBucketsSketch *s, uint64_t counters);
void chunk_buckets_sketch_clear(ChunkBucketsSketch *s);
void chunk_buckets_sketch_add(ChunkBucketsSketch *s, const Fingerprint *fp);
unsigned chunk_buckets_sketch_estimate(const ChunkBucketsSketch *s, const Fingerprint *fp);
size_t chunk_buckets_sketch_bytes(const ChunkBucketsSketch *s);

#endif
