/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_sketch.c: the bucket layout's Count-Min sketch
 * (chunk_buckets_sketch.h). Fingerprints are cryptographic digests: two
 * 32-bit words of them are the two hashes of double hashing (bytes 10..17,
 * apart from the bytes that choose the bucket and the prefix; every
 * supported digest has at least 20). */
#include "cache/layouts/buckets/chunk_buckets_sketch.h"
#include "util/le.h"

#include <glib.h>
#include <string.h>

void chunk_buckets_sketch_init(ChunkBucketsSketch *s, uint64_t counters)
{
    uint32_t w = 64;
    while (w < counters && w < (1u << 30))
        w <<= 1;
    s->width = w;
    s->nibbles = g_malloc0((size_t)CHUNK_BUCKETS_SKETCH_ROWS * w / 2);
    s->period = 8ull * w;
    s->since = 0;
}

void chunk_buckets_sketch_clear(ChunkBucketsSketch *s)
{
    g_free(s->nibbles);
    memset(s, 0, sizeof *s);
}

static uint32_t cell(const ChunkBucketsSketch *s, const Fingerprint *fp, uint32_t row)
{
    uint32_t h1 = le32_get(fp->bytes + 10), h2 = le32_get(fp->bytes + 14) | 1u;
    return row * s->width + ((h1 + row * h2) & (s->width - 1));
}

static unsigned get_nib(const uint8_t *n, uint32_t i)
{
    return (n[i / 2] >> ((i & 1) * 4)) & 0xf;
}

static void set_nib(uint8_t *n, uint32_t i, unsigned v)
{
    unsigned sh = (i & 1) * 4;
    n[i / 2] = (uint8_t)((n[i / 2] & ~(0xf << sh)) | ((v & 0xf) << sh));
}

void chunk_buckets_sketch_add(ChunkBucketsSketch *s, const Fingerprint *fp)
{
    for (uint32_t r = 0; r < CHUNK_BUCKETS_SKETCH_ROWS; r++) {
        uint32_t i = cell(s, fp, r);
        unsigned v = get_nib(s->nibbles, i);
        if (v < 15)
            set_nib(s->nibbles, i, v + 1);
    }
    if (++s->since >= s->period) {
        size_t n = (size_t)CHUNK_BUCKETS_SKETCH_ROWS * s->width / 2;
        for (size_t i = 0; i < n; i++) /* halve both counters of the byte */
            s->nibbles[i] = (uint8_t)((s->nibbles[i] >> 1) & 0x77);
        s->since = 0;
    }
}

unsigned chunk_buckets_sketch_estimate(const ChunkBucketsSketch *s, const Fingerprint *fp)
{
    unsigned m = 15;
    for (uint32_t r = 0; r < CHUNK_BUCKETS_SKETCH_ROWS; r++) {
        unsigned v = get_nib(s->nibbles, cell(s, fp, r));
        if (v < m)
            m = v;
    }
    return m;
}

size_t chunk_buckets_sketch_bytes(const ChunkBucketsSketch *s)
{
    return (size_t)CHUNK_BUCKETS_SKETCH_ROWS * s->width / 2;
}
