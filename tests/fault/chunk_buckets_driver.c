/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_driver.c: drives the product's bucketized chunk layout
 * (cache/layouts/buckets/chunk_buckets.h) for the kill sweep
 * tests/e2e/kill_chunk_buckets.sh, which SIGKILLs `run` at each of its
 * system calls and then asks `check` whether what the layout serves is
 * right.
 *
 *   chunk_buckets_driver run DIR none|lz4|zstd SEED N
 *       open the layout in DIR (4 buckets of 64 sub-slots of 512 bytes,
 *       SHA-1, the given compression), put chunks 0..N-1 of series SEED
 *       (1..12000 bytes, half of them compressible), each put a
 *       compressed write of its bucket, evicting inside full buckets;
 *       drop two of every three after the put as a policy would, and sync
 *       every 10 puts (the buckets refreshed without the dropped ones);
 *       close. With CHUNK_BUCKETS_O_DIRECT set, opened with O_DIRECT.
 *   chunk_buckets_driver check DIR none|lz4|zstd N SEED...
 *       open the layout and get every chunk it holds: each must be one of
 *       chunks 0..N-1 of the SEEDs, byte for byte (regenerated here, not
 *       taken from the layout); a damaged chunk is a miss and allowed.
 *       Prints "held H damaged D"; exits 1 on any wrong byte or unknown
 *       chunk, 0 otherwise. */
#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/layouts/buckets/chunk_buckets_format.h"
#include "util/error.h"
#include "chunk_layout_check.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUB 512u
#define SLOTS 64u
#define MAXLEN 12000u

static uint32_t make_chunk(uint32_t seed, uint32_t i, uint8_t *buf, Fingerprint *fp)
{
    GRand *r = g_rand_new_with_seed(seed * 7919u + i);
    uint32_t len = (uint32_t)g_rand_int_range(r, 1, MAXLEN + 1);
    gboolean squeezable = i % 2 == 0;
    for (uint32_t k = 0; k < len; k++)
        buf[k] = squeezable && k >= 64 ? (uint8_t)(k % 13 + seed) : (uint8_t)g_rand_int(r);
    g_rand_free(r);
    fingerprint_compute(FP_SHA1, buf, len, fp);
    return len;
}

static ChunkBuckets *open_layout(const char *dir, const char *codec_name)
{
    ChunkBucketsOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.subslot_size = SUB;
    o.slots = SLOTS;
    o.capacity_bytes = 4 * chunk_buckets_bucket_size(SLOTS, SUB);
    o.fp_alg = FP_SHA1;
    o.o_direct = g_getenv("CHUNK_BUCKETS_O_DIRECT") != NULL;
    memset(o.store_id, 0x33, sizeof o.store_id);
    if (!cache_codec_parse(codec_name, &o.compression)) {
        fprintf(stderr, "chunk_buckets_driver: unknown compression %s\n", codec_name);
        exit(2);
    }
    GError *err = NULL;
    ChunkBuckets *b = chunk_buckets_open(&o, &err);
    if (b == NULL) {
        fprintf(stderr, "chunk_buckets_driver: %s\n", err->message);
        exit(1);
    }
    return b;
}

static int run(const char *dir, const char *codec, uint32_t seed, uint32_t n)
{
    ChunkLayoutCounters end;
    return driver_run("chunk_buckets_driver", &chunk_layout_buckets_ops, open_layout(dir, codec), make_chunk, MAXLEN,
                      seed, n, 10, &end);
}

static int check(const char *dir, const char *codec, uint32_t n, char **seeds, int n_seeds)
{
    ChunkBuckets *b = open_layout(dir, codec);
    return driver_check("chunk_buckets_driver", &chunk_layout_buckets_ops, b, make_chunk, MAXLEN,
                        chunk_buckets_max_chunk(b), n, seeds, n_seeds);
}

int main(int argc, char **argv)
{
    return driver_main(argc, argv,
                       "chunk_buckets_driver run DIR none|lz4|zstd SEED N | check DIR none|lz4|zstd N SEED...", run,
                       check);
}
