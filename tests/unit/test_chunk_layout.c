/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_layout.c: the layout seam (cache/layouts/chunk_layout.h): both
 * layouts through their ops tables give the same answers to the same
 * operations (right bytes, drops, the `dropped` callback, reopen, get_many
 * with a damaged chunk among its reads), and a
 * directory written with one layout opened with the other is rebuilt
 * empty, never serving the other's bytes; each layout and its model
 * (simulation, chunk_layout.h's model_*) make the same decisions over
 * random operation sequences. */
#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/layouts/log/chunk_log.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <string.h>

#define MAXLEN 30000u

/* Chunk i: two random bytes in three, or when `squeezable`, every other
 * chunk of random bytes from a 4-letter alphabet (which lz4 and zstd keep
 * compressed) and the rest as before. */
static uint32_t make_chunk_of(uint32_t i, uint8_t *buf, Fingerprint *fp, gboolean squeezable)
{
    GRand *r = g_rand_new_with_seed(4242u + i);
    uint32_t len = (uint32_t)g_rand_int_range(r, 1, MAXLEN + 1);
    gboolean small = squeezable && i % 2 == 0;
    for (uint32_t k = 0; k < len; k++)
        buf[k] = small ? (uint8_t)(g_rand_int(r) % 4) : k % 3 ? (uint8_t)g_rand_int(r) : (uint8_t)k;
    g_rand_free(r);
    fingerprint_compute(FP_SHA1, buf, len, fp);
    return len;
}

static uint32_t make_chunk(uint32_t i, uint8_t *buf, Fingerprint *fp)
{
    return make_chunk_of(i, buf, fp, FALSE);
}

static uint32_t told;
static void on_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)ctx;
    (void)fp;
    CU_ASSERT(length > 0);
    told++;
}

static ChunkLayoutOptions options(const char *dir)
{
    ChunkLayoutOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.capacity_bytes = 8u << 20;
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x21, sizeof o.store_id);
    o.segment_size = 256u * 1024u;
    o.reclaim = CHUNK_LOG_EVICT;
    o.compression = CACHE_CODEC_LZ4;
    o.dropped = on_dropped;
    return o;
}

static void *open_ok(const ChunkLayoutOps *ops, const ChunkLayoutOptions *o)
{
    GError *err = NULL;
    void *l = ops->open(o, &err);
    if (err)
        fprintf(stderr, "open: %s\n", err->message);
    g_clear_error(&err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    return l;
}

static void test_names(void)
{
    ChunkLayoutKind k;
    CU_ASSERT_TRUE(chunk_layout_parse("log", &k) && k == CHUNK_LAYOUT_LOG);
    CU_ASSERT_TRUE(chunk_layout_parse("buckets", &k) && k == CHUNK_LAYOUT_BUCKETS);
    CU_ASSERT_FALSE(chunk_layout_parse("Buckets", &k));
    CU_ASSERT_FALSE(chunk_layout_parse(NULL, &k));
    CU_ASSERT_STRING_EQUAL(chunk_layout_name(CHUNK_LAYOUT_BUCKETS), "buckets");
    CU_ASSERT_EQUAL(chunk_layout_ops(CHUNK_LAYOUT_BUCKETS)->kind, CHUNK_LAYOUT_BUCKETS);
    CU_ASSERT_EQUAL(chunk_layout_ops(CHUNK_LAYOUT_LOG)->kind, CHUNK_LAYOUT_LOG);
    for (int kind = 0; kind < CHUNK_LAYOUT_COUNT; kind++)
        CU_ASSERT_TRUE(chunk_layout_parse(chunk_layout_name((ChunkLayoutKind)kind), &k) && k == (ChunkLayoutKind)kind);
}

/* The same operations through every registered layout. */
static void test_both_layouts(void)
{
    uint8_t *buf = g_malloc(MAXLEN), *got = g_malloc(256u * 1024u);
    for (int kind = 0; kind < CHUNK_LAYOUT_COUNT; kind++) {
        const ChunkLayoutOps *ops = chunk_layout_ops((ChunkLayoutKind)kind);
        char *dir = g_build_filename(tmpdir, chunk_layout_name((ChunkLayoutKind)kind), NULL);
        ChunkLayoutOptions o = options(dir);
        void *l = open_ok(ops, &o);
        CU_ASSERT(ops->max_chunk(&o) >= MAXLEN);
        told = 0;
        enum { N = 60 };
        for (uint32_t i = 0; i < N; i++) {
            Fingerprint fp;
            uint32_t len = make_chunk(i, buf, &fp);
            GError *err = NULL;
            CU_ASSERT_TRUE(ops->put(l, &fp, buf, len, &err));
            g_clear_error(&err);
            if (i % 4 == 3)
                CU_ASSERT_TRUE(ops->drop(l, &fp));
        }
        for (int round = 0; round < 2; round++) {
            uint64_t hits = 0;
            for (uint32_t i = 0; i < N; i++) {
                Fingerprint fp;
                uint32_t want = make_chunk(i, buf, &fp), len = 0, clen = 0;
                gboolean in = ops->contains(l, &fp, &clen);
                ChunkLayoutGet g = ops->get(l, &fp, got, &len);
                CU_ASSERT_EQUAL(g, in ? CHUNK_LAYOUT_HIT : CHUNK_LAYOUT_ABSENT);
                if (i % 4 == 3)
                    CU_ASSERT_EQUAL(g, CHUNK_LAYOUT_ABSENT);
                if (g == CHUNK_LAYOUT_HIT) {
                    CU_ASSERT(len == want && clen == want && memcmp(got, buf, len) == 0);
                    hits++;
                }
            }
            CU_ASSERT_EQUAL(hits, ops->chunks(l));
            CU_ASSERT_EQUAL(hits + told, N - N / 4);
            ChunkLayoutCounters c;
            ops->counters(l, &c);
            CU_ASSERT(c.device_bytes_written > 0 || round == 1);
            CU_ASSERT_EQUAL(c.damaged_reads, 0);
            CU_ASSERT(ops->index_bytes(l) > 0);
            GError *err = NULL;
            CU_ASSERT_TRUE(ops->sync(l, &err));
            CU_ASSERT_TRUE(ops->close(l, &err));
            g_clear_error(&err);
            l = open_ok(ops, &o);
        }
        GError *err = NULL;
        CU_ASSERT_TRUE(ops->close(l, &err));
        g_free(dir);
    }
    g_free(buf);
    g_free(got);
}

/* get_many answers as get does, chunk by chunk (held, dropped, never put,
 * the same chunk twice), on both layouts; with the log's first chunk on
 * the SSD damaged, that one is DAMAGED (dropped, counted) and every other
 * one of the batch a hit with its bytes. */
static void test_get_many(void)
{
    enum { N = 40, ASK = N + 4 };
    uint8_t *buf = g_malloc(MAXLEN);
    for (int kind = CHUNK_LAYOUT_LOG; kind <= CHUNK_LAYOUT_BUCKETS; kind++) {
        const ChunkLayoutOps *ops = chunk_layout_ops((ChunkLayoutKind)kind);
        char *dir = g_build_filename(tmpdir, kind == CHUNK_LAYOUT_LOG ? "many-log" : "many-buckets", NULL);
        ChunkLayoutOptions o = options(dir);
        void *l = open_ok(ops, &o);
        told = 0;
        Fingerprint fps[ASK];
        uint32_t lens[ASK];
        for (uint32_t i = 0; i < N + 2; i++) { /* the last two never put */
            lens[i] = make_chunk(i, buf, &fps[i]);
            GError *err = NULL;
            if (i < N)
                CU_ASSERT_TRUE(ops->put(l, &fps[i], buf, lens[i], &err));
            g_clear_error(&err);
            if (i % 5 == 2)
                CU_ASSERT_TRUE(ops->drop(l, &fps[i]));
        }
        fps[N + 2] = fps[0]; /* asked twice */
        lens[N + 2] = lens[0];
        fps[N + 3] = fps[7];
        lens[N + 3] = lens[7];
        GError *err = NULL;
        CU_ASSERT_TRUE(ops->close(l, &err));
        g_clear_error(&err);
        gboolean damage = kind == CHUNK_LAYOUT_LOG;
        if (damage) { /* a byte of the first chunk of segment 0 (its data follows the header) */
            char *path = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
            FILE *f = fopen(path, "r+b");
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            CU_ASSERT_EQUAL(fseek(f, 64 + 3, SEEK_SET), 0);
            int b = fgetc(f);
            CU_ASSERT_EQUAL(fseek(f, 64 + 3, SEEK_SET), 0);
            fputc(b ^ 0x5A, f);
            fclose(f);
            g_free(path);
        }
        l = open_ok(ops, &o);
        ChunkLayoutRead reads[ASK];
        uint8_t *bufs = g_malloc((size_t)ASK * MAXLEN);
        gboolean in[ASK];
        for (uint32_t i = 0; i < ASK; i++) {
            uint32_t clen = 0;
            in[i] = ops->contains(l, &fps[i], &clen);
            reads[i] = (ChunkLayoutRead){ .fp = &fps[i], .buf = bufs + (size_t)i * MAXLEN };
        }
        ops->get_many_wait(l, ops->get_many(l, reads, ASK));
        uint32_t damaged = 0, hits = 0;
        for (uint32_t i = 0; i < ASK; i++) {
            if (!in[i] || i == N || i == N + 1 || (i < N && i % 5 == 2)) {
                CU_ASSERT_EQUAL(reads[i].result, CHUNK_LAYOUT_ABSENT);
                CU_ASSERT_FALSE(in[i]);
                continue;
            }
            if (reads[i].result == CHUNK_LAYOUT_DAMAGED) {
                damaged++;
                CU_ASSERT_FALSE(ops->contains(l, &fps[i], NULL)); /* dropped */
                continue;
            }
            CU_ASSERT_EQUAL_FATAL(reads[i].result, CHUNK_LAYOUT_HIT);
            Fingerprint want;
            make_chunk(i < N ? i : (i == N + 2 ? 0 : 7), buf, &want);
            CU_ASSERT(reads[i].len == lens[i] && memcmp(reads[i].buf, buf, lens[i]) == 0);
            hits++;
        }
        ChunkLayoutCounters c;
        ops->counters(l, &c);
        /* the damaged chunk: once, or twice when it is the one asked twice */
        CU_ASSERT(damage ? damaged >= 1 && damaged <= 2 : damaged == 0);
        CU_ASSERT_EQUAL(c.damaged_reads, damaged);
        CU_ASSERT(hits + damaged >= N - N / 5 - told);
        CU_ASSERT_TRUE(ops->close(l, &err));
        g_clear_error(&err);
        g_free(bufs);
        g_free(dir);
    }
    g_free(buf);
}

static void count_one(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)fp;
    (void)length;
    (*(uint32_t *)ctx)++;
}

/* Written with one layout, opened with the other: empty, the other's
 * files gone; and back. */
static void test_switch_layouts(void)
{
    char *dir = g_build_filename(tmpdir, "switch", NULL);
    ChunkLayoutOptions o = options(dir);
    uint8_t *buf = g_malloc(MAXLEN);
    for (int round = 0; round < 4; round++) {
        const ChunkLayoutOps *ops = chunk_layout_ops(round % 2 ? CHUNK_LAYOUT_BUCKETS : CHUNK_LAYOUT_LOG);
        void *l = open_ok(ops, &o);
        CU_ASSERT_EQUAL(ops->chunks(l), 0);
        uint32_t listed = 0;
        ops->foreach(l, count_one, &listed);
        CU_ASSERT_EQUAL(listed, 0);
        for (uint32_t i = 0; i < 10; i++) {
            Fingerprint fp;
            uint32_t len = make_chunk(i, buf, &fp);
            GError *err = NULL;
            CU_ASSERT_TRUE(ops->put(l, &fp, buf, len, &err));
            g_clear_error(&err);
        }
        GError *err = NULL;
        CU_ASSERT_TRUE(ops->close(l, &err));
        char *log = g_build_filename(dir, CHUNK_LOG_FILE, NULL), *bk = g_build_filename(dir, CHUNK_BUCKETS_FILE, NULL);
        CU_ASSERT_EQUAL(g_file_test(bk, G_FILE_TEST_EXISTS), round % 2 == 1);
        CU_ASSERT_EQUAL(g_file_test(log, G_FILE_TEST_EXISTS), round % 2 == 0);
        g_free(log);
        g_free(bk);
    }
    g_free(buf);
    g_free(dir);
}

/* ---- each layout against its model (simulation) ---- */

typedef struct {
    GString *order;  /* the fingerprints `dropped` named, in order */
    GHashTable *held; /* first 8 bytes of each chunk held */
} Side;

static uint64_t key_of(const Fingerprint *fp)
{
    uint64_t k;
    memcpy(&k, fp->bytes, sizeof k);
    return k;
}

static void side_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    Side *sd = ctx;
    g_string_append_printf(sd->order, "%016" G_GINT64_MODIFIER "x:%u ", key_of(fp), length);
    CU_ASSERT_TRUE(g_hash_table_remove(sd->held, GSIZE_TO_POINTER(key_of(fp))));
}

/* reinsert: a policy that keeps a third of the chunks, by their
 * fingerprint; each answer recorded in the side's order */
static gboolean side_keep(void *ctx, const Fingerprint *fp, uint32_t length)
{
    Side *sd = ctx;
    gboolean keep = key_of(fp) % 3 == 0;
    g_string_append_printf(sd->order, "%c%016" G_GINT64_MODIFIER "x:%u ", keep ? 'k' : '-', key_of(fp), length);
    CU_ASSERT_TRUE(g_hash_table_contains(sd->held, GSIZE_TO_POINTER(key_of(fp))));
    return keep;
}

/* Random puts, gets and drops on a layout on disk and on its model: the
 * same chunks dropped by the layout itself, in the same order, the same
 * chunks held, and (the log) the same bytes written to the SSD, segment
 * for segment. Small capacities, so reclamation runs often. With
 * compression the model is given each chunk's stored length by the
 * layout's own rule (as simulation does, chunk_cache_stored.c). */
static void test_models(void)
{
    uint8_t *buf = g_malloc(MAXLEN), *got = g_malloc(256u * 1024u), *out = g_malloc(MAXLEN);
    Fingerprint *fps = g_new(Fingerprint, 150);
    uint32_t *lens = g_new(uint32_t, 150), *stored = g_new(uint32_t, 150);
    /* 0-3: the log (evict, clean; two sizes), 4: buckets; 5-7: the log with
     * lz4 (evict, clean) and zstd (clean), 8: buckets with lz4; 9, 10: the
     * log with reinsert, as it is and with lz4 */
    for (int variant = 0; variant < 11; variant++) {
        ChunkLayoutKind kind = variant == 4 || variant == 8 ? CHUNK_LAYOUT_BUCKETS : CHUNK_LAYOUT_LOG;
        const ChunkLayoutOps *ops = chunk_layout_ops(kind);
        char *dir = g_strdup_printf("%s/model%d", tmpdir, variant);
        ChunkLayoutOptions o = options(dir);
        o.compression = variant < 5 || variant == 9 ? CACHE_CODEC_NONE
                        : variant == 7            ? CACHE_CODEC_ZSTD
                                                  : CACHE_CODEC_LZ4;
        o.compression_level = 3;
        o.reclaim = variant % 2 ? CHUNK_LOG_CLEAN : CHUNK_LOG_EVICT;
        if (variant == 7)
            o.reclaim = CHUNK_LOG_CLEAN;
        if (variant >= 9)
            o.reclaim = CHUNK_LOG_REINSERT;
        o.segment_size = variant < 2 || variant >= 5 ? 64u * 1024u : 128u * 1024u;
        o.capacity_bytes = variant < 2 || (variant >= 5 && variant != 8) ? 512u * 1024u
                                                                       : (variant < 4 ? 2u << 20 : 1u << 20);
        CacheCodec *codec = cache_codec_new(o.compression, o.compression_level);
        double cpu = 0.0;
        uint32_t n_compressed = 0;
        for (uint32_t i = 0; i < 150; i++) {
            lens[i] = make_chunk_of(i, buf, &fps[i], o.compression != CACHE_CODEC_NONE);
            stored[i] = kind == CHUNK_LAYOUT_LOG
                            ? chunk_log_compress(codec, buf, lens[i], out, &cpu)
                            : chunk_buckets_compress(codec, CHUNK_BUCKETS_DEFAULT_SUBSLOT, buf, lens[i], out, &cpu);
            n_compressed += stored[i] < lens[i];
        }
        cache_codec_free(codec);
        if (o.compression != CACHE_CODEC_NONE)
            CU_ASSERT(n_compressed > 30); /* the compressed variants do place compressed chunks */
        Side real = { g_string_new(NULL), g_hash_table_new(g_direct_hash, g_direct_equal) };
        Side sim = { g_string_new(NULL), g_hash_table_new(g_direct_hash, g_direct_equal) };
        o.dropped = side_dropped;
        o.dropped_ctx = &real;
        o.keep = side_keep;
        o.keep_ctx = &real;
        void *l = open_ok(ops, &o);
        o.dropped_ctx = &sim;
        o.keep_ctx = &sim;
        GError *err = NULL;
        void *m = ops->model_open(&o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        GRand *rng = g_rand_new_with_seed(77u + (guint32)variant);
        for (int step = 0; step < 3000; step++) {
            uint32_t i = (uint32_t)g_rand_int_range(rng, 0, 150);
            gpointer k = GSIZE_TO_POINTER(key_of(&fps[i]));
            gboolean held = g_hash_table_contains(real.held, k);
            CU_ASSERT_EQUAL(held, g_hash_table_contains(sim.held, k));
            CU_ASSERT_EQUAL(held, ops->contains(l, &fps[i], NULL));
            double what = g_rand_double(rng);
            if (!held && what < 0.6) {
                make_chunk_of(i, buf, &fps[i], o.compression != CACHE_CODEC_NONE);
                CU_ASSERT_TRUE(ops->put(l, &fps[i], buf, lens[i], &err));
                g_hash_table_add(real.held, k);
                ops->model_put(m, &fps[i], lens[i], stored[i]);
                g_hash_table_add(sim.held, k);
            } else if (held && what < 0.3) {
                CU_ASSERT_TRUE(ops->drop(l, &fps[i]));
                CU_ASSERT_TRUE(ops->model_drop(m, &fps[i]));
                g_hash_table_remove(real.held, k);
                g_hash_table_remove(sim.held, k);
            } else if (held) {
                uint32_t len = 0;
                CU_ASSERT_EQUAL(ops->get(l, &fps[i], got, &len), CHUNK_LAYOUT_HIT);
                CU_ASSERT_EQUAL(len, lens[i]);
                ops->model_hit(m, &fps[i]);
            } else {
                CU_ASSERT_FALSE(ops->model_drop(m, &fps[i]));
            }
        }
        g_rand_free(rng);
        g_clear_error(&err);
        CU_ASSERT_STRING_EQUAL(real.order->str, sim.order->str);
        CU_ASSERT(real.order->len > 0); /* the layout did drop chunks by itself */
        CU_ASSERT_EQUAL(g_hash_table_size(real.held), g_hash_table_size(sim.held));
        CU_ASSERT_EQUAL(g_hash_table_size(real.held), ops->chunks(l));
        ChunkLayoutCounters rc, mc;
        ops->counters(l, &rc);
        ops->model_counters(m, &mc);
        CU_ASSERT_EQUAL(rc.stored_bytes_held, mc.stored_bytes_held);
        CU_ASSERT_EQUAL(ops->index_bytes(l) > 0, ops->model_index_bytes(m) > 0);
        if (kind == CHUNK_LAYOUT_LOG) {
            CU_ASSERT_EQUAL(rc.device_bytes_written, mc.device_bytes_written);
            CU_ASSERT_EQUAL(rc.user_bytes_written, mc.user_bytes_written);
            CU_ASSERT_EQUAL(rc.stored_bytes_written, mc.stored_bytes_written);
            CU_ASSERT_EQUAL(rc.chunks_compressed, mc.chunks_compressed);
            CU_ASSERT_EQUAL(rc.segments.user_stored_bytes_written, mc.segments.user_stored_bytes_written);
            CU_ASSERT_EQUAL(o.compression != CACHE_CODEC_NONE, mc.chunks_compressed > 0);
            CU_ASSERT_EQUAL(rc.chunks_dropped_by_layout, mc.chunks_dropped_by_layout);
            CU_ASSERT_EQUAL(rc.segments.cleaner_bytes_written, mc.segments.cleaner_bytes_written);
            CU_ASSERT_EQUAL(rc.segments.segments_written, mc.segments.segments_written);
            CU_ASSERT_EQUAL(rc.segments.segments_evicted, mc.segments.segments_evicted);
            CU_ASSERT_EQUAL(rc.segments.segments_cleaned, mc.segments.segments_cleaned);
            CU_ASSERT_EQUAL(rc.segments.segments_reinserted, mc.segments.segments_reinserted);
            CU_ASSERT_EQUAL(rc.segments.chunks_reinserted, mc.segments.chunks_reinserted);
            CU_ASSERT_EQUAL(rc.segments.reinserted_bytes_written, mc.segments.reinserted_bytes_written);
            CU_ASSERT(rc.segments.segments_written > 2 * o.capacity_bytes / o.segment_size);
            if (o.reclaim == CHUNK_LOG_CLEAN) {
                CU_ASSERT(mc.segments.segments_cleaned > 0 && mc.segments.cleaner_bytes_written > 0);
            } else if (o.reclaim == CHUNK_LOG_REINSERT) {
                CU_ASSERT(mc.segments.segments_reinserted > 0 && mc.segments.chunks_reinserted > 0 &&
                          mc.segments.reinserted_bytes_written > 0 && mc.segments.segments_evicted == 0);
            } else {
                CU_ASSERT(mc.segments.segments_evicted > 0 && mc.segments.segments_cleaned == 0);
            }
        }
        CU_ASSERT_TRUE(ops->close(l, &err));
        g_clear_error(&err);
        ops->model_close(m);
        g_string_free(real.order, TRUE);
        g_string_free(sim.order, TRUE);
        g_hash_table_destroy(real.held);
        g_hash_table_destroy(sim.held);
        g_free(dir);
    }
    g_free(fps);
    g_free(lens);
    g_free(stored);
    g_free(buf);
    g_free(got);
    g_free(out);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_layout", make_tmp, remove_tmp);
    CU_add_test(s, "names", test_names);
    CU_add_test(s, "both layouts through the seam", test_both_layouts);
    CU_add_test(s, "a directory of the other layout", test_switch_layouts);
    CU_add_test(s, "each layout against its model", test_models);
    CU_add_test(s, "get_many through the seam", test_get_many);
}

UNIT_MAIN(add_suites)
