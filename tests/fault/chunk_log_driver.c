/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_driver.c: drives the product's chunk log (cache/layouts/log/chunk_log.h)
 * for the kill sweep tests/e2e/kill_chunk_log.sh, which SIGKILLs `run` at
 * each of its system calls and then asks `check` whether what the log
 * serves is right.
 *
 *   chunk_log_driver run DIR evict|clean|reinsert SEED N
 *       open the log in DIR (6 segments of 64 KiB, SHA-1), put chunks
 *       0..N-1 of series SEED (1..20000 bytes of seeded pseudo-random
 *       data), dropping two of every three after the put as a policy would
 *       (so the cleaner has dead space to reclaim), syncing every 25 puts;
 *       close. With reinsert, a reclaimed segment's live chunks whose
 *       fingerprint starts with an even byte are kept (rewritten).
 *   chunk_log_driver check DIR evict|clean|reinsert N SEED...
 *       open the log in DIR and get every chunk it holds: each must be one
 *       of chunks 0..N-1 of the SEEDs, byte for byte (regenerated here,
 *       not taken from the log); a damaged chunk is a miss and allowed.
 *       Prints "held H damaged D"; exits 1 on any wrong byte or unknown
 *       chunk, 0 otherwise.
 *
 * CHUNK_LOG_O_DIRECT=1 opens the log with O_DIRECT; CHUNK_LOG_COMPRESSION=
 * lz4|zstd with that compression, the chunks then made compressible (a
 * quarter random, the rest runs of a few byte values). */
#include "cache/layouts/log/chunk_log.h"
#include "util/error.h"
#include "chunk_layout_check.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEG (64u * 1024u)
#define MAXLEN 20000u

static uint32_t make_chunk(uint32_t seed, uint32_t i, uint8_t *buf, Fingerprint *fp)
{
    GRand *r = g_rand_new_with_seed(seed * 7919u + i);
    uint32_t len = (uint32_t)g_rand_int_range(r, 1, MAXLEN + 1);
    for (uint32_t k = 0; k < len; k++)
        buf[k] = (uint8_t)g_rand_int(r);
    for (uint32_t k = len / 4; g_getenv("CHUNK_LOG_COMPRESSION") != NULL && k < len; k++)
        buf[k] = (uint8_t)(k / 64 % 4);
    g_rand_free(r);
    fingerprint_compute(FP_SHA1, buf, len, fp);
    return len;
}

/* reinsert's policy here: keep about half the chunks, by fingerprint */
static gboolean keep_even(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)ctx;
    (void)length;
    return fp->bytes[0] % 2 == 0;
}

static ChunkLog *open_log(const char *dir, const char *mode)
{
    ChunkLogOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.segment_size = SEG;
    o.capacity_bytes = 6ull * SEG;
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x33, sizeof o.store_id);
    if (!chunk_log_reclaim_parse(mode, &o.reclaim)) {
        fprintf(stderr, "chunk_log_driver: %s is not evict, clean or reinsert\n", mode);
        exit(2);
    }
    o.keep = keep_even;
    o.o_direct = g_getenv("CHUNK_LOG_O_DIRECT") != NULL;
    const char *codec = g_getenv("CHUNK_LOG_COMPRESSION");
    if (codec != NULL && !cache_codec_parse(codec, &o.compression)) {
        fprintf(stderr, "chunk_log_driver: CHUNK_LOG_COMPRESSION: %s is not none, lz4 or zstd\n", codec);
        exit(2);
    }
    GError *err = NULL;
    ChunkLog *log = chunk_log_open(&o, &err);
    if (log == NULL) {
        fprintf(stderr, "chunk_log_driver: %s\n", err->message);
        exit(1);
    }
    return log;
}

static int run(const char *dir, const char *mode, uint32_t seed, uint32_t n)
{
    ChunkLayoutCounters end;
    if (driver_run("chunk_log_driver", &chunk_layout_log_ops, open_log(dir, mode), make_chunk, MAXLEN, seed, n, 25,
                   &end) != 0)
        return 1;
    /* with compression the sweep must go through compressed puts */
    if (g_getenv("CHUNK_LOG_COMPRESSION") != NULL && n >= 10 && end.chunks_compressed == 0) {
        fprintf(stderr, "chunk_log_driver: no chunk was stored compressed\n");
        return 1;
    }
    /* with reinsert, a run that reclaimed segments must have gone through reinsertion writes */
    if (strcmp(mode, "reinsert") == 0 && end.segments.segments_reinserted > 2 && end.segments.chunks_reinserted == 0) {
        fprintf(stderr, "chunk_log_driver: no chunk was reinserted\n");
        return 1;
    }
    return 0;
}

static int check(const char *dir, const char *mode, uint32_t n, char **seeds, int n_seeds)
{
    return driver_check("chunk_log_driver", &chunk_layout_log_ops, open_log(dir, mode), make_chunk, MAXLEN, SEG, n, seeds, n_seeds);
}

int main(int argc, char **argv)
{
    return driver_main(argc, argv,
                       "chunk_log_driver run DIR evict|clean|reinsert SEED N | check DIR evict|clean|reinsert N "
                       "SEED...",
                       run, check);
}
