/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_buckets.c: the bucketized chunk layout
 * (cache/layouts/buckets/chunk_buckets.h): its bucket format, round trips with each
 * compression, prefix collisions between chunks whose fingerprints share
 * a prefix (found by search, and made up), replacement inside a bucket,
 * damaged, torn and truncated buckets and compressed sub-slots (misses,
 * counted, never wrong bytes), foreign directories, and random operations
 * against a model. */
#include "cache/common/cache_dir.h"
#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/layouts/buckets/chunk_buckets_format.h"
#include "cache/layouts/buckets/chunk_buckets_model.h"
#include "cache/layouts/buckets/chunk_buckets_sketch.h"
#include "cache/layouts/log/chunk_log.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/le.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define SUB 512u
#define SLOTS 64u
#define MAXLEN 20000u

/* Chunk i of a seeded series: 1..MAXLEN bytes, a random head and a
 * repeated tail, so that some compress and some do not. */
static uint32_t make_chunk(uint32_t seed, uint32_t i, uint8_t *buf, Fingerprint *fp)
{
    GRand *r = g_rand_new_with_seed(seed * 7919u + i);
    uint32_t len = (uint32_t)g_rand_int_range(r, 1, MAXLEN + 1);
    uint32_t random_part = g_rand_boolean(r) ? len : (uint32_t)g_rand_int_range(r, 0, (gint32)len / 4 + 1);
    for (uint32_t k = 0; k < len; k++)
        buf[k] = k < random_part ? (uint8_t)g_rand_int(r) : (uint8_t)(k % 7 + i);
    g_rand_free(r);
    fingerprint_compute(FP_SHA1, buf, len, fp);
    return len;
}

/* Chunk i of a seeded series of small chunks (1..4000 bytes: at most 8
 * sub-slots of a bucket of 64). */
static uint32_t make_small(uint32_t seed, uint32_t i, uint8_t *buf, Fingerprint *fp)
{
    GRand *r = g_rand_new_with_seed(seed * 104729u + i);
    uint32_t len = (uint32_t)g_rand_int_range(r, 1, 4001);
    for (uint32_t k = 0; k < len; k++)
        buf[k] = (uint8_t)g_rand_int(r);
    g_rand_free(r);
    fingerprint_compute(FP_SHA1, buf, len, fp);
    return len;
}

static uint32_t n_dropped;
static GHashTable *dropped_set; /* when not NULL: the fingerprints told */
static void on_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)ctx;
    CU_ASSERT(length > 0);
    n_dropped++;
    if (dropped_set)
        g_hash_table_add(dropped_set, g_memdup2(fp, sizeof *fp));
}

static ChunkBucketsOptions options(const char *dir, uint32_t buckets, CacheCodecKind codec)
{
    ChunkBucketsOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.subslot_size = SUB;
    o.slots = SLOTS;
    o.capacity_bytes = (uint64_t)buckets * chunk_buckets_bucket_size(SLOTS, SUB);
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x5a, sizeof o.store_id);
    o.compression = codec;
    o.dropped = on_dropped;
    return o;
}

static ChunkBuckets *open_ok(const ChunkBucketsOptions *o)
{
    GError *err = NULL;
    ChunkBuckets *b = chunk_buckets_open(o, &err);
    if (err)
        fprintf(stderr, "open: %s\n", err->message);
    g_clear_error(&err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    return b;
}

static void close_ok(ChunkBuckets *b)
{
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_buckets_close(b, &err));
    g_clear_error(&err);
}

static void put_ok(ChunkBuckets *b, const Fingerprint *fp, const uint8_t *buf, uint32_t len)
{
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_buckets_put(b, fp, buf, len, &err));
    g_clear_error(&err);
}

/* A hit with exactly these bytes. */
static void expect_hit(ChunkBuckets *b, const Fingerprint *fp, const uint8_t *want, uint32_t want_len)
{
    uint8_t *got = g_malloc(chunk_buckets_max_chunk(b));
    uint32_t len = 0;
    CU_ASSERT_EQUAL(chunk_buckets_get(b, fp, got, &len), CHUNK_BUCKETS_HIT);
    CU_ASSERT_EQUAL(len, want_len);
    CU_ASSERT(len == want_len && memcmp(got, want, len) == 0);
    g_free(got);
}

static char *path_in(const char *dir, const char *name)
{
    return g_build_filename(dir, name, NULL);
}

static void patch_file(const char *path, off_t off, const void *bytes, size_t n)
{
    int fd = open(path, O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(pwrite(fd, bytes, n, off), (ssize_t)n);
    close(fd);
}

static void flip_byte(const char *path, off_t off)
{
    int fd = open(path, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    uint8_t c = 0;
    CU_ASSERT_EQUAL(pread(fd, &c, 1, off), 1);
    c ^= 0x41;
    CU_ASSERT_EQUAL(pwrite(fd, &c, 1, off), 1);
    close(fd);
}

/* ---- the format ---- */

/* Make the sealed metadata area m a format 1 one (version 1, its CRC
 * taken again as the format defines it: header bytes 0-59, then the
 * table). */
static void as_format_1(uint8_t *m)
{
    le32_put(m + 8, 1);
    uint32_t crc = checksum_crc32(CHECKSUM_CRC32_START, m, 60);
    le32_put(m + 60, checksum_crc32(crc, m + CHUNK_BUCKETS_HEADER, (size_t)SLOTS * CHUNK_BUCKETS_ENTRY));
}

static void test_format(void)
{
    CU_ASSERT_EQUAL(chunk_buckets_meta_size(1), 4096);
    CU_ASSERT_EQUAL(chunk_buckets_meta_size(128), 8192); /* 64 + 128 * 48 = 6208 */
    CU_ASSERT_EQUAL(chunk_buckets_bucket_size(128, 2048), 8192 + 128 * 2048);
    uint32_t size = chunk_buckets_meta_size(SLOTS);
    uint8_t *m = g_malloc0(size);
    ChunkBucketsHeader h, got;
    CU_ASSERT_EQUAL(chunk_buckets_unseal(m, SLOTS, &got), CHUNK_BUCKETS_META_EMPTY);
    memset(&h, 0, sizeof h);
    memset(h.store_id, 7, sizeof h.store_id);
    h.subslot_size = SUB;
    h.slots = SLOTS;
    h.fp_alg = FP_SHA1;
    h.codec = CACHE_CODEC_LZ4;
    h.bucket = 9;
    h.seq = 1234567890123ull;
    ChunkBucketsEntry e = {.raw_len = 5000, .stored_len = 1700, .codec = CACHE_CODEC_LZ4, .n_slots = 4, .head = 1};
    fingerprint_compute(FP_SHA1, "x", 1, &e.fp);
    chunk_buckets_entry_put(m, 3, &e);
    chunk_buckets_seal(m, &h);
    CU_ASSERT_EQUAL(chunk_buckets_unseal(m, SLOTS, &got), CHUNK_BUCKETS_META_OK);
    CU_ASSERT(memcmp(got.store_id, h.store_id, sizeof h.store_id) == 0);
    CU_ASSERT(got.subslot_size == SUB && got.slots == SLOTS && got.fp_alg == FP_SHA1 &&
              got.codec == CACHE_CODEC_LZ4 && got.bucket == 9 && got.seq == h.seq);
    ChunkBucketsEntry back;
    chunk_buckets_entry_get(m, 3, &back);
    CU_ASSERT(memcmp(&back.fp, &e.fp, sizeof e.fp) == 0 && back.raw_len == 5000 && back.stored_len == 1700 &&
              back.codec == CACHE_CODEC_LZ4 && back.n_slots == 4 && back.head == 1);
    chunk_buckets_entry_get(m, 4, &back);
    CU_ASSERT_EQUAL(back.head, 0);
    /* every byte of header and table is covered */
    for (uint32_t off = 0; off < CHUNK_BUCKETS_HEADER + SLOTS * CHUNK_BUCKETS_ENTRY; off += 37) {
        m[off] ^= 0x10;
        CU_ASSERT_EQUAL(chunk_buckets_unseal(m, SLOTS, &got), CHUNK_BUCKETS_META_DAMAGED);
        m[off] ^= 0x10;
    }
    CU_ASSERT_EQUAL(chunk_buckets_unseal(m, SLOTS, &got), CHUNK_BUCKETS_META_OK);
    CU_ASSERT_EQUAL(back.check, 0);
    e.check = 0xdeadbeefu; /* format 2: each entry's CRC-32 of its chunk */
    chunk_buckets_entry_put(m, 3, &e);
    chunk_buckets_entry_get(m, 3, &back);
    CU_ASSERT_EQUAL(back.check, 0xdeadbeefu);
    chunk_buckets_seal(m, &h);
    as_format_1(m);
    CU_ASSERT_EQUAL(chunk_buckets_unseal(m, SLOTS, &got), CHUNK_BUCKETS_META_OLD);
    m[8] = CHUNK_BUCKETS_FORMAT_VERSION + 1; /* a newer one than this destor knows */
    CU_ASSERT_EQUAL(chunk_buckets_unseal(m, SLOTS, &got), CHUNK_BUCKETS_META_DAMAGED);
    g_free(m);
}

static void test_sketch(void)
{
    ChunkBucketsSketch s;
    chunk_buckets_sketch_init(&s, 1000);
    CU_ASSERT_EQUAL(s.width, 1024);
    CU_ASSERT_EQUAL(chunk_buckets_sketch_bytes(&s), 4 * 1024 / 2);
    Fingerprint a, b;
    fingerprint_compute(FP_SHA1, "a", 1, &a);
    fingerprint_compute(FP_SHA1, "b", 1, &b);
    for (int i = 0; i < 20; i++)
        chunk_buckets_sketch_add(&s, &a);
    chunk_buckets_sketch_add(&s, &b);
    CU_ASSERT_EQUAL(chunk_buckets_sketch_estimate(&s, &a), 15); /* saturates */
    CU_ASSERT(chunk_buckets_sketch_estimate(&s, &b) >= 1);
    /* halving: after `period` increments old counts fade */
    Fingerprint c;
    for (uint64_t i = s.since; i < s.period; i++) {
        uint32_t v = (uint32_t)i;
        fingerprint_compute(FP_SHA1, &v, sizeof v, &c);
        chunk_buckets_sketch_add(&s, &c);
    }
    CU_ASSERT(chunk_buckets_sketch_estimate(&s, &a) <= 7 + 8);
    CU_ASSERT(chunk_buckets_sketch_estimate(&s, &a) < 15);
    chunk_buckets_sketch_clear(&s);
}

/* ---- round trips ---- */

static void round_trip(CacheCodecKind codec)
{
    char *dir = g_build_filename(tmpdir, cache_codec_name(codec), NULL);
    ChunkBucketsOptions o = options(dir, 64, codec);
    ChunkBuckets *b = open_ok(&o);
    CU_ASSERT_EQUAL(chunk_buckets_count(b), 64);
    CU_ASSERT_EQUAL(chunk_buckets_max_chunk(b), SLOTS * SUB);
    uint8_t *buf = g_malloc(MAXLEN);
    enum { N = 40 };
    Fingerprint fps[N];
    n_dropped = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t len = make_chunk(1, i, buf, &fps[i]);
        put_ok(b, &fps[i], buf, len);
        put_ok(b, &fps[i], buf, len); /* again: nothing written */
    }
    const ChunkBucketsCounters *c = chunk_buckets_counters(b);
    /* one metadata write a put, one more before it when it evicted; the
     * data written are the chunks' sub-slots only, never whole buckets */
    CU_ASSERT(c->buckets_written >= N && c->buckets_written <= N + n_dropped);
    CU_ASSERT_EQUAL(c->device_bytes_written,
                    c->buckets_written * chunk_buckets_meta_size(SLOTS) + c->stored_bytes_written);
    if (codec == CACHE_CODEC_NONE) {
        CU_ASSERT_EQUAL(c->chunks_compressed, 0);
    } else {
        CU_ASSERT(c->chunks_compressed > 0);
        CU_ASSERT(c->stored_bytes_written < c->user_bytes_written);
    }
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < N; i++) {
            Fingerprint fp;
            uint32_t len = make_chunk(1, i, buf, &fp);
            if (!chunk_buckets_contains(b, &fp, NULL))
                continue; /* evicted to make room: told through `dropped` */
            uint32_t l2 = 0;
            CU_ASSERT_TRUE(chunk_buckets_contains(b, &fp, &l2));
            CU_ASSERT_EQUAL(l2, len);
            expect_hit(b, &fp, buf, len);
        }
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b) + n_dropped, N);
        CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_reads, 0);
        uint64_t held = chunk_buckets_chunks(b);
        close_ok(b);
        b = open_ok(&o);
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b), held);
    }
    CU_ASSERT(chunk_buckets_index_bytes(b) > 0);
    close_ok(b);
    g_free(buf);
    g_free(dir);
}

static void test_round_trip_none(void)
{
    round_trip(CACHE_CODEC_NONE);
}

static void test_round_trip_lz4(void)
{
    round_trip(CACHE_CODEC_LZ4);
}

static void test_round_trip_zstd(void)
{
    round_trip(CACHE_CODEC_ZSTD);
}

static uint32_t fill(ChunkBuckets *b, uint32_t n);
static uint32_t check_series(ChunkBuckets *b, uint32_t n, uint32_t *damaged);

/* With O_DIRECT: the default geometry (whole 4 KiB pages), chunks read
 * through aligned spans; then the same file opened without it. */
static void test_o_direct(void)
{
    char *dir = path_in(tmpdir, "direct");
    ChunkBucketsOptions o = options(dir, 4, CACHE_CODEC_LZ4);
    o.o_direct = TRUE;
    o.subslot_size = 0; /* the defaults: 8 KiB + 128 x 2 KiB a bucket */
    o.slots = 0;
    o.capacity_bytes = 4 * chunk_buckets_bucket_size(CHUNK_BUCKETS_DEFAULT_SLOTS, CHUNK_BUCKETS_DEFAULT_SUBSLOT);
    GError *err = NULL;
    ChunkBuckets *b = chunk_buckets_open(&o, &err);
    if (b == NULL) { /* a file system without O_DIRECT: nothing to test here */
        CU_ASSERT(err != NULL && strstr(err->message, "O_DIRECT") != NULL);
        g_clear_error(&err);
        g_free(dir);
        return;
    }
    uint32_t n = fill(b, 40), damaged = 0;
    uint32_t held = (uint32_t)chunk_buckets_chunks(b);
    CU_ASSERT(held > 30);
    CU_ASSERT_EQUAL(check_series(b, n, &damaged), held);
    close_ok(b);
    b = open_ok(&o);
    CU_ASSERT_EQUAL(check_series(b, n, &damaged), held);
    close_ok(b);
    o.o_direct = FALSE;
    b = open_ok(&o);
    CU_ASSERT_EQUAL(check_series(b, n, &damaged), held);
    CU_ASSERT_EQUAL(damaged, 0);
    close_ok(b);
    /* a geometry that is not whole pages is refused with O_DIRECT */
    ChunkBucketsOptions odd = options(dir, 4, CACHE_CODEC_LZ4);
    odd.o_direct = TRUE;
    odd.slots = 65;
    CU_ASSERT_PTR_NULL(chunk_buckets_open(&odd, &err));
    CU_ASSERT(err && err->code == DESTOR_ERROR_CONFIG);
    g_clear_error(&err);
    g_free(dir);
}

/* ---- prefix collisions ---- */

/* Two real chunks whose SHA-1s share the 16-bit prefix: searched for
 * (a birthday search, a few hundred tries). */
static void find_colliding_pair(uint8_t *a, uint32_t *la, Fingerprint *fa, uint8_t *b, uint32_t *lb,
                                Fingerprint *fb)
{
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (uint32_t i = 0;; i++) {
        Fingerprint fp;
        uint8_t tmp[MAXLEN];
        make_chunk(77, i, tmp, &fp);
        guint p = (guint)(fp.bytes[0] | fp.bytes[1] << 8) + 1;
        gpointer other = g_hash_table_lookup(seen, GUINT_TO_POINTER(p));
        if (other != NULL) {
            *la = make_chunk(77, GPOINTER_TO_UINT(other) - 1, a, fa);
            *lb = make_chunk(77, i, b, fb);
            break;
        }
        g_hash_table_insert(seen, GUINT_TO_POINTER(p), GUINT_TO_POINTER(i + 1));
    }
    g_hash_table_destroy(seen);
}

static void test_prefix_collisions(void)
{
    char *dir = path_in(tmpdir, "collide");
    ChunkBucketsOptions o = options(dir, 1, CACHE_CODEC_LZ4); /* one bucket: the prefix alone decides */
    ChunkBuckets *b = open_ok(&o);
    uint8_t *a = g_malloc(MAXLEN), *c = g_malloc(MAXLEN);
    uint32_t la, lc;
    Fingerprint fa, fc;
    find_colliding_pair(a, &la, &fa, c, &lc, &fc);
    CU_ASSERT(fa.bytes[0] == fc.bytes[0] && fa.bytes[1] == fc.bytes[1]);
    CU_ASSERT(memcmp(fa.bytes, fc.bytes, FP_SLOT) != 0);
    put_ok(b, &fa, a, la);
    /* c is not there: its prefix matches a's, the full fingerprint does not */
    CU_ASSERT_TRUE(chunk_buckets_maybe_contains(b, &fc));
    uint8_t *got = g_malloc(chunk_buckets_max_chunk(b));
    uint32_t len = 0;
    CU_ASSERT_EQUAL(chunk_buckets_get(b, &fc, got, &len), CHUNK_BUCKETS_ABSENT);
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->prefix_collisions, 1);
    CU_ASSERT_FALSE(chunk_buckets_contains(b, &fc, NULL));
    CU_ASSERT_FALSE(chunk_buckets_drop(b, &fc));
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->prefix_collisions, 3);
    /* both in the bucket at once, each served its own bytes */
    put_ok(b, &fc, c, lc);
    CU_ASSERT_EQUAL(chunk_buckets_chunks(b), 2);
    expect_hit(b, &fa, a, la);
    expect_hit(b, &fc, c, lc);
    close_ok(b);
    b = open_ok(&o);
    expect_hit(b, &fa, a, la);
    expect_hit(b, &fc, c, lc);
    CU_ASSERT_TRUE(chunk_buckets_drop(b, &fa));
    CU_ASSERT_EQUAL(chunk_buckets_get(b, &fa, got, &len), CHUNK_BUCKETS_ABSENT);
    expect_hit(b, &fc, c, lc);
    /* made-up fingerprints: a's prefix and bucket bits, any other tail */
    uint64_t before = chunk_buckets_counters(b)->prefix_collisions;
    for (int k = 10; k < 20; k++) {
        Fingerprint fake = fc;
        fake.bytes[k] ^= 0x80;
        CU_ASSERT_EQUAL(chunk_buckets_get(b, &fake, got, &len), CHUNK_BUCKETS_ABSENT);
    }
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->prefix_collisions, before + 10);
    /* a chunk put under a made-up fingerprint is refused (its bytes are
     * matched against it at the put), never served as another */
    Fingerprint fake = fc;
    fake.bytes[19] ^= 1;
    GError *err = NULL;
    CU_ASSERT_FALSE(chunk_buckets_put(b, &fake, a, la, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    CU_ASSERT_EQUAL(chunk_buckets_get(b, &fake, got, &len), CHUNK_BUCKETS_ABSENT);
    expect_hit(b, &fc, c, lc);
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_reads, 0);
    close_ok(b);
    g_free(got);
    g_free(a);
    g_free(c);
    g_free(dir);
}

/* ---- replacement inside a bucket ---- */

static void test_replacement(void)
{
    char *dir = path_in(tmpdir, "replace");
    ChunkBucketsOptions o = options(dir, 1, CACHE_CODEC_NONE);
    ChunkBuckets *b = open_ok(&o);
    uint8_t *buf = g_malloc(MAXLEN), *hot = g_malloc(MAXLEN);
    Fingerprint fhot;
    uint32_t lhot = make_small(5, 0, hot, &fhot);
    put_ok(b, &fhot, hot, lhot);
    n_dropped = 0;
    uint32_t puts = 1;
    for (uint32_t i = 1; i < 200; i++) {
        expect_hit(b, &fhot, hot, lhot); /* the hot chunk's count stays high */
        Fingerprint fp;
        uint32_t len = make_small(5, i, buf, &fp);
        put_ok(b, &fp, buf, len);
        puts++;
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b) + n_dropped, puts);
        CU_ASSERT(chunk_buckets_used_slots(b) <= SLOTS);
    }
    CU_ASSERT(n_dropped > 100);
    /* a chunk hit as often as it is put stays: lower counts go first */
    CU_ASSERT_TRUE(chunk_buckets_contains(b, &fhot, NULL));
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->chunks_dropped_by_layout, n_dropped);
    close_ok(b);
    g_free(buf);
    g_free(hot);
    g_free(dir);
}

/* ---- damage ---- */

/* Fill a layout of `buckets` buckets; returns how many chunks of series 9
 * it put (all held: few enough not to evict). */
static uint32_t fill(ChunkBuckets *b, uint32_t n)
{
    uint8_t *buf = g_malloc(MAXLEN);
    for (uint32_t i = 0; i < n; i++) {
        Fingerprint fp;
        uint32_t len = make_chunk(9, i, buf, &fp);
        put_ok(b, &fp, buf, len);
    }
    g_free(buf);
    return n;
}

/* Every chunk of series 9 is a right hit, absent, or damaged: never wrong
 * bytes. Returns the hits. */
static uint32_t check_series(ChunkBuckets *b, uint32_t n, uint32_t *damaged)
{
    uint8_t *buf = g_malloc(MAXLEN), *got = g_malloc(chunk_buckets_max_chunk(b));
    uint32_t hits = 0;
    for (uint32_t i = 0; i < n; i++) {
        Fingerprint fp;
        uint32_t want = make_chunk(9, i, buf, &fp), len = 0;
        switch (chunk_buckets_get(b, &fp, got, &len)) {
        case CHUNK_BUCKETS_HIT:
            CU_ASSERT(len == want && memcmp(got, buf, len) == 0);
            hits++;
            break;
        case CHUNK_BUCKETS_DAMAGED:
            (*damaged)++;
            break;
        case CHUNK_BUCKETS_ABSENT:
            break;
        }
    }
    g_free(buf);
    g_free(got);
    return hits;
}

static void test_damaged_subslots(void)
{
    for (int codec = CACHE_CODEC_NONE; codec <= CACHE_CODEC_ZSTD; codec++) {
        char *name = g_strdup_printf("dmg-%d", codec);
        char *dir = path_in(tmpdir, name);
        ChunkBucketsOptions o = options(dir, 4, (CacheCodecKind)codec);
        ChunkBuckets *b = open_ok(&o);
        uint32_t n = fill(b, 12), damaged = 0;
        uint32_t held = (uint32_t)chunk_buckets_chunks(b);
        close_ok(b);
        /* flip bytes all over every bucket's sub-slots */
        char *file = path_in(dir, CHUNK_BUCKETS_FILE);
        uint64_t bs = chunk_buckets_bucket_size(SLOTS, SUB);
        for (uint32_t k = 0; k < 4; k++)
            for (uint32_t s = 0; s < SLOTS; s += 3)
                flip_byte(file, (off_t)(k * bs + chunk_buckets_meta_size(SLOTS) + s * SUB + 17));
        b = open_ok(&o);
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b), held);
        uint32_t hits = check_series(b, n, &damaged);
        CU_ASSERT(damaged > 0);
        CU_ASSERT_EQUAL(hits + damaged, held);
        CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_reads, damaged);
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b), hits);
        close_ok(b);
        /* the damaged ones were dropped and the buckets rewritten without them */
        b = open_ok(&o);
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b), hits);
        damaged = 0;
        CU_ASSERT_EQUAL(check_series(b, n, &damaged), hits);
        CU_ASSERT_EQUAL(damaged, 0);
        close_ok(b);
        g_free(file);
        g_free(dir);
        g_free(name);
    }
}

static void test_damaged_meta_and_torn(void)
{
    char *dir = path_in(tmpdir, "meta");
    ChunkBucketsOptions o = options(dir, 4, CACHE_CODEC_LZ4);
    ChunkBuckets *b = open_ok(&o);
    uint32_t n = fill(b, 12), damaged = 0;
    close_ok(b);
    char *file = path_in(dir, CHUNK_BUCKETS_FILE);
    uint64_t bs = chunk_buckets_bucket_size(SLOTS, SUB);
    /* bucket 0's table damaged: it holds nothing, the others serve */
    flip_byte(file, CHUNK_BUCKETS_HEADER + 5);
    /* bucket 1 torn: its data area from an older write (zeroes) under a new table */
    uint8_t *zero = g_malloc0(SLOTS * SUB);
    patch_file(file, (off_t)(bs + chunk_buckets_meta_size(SLOTS)), zero, SLOTS * SUB);
    b = open_ok(&o);
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_buckets, 1);
    uint32_t hits = check_series(b, n, &damaged);
    CU_ASSERT(hits > 0);
    CU_ASSERT(damaged > 0);
    /* damage found after open: bucket 2's area flipped under a live layout */
    flip_byte(file, (off_t)(2 * bs + 40));
    damaged = 0;
    check_series(b, n, &damaged);
    close_ok(b);
    /* truncated in the middle of bucket 3 */
    CU_ASSERT_EQUAL(truncate(file, (off_t)(3 * bs + 100)), 0);
    b = open_ok(&o);
    damaged = 0;
    check_series(b, n, &damaged);
    uint8_t *buf = g_malloc(MAXLEN);
    Fingerprint fp;
    uint32_t len = make_chunk(9, 0, buf, &fp);
    put_ok(b, &fp, buf, len); /* and it takes new chunks */
    expect_hit(b, &fp, buf, len);
    close_ok(b);
    g_free(buf);
    g_free(zero);
    g_free(file);
    g_free(dir);
}

/* Random damage to compressed buckets: flipped bytes anywhere (metadata
 * or sub-slots) and a cut in a bucket's sub-slots; each round reopens and
 * gets every chunk. Misses, never wrong bytes, never a crash (run under
 * the sanitizers too). */
static void test_fuzz_damage(void)
{
    GRand *r = g_rand_new_with_seed(2026);
    uint64_t bs = chunk_buckets_bucket_size(SLOTS, SUB);
    for (int codec = CACHE_CODEC_LZ4; codec <= CACHE_CODEC_ZSTD; codec++) {
        for (int round = 0; round < 20; round++) {
            char *name = g_strdup_printf("fuzz-%d-%d", codec, round);
            char *dir = path_in(tmpdir, name);
            ChunkBucketsOptions o = options(dir, 4, (CacheCodecKind)codec);
            ChunkBuckets *b = open_ok(&o);
            uint32_t n = fill(b, 12), damaged = 0;
            close_ok(b);
            char *file = path_in(dir, CHUNK_BUCKETS_FILE);
            int flips = g_rand_int_range(r, 1, 40);
            for (int f = 0; f < flips; f++)
                flip_byte(file, (off_t)g_rand_int_range(r, 0, (gint32)(4 * bs)));
            if (round % 4 == 3) /* cut inside bucket 2's sub-slots */
                CU_ASSERT_EQUAL(truncate(file, (off_t)(2 * bs + chunk_buckets_meta_size(SLOTS) +
                                                       (uint64_t)g_rand_int_range(r, 1, SLOTS * SUB))), 0);
            b = open_ok(&o);
            uint64_t listed = chunk_buckets_chunks(b);
            uint32_t hits = check_series(b, n, &damaged); /* asserts every hit's bytes */
            CU_ASSERT(hits + damaged <= listed);
            CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_reads, damaged);
            close_ok(b);
            g_free(file);
            g_free(dir);
            g_free(name);
        }
    }
    g_rand_free(r);
}

/* ---- foreign directories and bad options ---- */

static void test_foreign(void)
{
    char *dir = path_in(tmpdir, "foreign");
    ChunkBucketsOptions o = options(dir, 4, CACHE_CODEC_LZ4);
    ChunkBuckets *b = open_ok(&o);
    fill(b, 6);
    CU_ASSERT(chunk_buckets_chunks(b) > 0);
    close_ok(b);
    /* format 1 (no CRC-32 per chunk): started empty (said on stderr) */
    {
        char *file = path_in(dir, CHUNK_BUCKETS_FILE);
        uint32_t meta = chunk_buckets_meta_size(SLOTS);
        uint8_t *m = g_malloc(meta);
        FILE *f = fopen(file, "r+b");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        for (uint32_t k = 0; k < 4; k++) {
            long off = (long)(k * chunk_buckets_bucket_size(SLOTS, SUB));
            CU_ASSERT(fseek(f, off, SEEK_SET) == 0 && fread(m, 1, meta, f) == meta);
            ChunkBucketsHeader h;
            if (chunk_buckets_unseal(m, SLOTS, &h) != CHUNK_BUCKETS_META_OK)
                continue;
            as_format_1(m);
            CU_ASSERT(fseek(f, off, SEEK_SET) == 0 && fwrite(m, 1, meta, f) == meta);
        }
        fclose(f);
        g_free(m);
        g_free(file);
        b = open_ok(&o);
        CU_ASSERT_EQUAL(chunk_buckets_chunks(b), 0);
        CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_buckets, 0);
        fill(b, 6);
        close_ok(b);
    }
    /* another compression: started empty (said on stderr) */
    ChunkBucketsOptions z = options(dir, 4, CACHE_CODEC_ZSTD);
    b = open_ok(&z);
    CU_ASSERT_EQUAL(chunk_buckets_chunks(b), 0);
    fill(b, 6);
    close_ok(b);
    /* another store */
    ChunkBucketsOptions s = z;
    s.store_id[0] ^= 1;
    b = open_ok(&s);
    CU_ASSERT_EQUAL(chunk_buckets_chunks(b), 0);
    fill(b, 6);
    close_ok(b);
    /* another sub-slot size */
    ChunkBucketsOptions q = s;
    q.subslot_size = 1024;
    b = open_ok(&q);
    CU_ASSERT_EQUAL(chunk_buckets_chunks(b), 0);
    close_ok(b);
    /* a chunk log in the directory: removed, the buckets start empty */
    char *log = path_in(dir, CHUNK_LOG_FILE);
    CU_ASSERT_TRUE(g_file_set_contents(log, "segments", -1, NULL));
    b = open_ok(&q);
    CU_ASSERT_FALSE(g_file_test(log, G_FILE_TEST_EXISTS));
    close_ok(b);
    GError *err = NULL;
    CU_ASSERT_TRUE(cache_dir_remove(dir, &chunk_buckets_dir_format, &err));
    CU_ASSERT_FALSE(cache_dir_remove(dir, &chunk_buckets_dir_format, &err));
    /* bad options */
    ChunkBucketsOptions bad = q;
    bad.subslot_size = 700;
    CU_ASSERT_PTR_NULL(chunk_buckets_open(&bad, &err));
    CU_ASSERT(err && err->code == DESTOR_ERROR_CONFIG);
    g_clear_error(&err);
    bad = q;
    bad.capacity_bytes = 1000;
    CU_ASSERT_PTR_NULL(chunk_buckets_open(&bad, &err));
    CU_ASSERT(err && err->code == DESTOR_ERROR_CONFIG);
    g_clear_error(&err);
    /* held lock */
    b = open_ok(&q);
    CU_ASSERT_PTR_NULL(chunk_buckets_open(&q, &err));
    CU_ASSERT(err && err->code == DESTOR_ERROR_LOCKED);
    g_clear_error(&err);
    uint8_t buf[10] = {0};
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, buf, 0, &fp);
    CU_ASSERT_FALSE(chunk_buckets_put(b, &fp, buf, 0, &err));
    g_clear_error(&err);
    close_ok(b);
    g_free(log);
    g_free(dir);
}

/* ---- the simulation's model makes the layout's decisions ---- */

static void record_drop(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)length;
    g_array_append_val((GArray *)ctx, *fp);
}

/* The same random puts, hits and drops into the layout (default geometry,
 * no compression) and into chunk_buckets_model: the same chunks held and
 * the same chunks evicted, in the same order (the chunk cache's sim = real
 * rests on it). */
static void test_model_matches_layout(void)
{
    char *dir = g_build_filename(tmpdir, "model", NULL);
    ChunkBucketsOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.capacity_bytes = 3 * chunk_buckets_bucket_size(CHUNK_BUCKETS_DEFAULT_SLOTS, CHUNK_BUCKETS_DEFAULT_SUBSLOT);
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x5a, sizeof o.store_id);
    o.compression = CACHE_CODEC_NONE;
    GArray *by_layout = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
    GArray *by_model = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
    o.dropped = record_drop;
    o.dropped_ctx = by_layout;
    ChunkBuckets *b = open_ok(&o);
    ChunkBucketsModel m;
    CU_ASSERT_TRUE_FATAL(chunk_buckets_model_init(&m, o.capacity_bytes, record_drop, by_model, NULL));
    CU_ASSERT_EQUAL(chunk_buckets_model_max_chunk(&m), chunk_buckets_max_chunk(b));
    uint8_t *buf = g_malloc(MAXLEN);
    uint8_t *out = g_malloc(chunk_buckets_max_chunk(b));
    GRand *r = g_rand_new_with_seed(23);
    for (int i = 0; i < 3000; i++) {
        Fingerprint fp;
        uint32_t len = make_chunk(5, (uint32_t)g_rand_int_range(r, 0, 600), buf, &fp);
        gboolean held = chunk_buckets_model_contains(&m, &fp);
        CU_ASSERT_EQUAL(held, chunk_buckets_contains(b, &fp, NULL));
        if (held && g_rand_int_range(r, 0, 8) == 0) {
            CU_ASSERT_TRUE(chunk_buckets_drop(b, &fp));
            CU_ASSERT_TRUE(chunk_buckets_model_drop(&m, &fp));
        } else if (held) {
            uint32_t got = 0;
            CU_ASSERT_EQUAL(chunk_buckets_get(b, &fp, out, &got), CHUNK_BUCKETS_HIT);
            chunk_buckets_model_hit(&m, &fp);
        } else {
            put_ok(b, &fp, buf, len);
            chunk_buckets_model_put(&m, &fp, len, len);
        }
        CU_ASSERT_EQUAL(by_layout->len, by_model->len);
    }
    CU_ASSERT(by_layout->len > 100);
    CU_ASSERT_EQUAL(by_layout->len, by_model->len);
    if (by_layout->len == by_model->len)
        CU_ASSERT_EQUAL(memcmp(by_layout->data, by_model->data, by_layout->len * sizeof(Fingerprint)), 0);
    CU_ASSERT_EQUAL(chunk_buckets_chunks(b), m.x.chunks);
    CU_ASSERT_EQUAL(chunk_buckets_used_slots(b), m.x.used_slots);
    CU_ASSERT_TRUE(chunk_buckets_close(b, NULL));
    chunk_buckets_model_clear(&m);
    g_rand_free(r);
    g_array_unref(by_layout);
    g_array_unref(by_model);
    g_free(buf);
    g_free(out);
    g_free(dir);
}

/* ---- random operations against a model ---- */

static void copy_file(const char *from, const char *to)
{
    gchar *data = NULL;
    gsize len = 0;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(from, &data, &len, NULL));
    CU_ASSERT_TRUE(g_file_set_contents(to, data, (gssize)len, NULL));
    g_free(data);
}

static void list_one(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)length;
    g_ptr_array_add(ctx, g_memdup2(fp, sizeof *fp));
}

/* What a crash now would leave: the file as it is (every bucket write is
 * one whole write, and nothing else is buffered but drops), opened in
 * another directory. Every chunk it lists must be served right. */
static void check_crash_copy(const char *dir, const ChunkBucketsOptions *o, const Fingerprint *fps,
                             const uint32_t *lens, uint32_t n)
{
    char *copy = g_strconcat(dir, "-crash", NULL);
    g_mkdir_with_parents(copy, 0755);
    char *from = path_in(dir, CHUNK_BUCKETS_FILE), *to = path_in(copy, CHUNK_BUCKETS_FILE);
    copy_file(from, to);
    ChunkBucketsOptions co = *o;
    co.directory = copy;
    co.dropped = NULL;
    ChunkBuckets *b = open_ok(&co);
    /* foreach reads metadata only: list first, then get each */
    GPtrArray *listed = g_ptr_array_new_with_free_func(g_free);
    chunk_buckets_foreach(b, list_one, listed);
    CU_ASSERT_EQUAL(listed->len, chunk_buckets_chunks(b));
    uint8_t *want = g_malloc(MAXLEN), *got = g_malloc(SLOTS * SUB);
    for (guint i = 0; i < listed->len; i++) {
        const Fingerprint *fp = g_ptr_array_index(listed, i);
        uint32_t k = 0;
        while (k < n && memcmp(&fps[k], fp, sizeof *fp) != 0)
            k++;
        CU_ASSERT_FATAL(k < n); /* only chunks some put made */
        Fingerprint again;
        uint32_t want_len = make_chunk(3, k, want, &again), len = 0;
        CU_ASSERT_EQUAL(want_len, lens[k]);
        CU_ASSERT_EQUAL(chunk_buckets_get(b, fp, got, &len), CHUNK_BUCKETS_HIT);
        CU_ASSERT(len == want_len && memcmp(got, want, len) == 0);
    }
    CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_reads, 0);
    g_free(want);
    g_free(got);
    g_ptr_array_free(listed, TRUE);
    close_ok(b);
    g_unlink(to);
    g_free(from);
    g_free(to);
    g_free(copy);
}

static void test_random_operations(void)
{
    enum { N = 300, OPS = 3000 };
    uint8_t *buf = g_malloc(MAXLEN), *got = g_malloc(SLOTS * SUB);
    Fingerprint *fps = g_new(Fingerprint, N);
    uint32_t *lens = g_new(uint32_t, N);
    for (uint32_t i = 0; i < N; i++)
        lens[i] = make_chunk(3, i, buf, &fps[i]);
    for (int codec = CACHE_CODEC_NONE; codec <= CACHE_CODEC_LZ4; codec++) {
        char *name = g_strdup_printf("random-%d", codec);
        char *dir = path_in(tmpdir, name);
        ChunkBucketsOptions o = options(dir, 40, (CacheCodecKind)codec);
        ChunkBuckets *b = open_ok(&o);
        gboolean *in = g_new0(gboolean, N);
        dropped_set = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, g_free, NULL);
        GRand *r = g_rand_new_with_seed(42 + codec);
        uint64_t hits = 0;
        for (int op = 0; op < OPS; op++) {
            uint32_t i = (uint32_t)g_rand_int_range(r, 0, N);
            int what = g_rand_int_range(r, 0, 100);
            if (what < 45) {
                make_chunk(3, i, buf, &fps[i]);
                put_ok(b, &fps[i], buf, lens[i]);
                in[i] = TRUE;
            } else if (what < 85) {
                uint32_t len = 0;
                ChunkBucketsGet g = chunk_buckets_get(b, &fps[i], got, &len);
                CU_ASSERT_EQUAL(g, in[i] ? CHUNK_BUCKETS_HIT : CHUNK_BUCKETS_ABSENT);
                if (g == CHUNK_BUCKETS_HIT) {
                    make_chunk(3, i, buf, &fps[i]);
                    CU_ASSERT(len == lens[i] && memcmp(got, buf, len) == 0);
                    hits++;
                }
            } else if (what < 97) {
                CU_ASSERT_EQUAL(chunk_buckets_drop(b, &fps[i]), in[i]);
                in[i] = FALSE;
            } else if (what < 99) {
                close_ok(b);
                b = open_ok(&o);
            } else {
                check_crash_copy(dir, &o, fps, lens, N);
            }
            /* chunks the layout evicted by itself */
            GHashTableIter it;
            gpointer key;
            g_hash_table_iter_init(&it, dropped_set);
            while (g_hash_table_iter_next(&it, &key, NULL))
                for (uint32_t k = 0; k < N; k++)
                    if (memcmp(key, &fps[k], sizeof(Fingerprint)) == 0)
                        in[k] = FALSE;
            g_hash_table_remove_all(dropped_set);
            uint64_t model = 0;
            for (uint32_t k = 0; k < N; k++)
                model += in[k];
            CU_ASSERT_EQUAL(chunk_buckets_chunks(b), model);
        }
        for (uint32_t k = 0; k < N; k++)
            CU_ASSERT_EQUAL(chunk_buckets_contains(b, &fps[k], NULL), in[k]);
        CU_ASSERT(hits > 100);
        CU_ASSERT_EQUAL(chunk_buckets_counters(b)->damaged_reads, 0);
        CU_ASSERT(chunk_buckets_counters(b)->chunks_dropped_by_layout > 0);
        close_ok(b);
        g_hash_table_destroy(dropped_set);
        dropped_set = NULL;
        g_rand_free(r);
        g_free(in);
        g_free(dir);
        g_free(name);
    }
    g_free(fps);
    g_free(lens);
    g_free(buf);
    g_free(got);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_buckets", make_tmp, remove_tmp);
    CU_add_test(s, "bucket format", test_format);
    CU_add_test(s, "count-min sketch", test_sketch);
    CU_add_test(s, "round trip, none", test_round_trip_none);
    CU_add_test(s, "round trip, lz4", test_round_trip_lz4);
    CU_add_test(s, "round trip, zstd", test_round_trip_zstd);
    CU_add_test(s, "O_DIRECT", test_o_direct);
    CU_add_test(s, "prefix collisions", test_prefix_collisions);
    CU_add_test(s, "replacement inside a bucket", test_replacement);
    CU_add_test(s, "damaged compressed sub-slots", test_damaged_subslots);
    CU_add_test(s, "damaged, torn and truncated buckets", test_damaged_meta_and_torn);
    CU_add_test(s, "random damage to compressed buckets", test_fuzz_damage);
    CU_add_test(s, "foreign directory and bad options", test_foreign);
    CU_add_test(s, "random operations against a model", test_random_operations);
    CU_add_test(s, "model = layout", test_model_matches_layout);
}

UNIT_MAIN(add_suites)
