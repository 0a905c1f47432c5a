/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_series.h: the chunk log tests' seeded chunk series and the
 * open, close and put helpers they share. The includer defines MAXLEN (the
 * longest chunk) first; `compressible` makes three quarters of each chunk
 * runs of a few byte values (so lz4 and zstd shrink most of them). */
#ifndef DESTOR_CHUNK_LOG_SERIES_H
#define DESTOR_CHUNK_LOG_SERIES_H

#include "cache/layouts/log/chunk_log.h"
#include "unit.h"

#ifndef MAXLEN
#error "define MAXLEN before including chunk_log_series.h"
#endif

static gboolean compressible;

/* Chunk i of a seeded series: 1..MAXLEN bytes of pseudo-random data. */
static uint32_t make_chunk(uint32_t seed, uint32_t i, uint8_t *buf, Fingerprint *fp)
{
    GRand *r = g_rand_new_with_seed(seed * 7919u + i);
    uint32_t len = (uint32_t)g_rand_int_range(r, 1, MAXLEN + 1);
    for (uint32_t k = 0; k < len; k++)
        buf[k] = (uint8_t)g_rand_int(r);
    for (uint32_t k = len / 4; compressible && k < len; k++)
        buf[k] = (uint8_t)(k / 64 % 4);
    g_rand_free(r);
    fingerprint_compute(FP_SHA1, buf, len, fp);
    return len;
}

static ChunkLog *open_ok(const ChunkLogOptions *o)
{
    GError *err = NULL;
    ChunkLog *log = chunk_log_open(o, &err);
    if (err)
        fprintf(stderr, "open: %s\n", err->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    return log;
}

static void close_ok(ChunkLog *log)
{
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_close(log, &err));
    g_clear_error(&err);
}

/* Put chunks [from, to) of series `seed`. */
static void put_range(ChunkLog *log, uint32_t seed, uint32_t from, uint32_t to)
{
    uint8_t *buf = g_malloc(MAXLEN);
    for (uint32_t i = from; i < to; i++) {
        Fingerprint fp;
        uint32_t len = make_chunk(seed, i, buf, &fp);
        GError *err = NULL;
        CU_ASSERT_TRUE(chunk_log_put(log, &fp, buf, len, &err));
        g_clear_error(&err);
    }
    g_free(buf);
}

#endif
