/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_chunk_buckets.c: lookups in the two chunk layouts' in-memory
 * indexes, for scripts/bench-chunk-buckets.sh (not a test). "In
 * simulation": no SSD, the index alone, which is all a miss costs in
 * either layout (a hit then reads the SSD in both).
 *
 *   bench_chunk_buckets log|buckets CHUNKS LOOKUPS
 *       an index of CHUNKS chunks (SHA-1 fingerprints of counters): the
 *       chunk log's (cache/core/chunk_log_index.h), or the bucket
 *       layout's (cache/core/chunk_buckets_index.h: default 128 sub-slots
 *       a bucket, buckets for CHUNKS chunks of 4 sub-slots, an 8 KiB chunk
 *       of 2 KiB sub-slots); then LOOKUPS lookups, half of chunks in it
 *       and half of others, in a seeded random order; prints
 *       "lookups N in SECONDS s found F" and "index BYTES bytes per chunk". */
#include "cache/core/chunk_buckets.h"
#include "cache/core/chunk_buckets_index.h"
#include "cache/core/chunk_log_index.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_PER_CHUNK 4u

static void fp_of(uint64_t i, Fingerprint *fp)
{
    fingerprint_compute(FP_SHA1, &i, sizeof i, fp);
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "log") != 0 && strcmp(argv[1], "buckets") != 0)) {
        fprintf(stderr, "usage: bench_chunk_buckets log|buckets CHUNKS LOOKUPS\n");
        return 2;
    }
    gboolean log = strcmp(argv[1], "log") == 0;
    uint64_t chunks = g_ascii_strtoull(argv[2], NULL, 10), lookups = g_ascii_strtoull(argv[3], NULL, 10);
    /* the fingerprints looked up, made before the clock starts */
    Fingerprint *probe = g_new(Fingerprint, lookups);
    GRand *r = g_rand_new_with_seed(7);
    for (uint64_t k = 0; k < lookups; k++) {
        uint64_t i = (uint64_t)g_rand_double_range(r, 0, (double)chunks);
        fp_of(k % 2 ? i : chunks + i, &probe[k]);
    }
    g_rand_free(r);
    ChunkLogIndex li;
    ChunkBucketsIndex bi;
    uint64_t held = 0;
    size_t bytes;
    if (log) {
        chunk_log_index_init(&li);
        for (uint64_t i = 0; i < chunks; i++) {
            Fingerprint fp;
            fp_of(i, &fp);
            chunk_log_index_add(&li, &fp, (uint32_t)(i / 512), (uint32_t)(i % 512) * 8192, 8192);
        }
        held = li.used;
        bytes = chunk_log_index_bytes_of(&li);
    } else {
        uint32_t n_buckets = (uint32_t)((chunks * SLOTS_PER_CHUNK + CHUNK_BUCKETS_DEFAULT_SLOTS - 1) /
                                        CHUNK_BUCKETS_DEFAULT_SLOTS);
        chunk_buckets_index_init(&bi, n_buckets, CHUNK_BUCKETS_DEFAULT_SLOTS);
        for (uint64_t i = 0; i < chunks; i++) {
            Fingerprint fp;
            fp_of(i, &fp);
            uint32_t b = chunk_buckets_bucket_of(&bi, &fp);
            for (uint32_t s = 0; s + SLOTS_PER_CHUNK <= bi.slots; s += SLOTS_PER_CHUNK)
                if (!chunk_buckets_index_used(&bi, b, s)) { /* a full bucket: this chunk is not held */
                    chunk_buckets_index_mark(&bi, b, s, SLOTS_PER_CHUNK, chunk_buckets_prefix_of(&fp));
                    break;
                }
        }
        held = bi.chunks;
        bytes = chunk_buckets_index_bytes_of(&bi);
    }
    uint64_t found = 0;
    gint64 t0 = g_get_monotonic_time();
    if (log) {
        for (uint64_t k = 0; k < lookups; k++)
            found += chunk_log_index_find(&li, &probe[k]) != CHUNK_LOG_NO_ENTRY;
    } else {
        for (uint64_t k = 0; k < lookups; k++)
            found += chunk_buckets_index_maybe(&bi, &probe[k]);
    }
    gint64 t1 = g_get_monotonic_time();
    printf("lookups %" G_GUINT64_FORMAT " in %.6f s found %" G_GUINT64_FORMAT "\n", lookups,
           (double)(t1 - t0) / 1e6, found);
    printf("index %.2f bytes per chunk (%" G_GUINT64_FORMAT " held)\n", (double)bytes / (double)MAX(held, 1), held);
    if (log)
        chunk_log_index_clear(&li);
    else
        chunk_buckets_index_clear(&bi);
    g_free(probe);
    return 0;
}
