/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_chunk_log.c: real-mode chunk hits through the chunk log
 * (cache/layouts/log/chunk_log.h), for scripts/bench-chunk-log.sh (not a test).
 *
 *   bench_chunk_log fill DIR MIB [SEGMENT]
 *       a log with O_DIRECT in DIR of MIB MiB (segments of SEGMENT bytes,
 *       default the product's 4 MiB) filled with distinct 64 KiB chunks
 *   bench_chunk_log read DIR MIB [SEGMENT] [BATCH]
 *       every chunk in it once, in a random order, each an O_DIRECT range
 *       read and a fingerprint check: with BATCH 1 (the default) through
 *       chunk_log_get, one at a time; else BATCH chunks at a time (a
 *       request of BATCH x 64 KiB) through chunk_log_get_many; prints
 *       "read BYTES bytes in SECONDS s" and the index's bytes per chunk */
#include "cache/layouts/log/chunk_log.h"
#include "util/error.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024u)

static ChunkLog *open_log(const char *dir, uint64_t mib, uint32_t segment)
{
    ChunkLogOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.segment_size = segment;
    o.capacity_bytes = mib << 20;
    o.o_direct = TRUE;
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x42, sizeof o.store_id);
    o.reclaim = CHUNK_LOG_EVICT;
    GError *err = NULL;
    ChunkLog *log = chunk_log_open(&o, &err);
    if (log == NULL) {
        fprintf(stderr, "bench_chunk_log: %s\n", err->message);
        exit(1);
    }
    return log;
}

static void collect(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)length;
    g_array_append_val((GArray *)ctx, *fp);
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "fill") != 0 && strcmp(argv[1], "read") != 0)) {
        fprintf(stderr, "usage: bench_chunk_log fill|read DIR MIB [SEGMENT]\n");
        return 2;
    }
    uint64_t mib = g_ascii_strtoull(argv[3], NULL, 10);
    uint32_t segment = argc > 4 ? (uint32_t)g_ascii_strtoull(argv[4], NULL, 10) : CHUNK_LOG_DEFAULT_SEGMENT;
    if (segment == 0)
        segment = CHUNK_LOG_DEFAULT_SEGMENT;
    guint batch = argc > 5 ? (guint)g_ascii_strtoull(argv[5], NULL, 10) : 1;
    batch = MAX(batch, 1);
    ChunkLog *log = open_log(argv[2], mib, segment);
    GError *err = NULL;
    uint8_t *buf = g_malloc(CHUNK);
    if (strcmp(argv[1], "fill") == 0) {
        GRand *r = g_rand_new_with_seed(1);
        for (uint32_t k = 0; k < CHUNK / 4; k++)
            ((uint32_t *)buf)[k] = g_rand_int(r);
        g_rand_free(r);
        /* fill to the capacity less one segment, so nothing is evicted */
        uint64_t n = ((mib << 20) - segment) / CHUNK;
        for (uint64_t i = 0; i < n; i++) {
            memcpy(buf, &i, sizeof i); /* distinct chunks */
            Fingerprint fp;
            fingerprint_compute(FP_SHA1, buf, CHUNK, &fp);
            if (!chunk_log_put(log, &fp, buf, CHUNK, &err)) {
                fprintf(stderr, "bench_chunk_log: %s\n", err->message);
                return 1;
            }
        }
        printf("filled %" G_GUINT64_FORMAT " chunks, %" G_GUINT64_FORMAT " evicted\n", chunk_log_chunks(log),
               chunk_log_counters(log)->chunks_dropped_by_log);
    } else {
        GArray *fps = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
        chunk_log_foreach(log, collect, fps);
        GRand *r = g_rand_new_with_seed(2);
        for (guint i = fps->len; i > 1; i--) {
            guint j = (guint)g_rand_int_range(r, 0, (gint32)i);
            Fingerprint t = g_array_index(fps, Fingerprint, i - 1);
            g_array_index(fps, Fingerprint, i - 1) = g_array_index(fps, Fingerprint, j);
            g_array_index(fps, Fingerprint, j) = t;
        }
        g_rand_free(r);
        gint64 t0 = g_get_monotonic_time();
        uint64_t bytes = 0;
        ChunkLogRead *reads = g_new0(ChunkLogRead, batch);
        uint8_t *bufs = g_malloc((size_t)batch * CHUNK);
        for (guint i = 0; i < fps->len; i += batch) {
            guint n = MIN(batch, fps->len - i);
            if (batch == 1) {
                reads[0].result = chunk_log_get(log, &g_array_index(fps, Fingerprint, i), buf, &reads[0].len);
            } else {
                for (guint k = 0; k < n; k++) {
                    reads[k].fp = &g_array_index(fps, Fingerprint, i + k);
                    reads[k].buf = bufs + (size_t)k * CHUNK;
                }
                chunk_log_get_many(log, reads, n);
            }
            for (guint k = 0; k < n; k++) {
                if (reads[k].result != CHUNK_LOG_HIT) {
                    fprintf(stderr, "bench_chunk_log: chunk %u missing or damaged\n", i + k);
                    return 1;
                }
                bytes += reads[k].len;
            }
        }
        g_free(reads);
        g_free(bufs);
        double s = (double)(g_get_monotonic_time() - t0) / 1e6;
        printf("read %" G_GUINT64_FORMAT " bytes in %.6f s\n", bytes, s);
        printf("index %.1f bytes per chunk\n", (double)chunk_log_index_bytes(log) / (double)MAX(fps->len, 1));
        g_array_free(fps, TRUE);
    }
    g_free(buf);
    if (!chunk_log_close(log, &err)) {
        fprintf(stderr, "bench_chunk_log: %s\n", err->message);
        return 1;
    }
    return 0;
}
