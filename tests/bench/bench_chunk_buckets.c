/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_chunk_buckets.c: lookups in the two chunk layouts' in-memory
 * indexes, for scripts/bench-chunk-buckets.sh (not a test). "In
 * simulation": no SSD, the index alone, which is all a miss costs in
 * either layout (a hit then reads the SSD in both).
 *
 *   bench_chunk_buckets log|buckets CHUNKS LOOKUPS
 *       an index of CHUNKS chunks (SHA-1 fingerprints of counters): the
 *       chunk log's (cache/layouts/log/chunk_log_index.h), or the bucket
 *       layout's (cache/layouts/buckets/chunk_buckets_index.h: default 128 sub-slots
 *       a bucket, buckets for CHUNKS chunks of 4 sub-slots, an 8 KiB chunk
 *       of 2 KiB sub-slots); then LOOKUPS lookups, half of chunks in it
 *       and half of others, in a seeded random order; prints
 *       "lookups N in SECONDS s found F" and "index BYTES bytes per chunk".
 *   bench_chunk_buckets memory log|buckets DIR MIB none|lz4|zstd
 *       a real layout of MIB MiB in DIR, through the layout seam
 *       (chunk_layout.h), given twice its capacity in distinct chunks of
 *       2..14 KiB (8 KiB on average, chunk-avg-size's default), each half
 *       random and half a repeated pattern (about 2:1 under lz4, the
 *       paper's mean compressibility); prints "memory BYTES bytes per
 *       cached chunk (CHUNKS held, INDEX index bytes)": the in-memory
 *       index (the buckets' sketch included) over the chunks it holds;
 *       and "written W device bytes per chunk byte put". */
#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/layouts/buckets/chunk_buckets_index.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/layouts/log/chunk_log_index.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_PER_CHUNK 4u

static void fp_of(uint64_t i, Fingerprint *fp)
{
    fingerprint_compute(FP_SHA1, &i, sizeof i, fp);
}

static int memory(const char *kind, const char *dir, uint64_t mib, const char *codec)
{
    ChunkLayoutOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.capacity_bytes = mib << 20;
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x42, sizeof o.store_id);
    o.reclaim = CHUNK_LOG_EVICT;
    ChunkLayoutKind k;
    if (!chunk_layout_parse(kind, &k) || !cache_codec_parse(codec, &o.compression)) {
        fprintf(stderr, "bench_chunk_buckets: bad layout or compression\n");
        return 2;
    }
    const ChunkLayoutOps *ops = chunk_layout_ops(k);
    GError *err = NULL;
    void *l = ops->open(&o, &err);
    if (l == NULL) {
        fprintf(stderr, "bench_chunk_buckets: %s\n", err->message);
        return 1;
    }
    uint8_t *buf = g_malloc(14336);
    GRand *r = g_rand_new_with_seed(11);
    uint64_t n = 2 * (mib << 20) / 8192;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t len = (uint32_t)g_rand_int_range(r, 2048, 14337);
        for (uint32_t b = 0; b < len; b++)
            buf[b] = b < len / 2 ? (uint8_t)g_rand_int(r) : (uint8_t)(b % 16);
        Fingerprint fp;
        fingerprint_compute(FP_SHA1, buf, len, &fp);
        if (!ops->put(l, &fp, buf, len, &err)) {
            fprintf(stderr, "bench_chunk_buckets: %s\n", err->message);
            return 1;
        }
    }
    uint64_t held = ops->chunks(l);
    size_t bytes = ops->index_bytes(l);
    ChunkLayoutCounters c;
    ops->counters(l, &c);
    printf("memory %.2f bytes per cached chunk (%" G_GUINT64_FORMAT " held, %zu index bytes)\n",
           (double)bytes / (double)MAX(held, 1), held, bytes);
    printf("written %.2f device bytes per chunk byte put\n",
           (double)c.device_bytes_written / (double)MAX(c.user_bytes_written, 1));
    g_rand_free(r);
    g_free(buf);
    return ops->close(l, &err) ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "memory") == 0)
        return memory(argv[2], argv[3], g_ascii_strtoull(argv[4], NULL, 10), argv[5]);
    if (argc != 4 || (strcmp(argv[1], "log") != 0 && strcmp(argv[1], "buckets") != 0)) {
        fprintf(stderr, "usage: bench_chunk_buckets log|buckets CHUNKS LOOKUPS | memory log|buckets DIR MIB CODEC\n");
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
            chunk_log_index_add(&li, &fp, (uint32_t)(i / 512), (uint32_t)(i % 512) * 8192, 8192, 8192, 0);
        }
        held = chunk_log_index_used(&li);
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
