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
    ChunkLog *log = open_log(dir, mode);
    uint8_t *buf = g_malloc(MAXLEN);
    GError *err = NULL;
    for (uint32_t i = 0; i < n; i++) {
        Fingerprint fp;
        uint32_t len = make_chunk(seed, i, buf, &fp);
        if (!chunk_log_put(log, &fp, buf, len, &err) || ((i + 1) % 25 == 0 && !chunk_log_sync(log, &err))) {
            fprintf(stderr, "chunk_log_driver: %s\n", err->message);
            return 1;
        }
        if (i % 3 != 0)
            chunk_log_drop(log, &fp);
    }
    g_free(buf);
    /* with compression the sweep must go through compressed puts */
    gboolean none_compressed = g_getenv("CHUNK_LOG_COMPRESSION") != NULL && n >= 10 &&
                               chunk_log_counters(log)->chunks_compressed == 0;
    /* with reinsert, a run that reclaimed segments must have gone through reinsertion writes */
    gboolean none_kept = strcmp(mode, "reinsert") == 0 && chunk_log_counters(log)->segments_reinserted > 2 &&
                         chunk_log_counters(log)->chunks_reinserted == 0;
    if (!chunk_log_close(log, &err)) {
        fprintf(stderr, "chunk_log_driver: %s\n", err->message);
        return 1;
    }
    if (none_compressed) {
        fprintf(stderr, "chunk_log_driver: no chunk was stored compressed\n");
        return 1;
    }
    if (none_kept) {
        fprintf(stderr, "chunk_log_driver: no chunk was reinserted\n");
        return 1;
    }
    return 0;
}

typedef struct {
    GPtrArray *fps;
} Listed;

static void list_one(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)length;
    g_ptr_array_add(((Listed *)ctx)->fps, g_memdup2(fp, sizeof *fp));
}

static int check(const char *dir, const char *mode, uint32_t n, char **seeds, int n_seeds)
{
    /* what any run may have put: fingerprint -> (seed, index) */
    GHashTable *expected = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, g_free, g_free);
    uint8_t *buf = g_malloc(SEG), *want = g_malloc(MAXLEN);
    for (int s = 0; s < n_seeds; s++)
        for (uint32_t i = 0; i < n; i++) {
            Fingerprint fp;
            make_chunk((uint32_t)atoi(seeds[s]), i, want, &fp);
            uint32_t *at = g_new(uint32_t, 2);
            at[0] = (uint32_t)atoi(seeds[s]);
            at[1] = i;
            g_hash_table_replace(expected, g_memdup2(&fp, sizeof fp), at);
        }
    ChunkLog *log = open_log(dir, mode);
    Listed l = {g_ptr_array_new_with_free_func(g_free)};
    chunk_log_foreach(log, list_one, &l);
    int rc = 0;
    uint32_t held = 0, damaged = 0;
    for (guint k = 0; k < l.fps->len; k++) {
        const Fingerprint *fp = g_ptr_array_index(l.fps, k);
        const uint32_t *at = g_hash_table_lookup(expected, fp);
        if (at == NULL) {
            fprintf(stderr, "chunk_log_driver: the log holds a chunk no run put\n");
            rc = 1;
            continue;
        }
        Fingerprint again;
        uint32_t want_len = make_chunk(at[0], at[1], want, &again), len = 0;
        switch (chunk_log_get(log, fp, buf, &len)) {
        case CHUNK_LOG_HIT:
            if (len != want_len || memcmp(buf, want, len) != 0) {
                fprintf(stderr, "chunk_log_driver: wrong bytes served for chunk %u of seed %u\n", at[1], at[0]);
                rc = 1;
            }
            held++;
            break;
        case CHUNK_LOG_DAMAGED:
            damaged++;
            break;
        case CHUNK_LOG_ABSENT:
            fprintf(stderr, "chunk_log_driver: a listed chunk is absent\n");
            rc = 1;
            break;
        }
    }
    printf("held %u damaged %u\n", held, damaged);
    GError *err = NULL;
    if (!chunk_log_close(log, &err)) {
        fprintf(stderr, "chunk_log_driver: %s\n", err->message);
        rc = 1;
    }
    g_ptr_array_free(l.fps, TRUE);
    g_hash_table_destroy(expected);
    g_free(buf);
    g_free(want);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "run") == 0)
        return run(argv[2], argv[3], (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]));
    if (argc >= 6 && strcmp(argv[1], "check") == 0)
        return check(argv[2], argv[3], (uint32_t)atoi(argv[4]), argv + 5, argc - 5);
    fprintf(stderr, "usage: chunk_log_driver run DIR evict|clean|reinsert SEED N | check DIR evict|clean|reinsert N "
                    "SEED...\n");
    return 2;
}
