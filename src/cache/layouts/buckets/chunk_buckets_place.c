/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_place.c: the bucket-local replacement shared by the
 * bucketized layout and its simulation (chunk_buckets_place.h). */
#include "cache/layouts/buckets/chunk_buckets_place.h"

uint32_t chunk_buckets_choose_run(const ChunkBucketsIndex *x, const ChunkBucketsSketch *sk, uint32_t bucket,
                                  uint32_t n, ChunkBucketsFpAt fp_at, void *ctx)
{
    g_assert(n >= 1 && n <= x->slots);
    unsigned *cost = g_new0(unsigned, x->slots); /* per sub-slot: its chunk's count, on its head only */
    for (uint32_t s = 0; s < x->slots; s++) {
        if (!chunk_buckets_index_head(x, bucket, s))
            continue;
        Fingerprint fp;
        fp_at(ctx, s, &fp);
        cost[s] = 1 + chunk_buckets_sketch_estimate(sk, &fp);
    }
    uint32_t best = 0;
    uint64_t best_cost = UINT64_MAX;
    for (uint32_t start = 0; start + n <= x->slots; start++) {
        uint64_t c = 0;
        /* a chunk that begins before the run and reaches into it */
        if (chunk_buckets_index_used(x, bucket, start) && !chunk_buckets_index_head(x, bucket, start)) {
            uint32_t h = start;
            while (!chunk_buckets_index_head(x, bucket, h))
                h--;
            c += cost[h];
        }
        for (uint32_t k = start; k < start + n; k++)
            c += cost[k];
        if (c < best_cost) {
            best_cost = c;
            best = start;
            if (c == 0)
                break;
        }
    }
    g_free(cost);
    g_assert(best_cost != UINT64_MAX);
    return best;
}

void chunk_buckets_run_heads(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t start, uint32_t n,
                             void (*fn)(void *ctx, uint32_t head), void *ctx)
{
    uint32_t s = start;
    while (s > 0 && chunk_buckets_index_used(x, bucket, s) && !chunk_buckets_index_head(x, bucket, s))
        s--;
    for (; s < start + n; s++)
        if (chunk_buckets_index_head(x, bucket, s))
            fn(ctx, s);
}
