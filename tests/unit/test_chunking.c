/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunking.c: unit tests of the chunkers (src/chunking).
 *
 * Checks name parsing and size validation, the Rabin arithmetic against a
 * bit-by-bit reference, Rabin's two-byte and FastCDC's four-byte loops
 * against their byte-at-a-time definitions, and the properties the backup pipeline relies on:
 * deterministic boundaries that depend only on the next max_size bytes,
 * chunk sizes within bounds, averages near the configured size, and shift
 * resistance for the content-defined algorithms (but not for fixed). Data
 * comes from a seeded PRNG so failures reproduce. Throughput is printed,
 * not asserted (sanitizer builds are slow). */
#include "chunking/chunker_impl.h"
#include "util/error.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static const ChunkAlgorithm ALGS[] = { CHUNK_RABIN, CHUNK_FIXED, CHUNK_FASTCDC };
static const ChunkSizes DEFAULT_SIZES = { .min_size = 2048, .avg_size = 8192, .max_size = 65536 };

/* Square root by Newton's method (keeps the test free of libm). */
static double root(double v)
{
    if (v <= 0)
        return 0;
    double r = v > 1 ? v : 1;
    for (int i = 0; i < 100; i++)
        r = 0.5 * (r + v / r);
    return r;
}

static uint8_t *random_buffer(size_t len, guint32 seed)
{
    uint8_t *buf = g_malloc(len ? len : 1);
    GRand *r = g_rand_new_with_seed(seed);
    for (size_t i = 0; i < len; i += 4) {
        guint32 v = g_rand_int(r);
        for (size_t k = 0; k < 4 && i + k < len; k++)
            buf[i + k] = (uint8_t)(v >> (8 * k));
    }
    g_rand_free(r);
    return buf;
}

/* The largest chunk the algorithm can return. */
static size_t largest_chunk(ChunkAlgorithm alg, const ChunkSizes *s)
{
    return alg == CHUNK_FIXED ? s->avg_size : s->max_size;
}

/* Chunk a whole buffer. With `window` set, each call sees only the next
 * `largest` bytes, as a streaming caller would give it. */
static GArray *chunk_all(const Chunker *c, const uint8_t *buf, size_t len, size_t window)
{
    GArray *lens = g_array_new(FALSE, FALSE, sizeof(size_t));
    size_t pos = 0;
    while (pos < len) {
        size_t avail = len - pos;
        if (window && avail > window)
            avail = window;
        size_t n = chunker_next(c, buf + pos, avail);
        if (n == 0 || n > avail) {
            CU_FAIL("chunker_next returned a length outside [1, len]");
            break;
        }
        g_array_append_val(lens, n);
        pos += n;
    }
    return lens;
}

static gboolean same_lengths(const GArray *a, const GArray *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len * sizeof(size_t)) == 0;
}

/* ---- names and sizes ---- */

static void test_parse(void)
{
    ChunkAlgorithm a = CHUNK_FIXED;
    CU_ASSERT_TRUE(chunk_algorithm_parse("rabin", &a));
    CU_ASSERT_EQUAL(a, CHUNK_RABIN);
    CU_ASSERT_TRUE(chunk_algorithm_parse("fixed", &a));
    CU_ASSERT_EQUAL(a, CHUNK_FIXED);
    CU_ASSERT_TRUE(chunk_algorithm_parse("fastcdc", &a));
    CU_ASSERT_EQUAL(a, CHUNK_FASTCDC);
    a = CHUNK_RABIN;
    CU_ASSERT_TRUE(chunk_algorithm_parse("normalized rabin", &a));
    CU_ASSERT_EQUAL(a, CHUNK_FASTCDC);
    CU_ASSERT_TRUE(chunk_algorithm_parse("FastCDC", &a));
    CU_ASSERT_EQUAL(a, CHUNK_FASTCDC);

    const char *bad[] = { "", "rabin2", "normalized", "tttd", "ae", "fixed ", " rabin", "fast cdc" };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        a = CHUNK_FIXED;
        CU_ASSERT_FALSE(chunk_algorithm_parse(bad[i], &a));
        CU_ASSERT_EQUAL(a, CHUNK_FIXED); /* untouched on failure */
    }
    CU_ASSERT_FALSE(chunk_algorithm_parse(NULL, &a));

    for (size_t i = 0; i < G_N_ELEMENTS(ALGS); i++) {
        CU_ASSERT_TRUE(chunk_algorithm_parse(chunk_algorithm_name(ALGS[i]), &a));
        CU_ASSERT_EQUAL(a, ALGS[i]);
    }
}

static void expect_valid(ChunkAlgorithm alg, size_t min, size_t avg, size_t max)
{
    ChunkSizes s = { min, avg, max };
    GError *err = NULL;
    gboolean ok = chunk_sizes_validate(alg, &s, &err);
    if (!ok)
        fprintf(stderr, "\n  unexpected error: %s\n", err->message);
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_PTR_NULL(err);
    g_clear_error(&err);
    /* err may be NULL */
    CU_ASSERT_TRUE(chunk_sizes_validate(alg, &s, NULL));
}

static void expect_invalid(ChunkAlgorithm alg, size_t min, size_t avg, size_t max, const char *named)
{
    ChunkSizes s = { min, avg, max };
    GError *err = NULL;
    CU_ASSERT_FALSE(chunk_sizes_validate(alg, &s, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
    if (strstr(err->message, named) == NULL) {
        fprintf(stderr, "\n  message \"%s\" does not name %s\n", err->message, named);
        CU_FAIL("error message does not name the bad value");
    }
    g_error_free(err);
    CU_ASSERT_FALSE(chunk_sizes_validate(alg, &s, NULL));
}

static void test_validate(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ALGS); i++) {
        expect_valid(ALGS[i], 2048, 8192, 65536);
        expect_valid(ALGS[i], 64, 64, 64);
        expect_valid(ALGS[i], 4096, 1 << 20, 16 << 20);
        expect_invalid(ALGS[i], 2048, 32, 65536, "32");            /* avg below 64 */
        expect_invalid(ALGS[i], 2048, 32 << 20, 64 << 20, "33554432"); /* avg above 16 MiB */
    }
    const ChunkAlgorithm cdc[] = { CHUNK_RABIN, CHUNK_FASTCDC };
    for (size_t i = 0; i < G_N_ELEMENTS(cdc); i++) {
        expect_invalid(cdc[i], 32, 8192, 65536, "32");           /* min below 64 */
        expect_invalid(cdc[i], 0, 8192, 65536, "chunk-min-size");
        expect_invalid(cdc[i], 16384, 8192, 65536, "16384");     /* min > avg */
        expect_invalid(cdc[i], 2048, 8192, 4096, "4096");        /* max < avg */
        expect_invalid(cdc[i], 2048, 8192, (16 << 20) + 1, "16777217"); /* max too big */
        expect_invalid(cdc[i], 2048, 6000, 65536, "6000");       /* not a power of two */
        expect_invalid(cdc[i], 2048, 8193, 65536, "8193");
    }
    /* fixed: only avg matters, any size in range, min and max ignored */
    expect_valid(CHUNK_FIXED, 0, 6000, 0);
    expect_valid(CHUNK_FIXED, 2048, 1000, 512);
    expect_valid(CHUNK_FIXED, 1 << 30, 65, 1);
}

/* ---- Rabin arithmetic ---- */

/* a * b mod p over GF(2), bit by bit, for polynomials of degree < deg. */
static uint64_t ref_mulmod(uint64_t a, uint64_t b, uint64_t p, unsigned deg)
{
    uint64_t r = 0;
    while (b) {
        if (b & 1)
            r ^= a;
        b >>= 1;
        a <<= 1;
        if ((a >> deg) & 1)
            a ^= p;
    }
    return r;
}

static void test_rabin_polynomial_irreducible(void)
{
    /* Degree exactly RABIN_DEGREE. */
    CU_ASSERT_EQUAL(RABIN_POLY >> RABIN_DEGREE, 1);
    /* Rabin's test for prime degree n: P is irreducible iff
     * x^(2^n) == x (mod P) and gcd(x^2 - x, P) = 1, i.e. P has neither 0
     * nor 1 as a root: constant term 1 and an odd number of terms. */
    CU_ASSERT_EQUAL(RABIN_DEGREE, 53); /* the test below assumes a prime degree */
    CU_ASSERT_EQUAL(RABIN_POLY & 1, 1);
    int terms = 0;
    for (uint64_t p = RABIN_POLY; p; p >>= 1)
        terms += (int)(p & 1);
    CU_ASSERT_EQUAL(terms % 2, 1);
    uint64_t t = 2; /* x */
    for (int i = 0; i < RABIN_DEGREE; i++)
        t = ref_mulmod(t, t, RABIN_POLY, RABIN_DEGREE);
    CU_ASSERT_EQUAL(t, 2);
    /* A reducible polynomial fails the same test (sanity of the test). */
    uint64_t red = ref_mulmod(0x3 /* x+1 */, 0x7 /* x^2+x+1 */, RABIN_POLY, RABIN_DEGREE);
    CU_ASSERT_EQUAL(red, 0x9); /* (x+1)(x^2+x+1) = x^3+1 */
}

/* Window bytes read as a polynomial (first byte highest), reduced mod P by
 * plain long division. */
static uint64_t ref_window_fp(const uint8_t *w, size_t n)
{
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++) {
        for (int bit = 7; bit >= 0; bit--) {
            r = (r << 1) | ((w[i] >> bit) & 1);
            if ((r >> RABIN_DEGREE) & 1)
                r ^= RABIN_POLY;
        }
    }
    return r;
}

static void test_rabin_rolling_matches_reference(void)
{
    Chunker *c = chunker_new(CHUNK_RABIN, &DEFAULT_SIZES);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const size_t n = 5000;
    uint8_t *buf = random_buffer(n, 7);
    memset(buf + 1000, 0, 100); /* a zero run: its full windows hash to 0 */
    uint64_t fp = 0;
    size_t mismatches = 0;
    for (size_t i = 0; i < n; i++) {
        fp = i < RABIN_WINDOW ? rabin_append(c, fp, buf[i]) : rabin_slide(c, fp, buf[i - RABIN_WINDOW], buf[i]);
        size_t start = i + 1 >= RABIN_WINDOW ? i + 1 - RABIN_WINDOW : 0;
        if (fp != ref_window_fp(buf + start, i + 1 - start))
            mismatches++;
        CU_ASSERT(fp >> RABIN_DEGREE == 0);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT_EQUAL(ref_window_fp(buf + 1000, RABIN_WINDOW), 0);
    g_free(buf);
    chunker_free(c);
}

/* Rabin by the definition: a window sliding one byte at a time, filled
 * from RABIN_WINDOW bytes before min_size, a cut where the low bits equal
 * the magic value. */
static size_t ref_rabin_next(const Chunker *c, const uint8_t *buf, size_t len)
{
    const ChunkSizes *s = &c->sizes;
    if (len <= s->min_size)
        return len;
    size_t end = MIN(len, s->max_size);
    size_t i = s->min_size - RABIN_WINDOW;
    uint64_t fp = 0;
    for (; i < s->min_size; i++)
        fp = rabin_append(c, fp, buf[i]);
    for (; i < end; i++) {
        if ((fp & c->rabin_mask) == c->rabin_magic)
            return i;
        fp = rabin_slide(c, fp, buf[i - RABIN_WINDOW], buf[i]);
    }
    return end;
}

typedef size_t (*NextCut)(const Chunker *c, const uint8_t *buf, size_t len);

/* ALGO's fast cut function FAST cuts exactly where its byte-at-a-time
 * definition REF does, for sizes that are and are not multiples of the
 * fast loop's step, on random data and on data with long runs (where cuts
 * are rare or immediate), with tails of varied length. */
static void expect_cuts_match_reference(ChunkAlgorithm algo, NextCut fast, NextCut ref, unsigned seed)
{
    const ChunkSizes configs[] = {
        { 2048, 8192, 65536 }, { 64, 256, 1024 }, { 64, 128, 301 }, { 101, 1024, 4099 }, { 4096, 16384, 16387 },
    };
    const size_t len = (1 << 20) + 3;
    uint8_t *buf = random_buffer(len, seed);
    memset(buf + 100000, 0, 40000);
    memset(buf + 300000, 0xff, 70000);
    size_t mismatches = 0, cuts = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(configs); k++) {
        Chunker *c = chunker_new(algo, &configs[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        for (size_t pos = 0; pos < len; cuts++) {
            size_t avail = MIN(len - pos, configs[k].max_size + (cuts % 5));
            size_t n = fast(c, buf + pos, avail);
            if (n != ref(c, buf + pos, avail))
                mismatches++;
            pos += MAX(n, (size_t)1);
        }
        chunker_free(c);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT_TRUE(cuts > 1000);
    g_free(buf);
}

/* Two bytes per step in rabin.c cut exactly where the byte-at-a-time
 * definition does. */
static void test_rabin_matches_reference(void)
{
    expect_cuts_match_reference(CHUNK_RABIN, rabin_next, ref_rabin_next, 67);
}

/* FastCDC by the definition: one byte at a time, hashing from 64 bytes
 * before min_size, the strict mask up to avg bytes, the loose one after. */
static size_t ref_fastcdc_next(const Chunker *c, const uint8_t *buf, size_t len)
{
    const ChunkSizes *s = &c->sizes;
    if (len <= s->min_size)
        return len;
    size_t end = MIN(len, s->max_size);
    uint64_t h = 0;
    for (size_t i = s->min_size >= 64 ? s->min_size - 64 : 0; i < end; i++) {
        h = (h << 1) + c->gear[buf[i]];
        uint64_t mask = i < s->avg_size ? c->mask_small : c->mask_large;
        if (i >= s->min_size && !(h & mask))
            return i + 1;
    }
    return end;
}

/* The unrolled loop in fastcdc.c (a four-byte step) cuts exactly where
 * the definition does. */
static void test_fastcdc_matches_reference(void)
{
    expect_cuts_match_reference(CHUNK_FASTCDC, fastcdc_next, ref_fastcdc_next, 61);
}

/* ---- boundary properties ---- */

static void test_determinism(void)
{
    const size_t len = (3 << 20) + 12345;
    uint8_t *buf = random_buffer(len, 11);
    for (size_t i = 0; i < G_N_ELEMENTS(ALGS); i++) {
        Chunker *a = chunker_new(ALGS[i], &DEFAULT_SIZES);
        Chunker *b = chunker_new(ALGS[i], &DEFAULT_SIZES);
        GArray *l1 = chunk_all(a, buf, len, 0);
        GArray *l2 = chunk_all(b, buf, len, 0);
        GArray *l3 = chunk_all(a, buf, len, largest_chunk(ALGS[i], &DEFAULT_SIZES));
        CU_ASSERT_TRUE(l1->len > 1);
        CU_ASSERT_TRUE(same_lengths(l1, l2));
        CU_ASSERT_TRUE(same_lengths(l1, l3)); /* only the next max bytes matter */
        /* A chunker restarted at any boundary gives the same remaining cuts. */
        size_t pos = g_array_index(l1, size_t, 0) + g_array_index(l1, size_t, 1);
        GArray *l4 = chunk_all(b, buf + pos, len - pos, 0);
        CU_ASSERT_EQUAL(l4->len + 2, l1->len);
        CU_ASSERT_TRUE(l4->len + 2 == l1->len &&
                       memcmp(l4->data, &g_array_index(l1, size_t, 2), l4->len * sizeof(size_t)) == 0);
        g_array_free(l1, TRUE);
        g_array_free(l2, TRUE);
        g_array_free(l3, TRUE);
        g_array_free(l4, TRUE);
        chunker_free(a);
        chunker_free(b);
    }
    g_free(buf);
}

/* Every chunk but the last in [min, max] (exactly avg for fixed), the last
 * in [1, max], and the lengths add up. */
static void check_bounds(ChunkAlgorithm alg, const ChunkSizes *s, const uint8_t *buf, size_t len)
{
    Chunker *c = chunker_new(alg, s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    GArray *lens = chunk_all(c, buf, len, largest_chunk(alg, s));
    size_t lo = alg == CHUNK_FIXED ? s->avg_size : s->min_size;
    size_t hi = largest_chunk(alg, s);
    size_t sum = 0, bad = 0;
    for (guint i = 0; i < lens->len; i++) {
        size_t n = g_array_index(lens, size_t, i);
        sum += n;
        gboolean last = i + 1 == lens->len;
        if (n == 0 || n > hi || (!last && n < lo))
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(sum, len);
    if (len == 0) {
        CU_ASSERT_EQUAL(lens->len, 0);
    }
    g_array_free(lens, TRUE);
    chunker_free(c);
}

static void test_size_bounds(void)
{
    const ChunkSizes configs[] = {
        { 2048, 8192, 65536 },
        { 64, 64, 64 },
        { 64, 256, 1024 },
        { 256, 4096, 4096 },
        { 4096, 4096, 1 << 20 },
        { 100, 1024, 3000 },
    };
    const size_t len = 1 << 20;
    uint8_t *rnd = random_buffer(len, 23);
    uint8_t *zeros = g_malloc0(len);
    /* low entropy: a short repeating pattern with rare random bytes */
    uint8_t *low = g_malloc(len);
    for (size_t i = 0; i < len; i++)
        low[i] = (i % 7 == 0 && rnd[i] < 4) ? rnd[i] : (uint8_t)"abcabd"[i % 6];

    for (size_t a = 0; a < G_N_ELEMENTS(ALGS); a++) {
        for (size_t k = 0; k < G_N_ELEMENTS(configs); k++) {
            const ChunkSizes *s = &configs[k];
            check_bounds(ALGS[a], s, rnd, len);
            check_bounds(ALGS[a], s, rnd, len - 1);
            check_bounds(ALGS[a], s, zeros, len);
            check_bounds(ALGS[a], s, low, len);
            /* lengths around the interesting sizes, including shorter than min */
            const size_t sizes[] = { 0, 1, 63, s->min_size - 1, s->min_size, s->min_size + 1,
                                     s->avg_size, s->max_size - 1, s->max_size, s->max_size + 1,
                                     2 * s->max_size, 3 * s->avg_size };
            for (size_t j = 0; j < G_N_ELEMENTS(sizes); j++)
                if (sizes[j] <= len)
                    check_bounds(ALGS[a], s, rnd, sizes[j]);
        }
    }

    /* Inputs no longer than min are one chunk. */
    Chunker *c = chunker_new(CHUNK_RABIN, &DEFAULT_SIZES);
    Chunker *f = chunker_new(CHUNK_FASTCDC, &DEFAULT_SIZES);
    for (size_t n = 1; n <= DEFAULT_SIZES.min_size; n += 97) {
        CU_ASSERT_EQUAL(chunker_next(c, rnd, n), n);
        CU_ASSERT_EQUAL(chunker_next(f, rnd, n), n);
    }
    CU_ASSERT_EQUAL(chunker_next(c, rnd, DEFAULT_SIZES.min_size), DEFAULT_SIZES.min_size);
    CU_ASSERT_EQUAL(chunker_next(f, rnd, DEFAULT_SIZES.min_size), DEFAULT_SIZES.min_size);
    /* Zeros never match: max-size chunks, and no empty tail at an exact multiple. */
    GArray *l = chunk_all(c, zeros, 4 * DEFAULT_SIZES.max_size, 0);
    CU_ASSERT_EQUAL(l->len, 4);
    for (guint i = 0; i < l->len; i++)
        CU_ASSERT_EQUAL(g_array_index(l, size_t, i), DEFAULT_SIZES.max_size);
    g_array_free(l, TRUE);
    chunker_free(c);
    chunker_free(f);

    /* Fixed: exact multiples have no short tail; otherwise one short tail. */
    Chunker *x = chunker_new(CHUNK_FIXED, &(ChunkSizes){ 0, 1000, 0 });
    l = chunk_all(x, rnd, 5000, 0);
    CU_ASSERT_EQUAL(l->len, 5);
    g_array_free(l, TRUE);
    l = chunk_all(x, rnd, 5001, 0);
    CU_ASSERT_EQUAL(l->len, 6);
    CU_ASSERT_EQUAL(g_array_index(l, size_t, 5), 1);
    g_array_free(l, TRUE);
    chunker_free(x);

    g_free(rnd);
    g_free(zeros);
    g_free(low);
}

static void test_average_size(void)
{
    const size_t len = 16 << 20;
    uint8_t *buf = random_buffer(len, 31);
    const ChunkSizes configs[] = {
        { 2048, 8192, 65536 },
        { 1024, 4096, 16384 },
        { 8192, 65536, 1 << 20 },
    };
    for (size_t a = 0; a < G_N_ELEMENTS(ALGS); a++) {
        for (size_t k = 0; k < G_N_ELEMENTS(configs); k++) {
            const ChunkSizes *s = &configs[k];
            Chunker *c = chunker_new(ALGS[a], s);
            GArray *lens = chunk_all(c, buf, len, 0);
            size_t lo = SIZE_MAX, hi = 0, at_max = 0;
            double sum = 0, sq = 0;
            guint n = lens->len - 1; /* ignore the tail */
            for (guint i = 0; i < n; i++) {
                size_t v = g_array_index(lens, size_t, i);
                lo = MIN(lo, v);
                hi = MAX(hi, v);
                at_max += v == s->max_size;
                sum += (double)v;
                sq += (double)v * (double)v;
            }
            double mean = sum / n, sd = root(sq / n - mean * mean);
            printf("\n    %-7s min/avg/max %7zu/%7zu/%7zu: %5u chunks, mean %8.0f sd %7.0f "
                   "smallest %7zu largest %7zu at-max %.1f%%",
                   chunk_algorithm_name(ALGS[a]), s->min_size, s->avg_size, s->max_size, n, mean, sd,
                   lo, hi, 100.0 * at_max / n);
            CU_ASSERT_TRUE(mean >= s->avg_size / 2.0 && mean <= s->avg_size * 2.0);
            if (ALGS[a] == CHUNK_FIXED) {
                CU_ASSERT_TRUE(lo == s->avg_size && hi == s->avg_size);
            } else {
                CU_ASSERT_TRUE(sd > 0); /* content-defined sizes vary */
            }
            g_array_free(lens, TRUE);
            chunker_free(c);
        }
    }
    printf("\n");
    g_free(buf);
}

/* ---- shift resistance ---- */

static GHashTable *chunk_digests(const Chunker *c, const uint8_t *buf, size_t len, guint *count)
{
    GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GArray *lens = chunk_all(c, buf, len, 0);
    size_t pos = 0;
    for (guint i = 0; i < lens->len; i++) {
        size_t n = g_array_index(lens, size_t, i);
        g_hash_table_add(set, g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf + pos, n));
        pos += n;
    }
    *count = lens->len;
    g_array_free(lens, TRUE);
    return set;
}

/* Fraction of the chunks of `a` that are also chunks of `b`. */
static double shared_fraction(const Chunker *c, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    guint na, nb;
    GHashTable *sa = chunk_digests(c, a, alen, &na);
    GHashTable *sb = chunk_digests(c, b, blen, &nb);
    guint shared = 0, distinct = 0;
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, sa);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        distinct++;
        shared += g_hash_table_contains(sb, key);
    }
    g_hash_table_destroy(sa);
    g_hash_table_destroy(sb);
    return distinct ? (double)shared / distinct : 0;
}

/* Insert `n` bytes at `at`. */
static uint8_t *insert_bytes(const uint8_t *buf, size_t len, size_t at, size_t n, guint32 seed)
{
    uint8_t *ins = random_buffer(n, seed);
    uint8_t *out = g_malloc(len + n);
    memcpy(out, buf, at);
    memcpy(out + at, ins, n);
    memcpy(out + at + n, buf + at, len - at);
    g_free(ins);
    return out;
}

static void test_shift_resistance(void)
{
    const size_t len = 4 << 20;
    uint8_t *buf = random_buffer(len, 43);
    uint8_t *ins = insert_bytes(buf, len, 1234, 37, 44); /* near the start */
    uint8_t *del = g_malloc(len - 100);                  /* 100 bytes gone mid-buffer */
    memcpy(del, buf, len / 2);
    memcpy(del + len / 2, buf + len / 2 + 100, len / 2 - 100);

    for (size_t a = 0; a < G_N_ELEMENTS(ALGS); a++) {
        Chunker *c = chunker_new(ALGS[a], &DEFAULT_SIZES);
        double fi = shared_fraction(c, buf, len, ins, len + 37);
        double fd = shared_fraction(c, buf, len, del, len - 100);
        printf("\n    %-7s chunks kept after insert %.1f%%, after delete %.1f%%",
               chunk_algorithm_name(ALGS[a]), 100 * fi, 100 * fd);
        if (ALGS[a] == CHUNK_FIXED) {
            CU_ASSERT_TRUE(fi < 0.10); /* every block after the insert moves */
            CU_ASSERT_TRUE(fd < 0.60); /* only the first half survives */
        } else {
            CU_ASSERT_TRUE(fi >= 0.90);
            CU_ASSERT_TRUE(fd >= 0.90);
        }
        chunker_free(c);
    }
    printf("\n");
    g_free(buf);
    g_free(ins);
    g_free(del);
}

/* ---- throughput (informational) ---- */

static void test_throughput(void)
{
    const size_t len = 64 << 20;
    uint8_t *buf = random_buffer(len, 59);
    for (size_t a = 0; a < G_N_ELEMENTS(ALGS); a++) {
        Chunker *c = chunker_new(ALGS[a], &DEFAULT_SIZES);
        double best = 0;
        size_t chunks = 0;
        for (int rep = 0; rep < 3; rep++) {
            gint64 t0 = g_get_monotonic_time();
            size_t pos = 0;
            chunks = 0;
            while (pos < len) {
                pos += chunker_next(c, buf + pos, len - pos);
                chunks++;
            }
            gint64 us = MAX(g_get_monotonic_time() - t0, 1);
            double mbs = (double)len / us; /* bytes per microsecond = MB/s */
            best = MAX(best, mbs);
        }
        if (ALGS[a] == CHUNK_FIXED) /* no per-byte work: a rate would mean nothing */
            printf("\n    %-7s (constant time per chunk, %zu chunks)", chunk_algorithm_name(ALGS[a]), chunks);
        else
            printf("\n    %-7s %8.0f MB/s (best of 3 over 64 MiB, %zu chunks)", chunk_algorithm_name(ALGS[a]), best,
                   chunks);
        CU_ASSERT_TRUE(chunks > 0);
        chunker_free(c);
    }
    printf("\n");
    g_free(buf);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunking", NULL, NULL);
    CU_add_test(s, "algorithm names parse", test_parse);
    CU_add_test(s, "chunk sizes validate", test_validate);
    CU_add_test(s, "rabin polynomial is irreducible", test_rabin_polynomial_irreducible);
    CU_add_test(s, "rabin rolling fingerprint matches long division", test_rabin_rolling_matches_reference);
    CU_add_test(s, "fastcdc cuts where the byte-at-a-time definition does", test_fastcdc_matches_reference);
    CU_add_test(s, "rabin cuts where the byte-at-a-time definition does", test_rabin_matches_reference);
    CU_add_test(s, "boundaries are deterministic", test_determinism);
    CU_add_test(s, "chunk sizes stay in bounds", test_size_bounds);
    CU_add_test(s, "average chunk size", test_average_size);
    CU_add_test(s, "shift resistance", test_shift_resistance);
    CU_add_test(s, "throughput", test_throughput);
}

UNIT_MAIN(add_suites)
