/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_segmenting.c: Destor's segmenting rules (index/segmenting.c) over
 * streams of real SHA-1 fingerprints: fixed cuts every N chunks across
 * files; content-defined segments are never shorter than min nor longer
 * than max (all but the stream's last), each one cut short of max ends
 * before a chunk whose fingerprint passes the modulus test, its cuts are
 * the same on every run and come back in step after an insertion;
 * file-defined cuts at each file's end and at max. */
#include "index/sampling.h"
#include "index/segmenting.h"
#include "unit.h"

#define STREAM 20000

static Fingerprint fp_of(uint32_t i)
{
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, &i, sizeof i, &fp);
    return fp;
}

/* Lengths of the segments of chunks first..first+n-1 (ids), a file ending
 * after every file_len chunks (0: one file); the last, unfinished
 * segment's too. */
static GArray *cut(const SegmentParams *p, uint32_t first, guint n, guint file_len)
{
    Segmenter s;
    segmenter_init(&s, p, 20);
    GArray *lens = g_array_new(FALSE, FALSE, sizeof(guint));
    guint open = 0;
    for (guint i = 0; i < n; i++) {
        Fingerprint fp = fp_of(first + i);
        switch (segmenter_chunk(&s, &fp)) {
        case SEGMENT_CUT_NONE:
            open++;
            break;
        case SEGMENT_CUT_BEFORE:
            g_array_append_val(lens, open);
            open = 1;
            break;
        case SEGMENT_CUT_AFTER:
            open++;
            g_array_append_val(lens, open);
            open = 0;
            break;
        }
        if (file_len > 0 && (i + 1) % file_len == 0 && segmenter_file_end(&s)) {
            g_array_append_val(lens, open);
            open = 0;
        }
    }
    if (open > 0)
        g_array_append_val(lens, open);
    return lens;
}

static guint total(const GArray *lens)
{
    guint t = 0;
    for (guint i = 0; i < lens->len; i++)
        t += g_array_index(lens, guint, i);
    return t;
}

static void test_fixed(void)
{
    SegmentParams p = { .algorithm = SEGMENT_FIXED, .size = 1024, .min = 128, .max = 10240 };
    GArray *lens = cut(&p, 0, STREAM, 100); /* files do not cut fixed segments */
    CU_ASSERT_EQUAL(total(lens), STREAM);
    CU_ASSERT_EQUAL(lens->len, (STREAM + 1023) / 1024);
    for (guint i = 0; i + 1 < lens->len; i++)
        CU_ASSERT_EQUAL(g_array_index(lens, guint, i), 1024);
    g_array_unref(lens);
}

static void test_content_defined(void)
{
    SegmentParams p = { .algorithm = SEGMENT_CONTENT_DEFINED, .size = 64, .min = 16, .max = 200 };
    GArray *lens = cut(&p, 0, STREAM, 37); /* nor content-defined ones */
    CU_ASSERT_EQUAL(total(lens), STREAM);
    guint at = 0, short_ones = 0;
    for (guint i = 0; i + 1 < lens->len; i++) {
        guint len = g_array_index(lens, guint, i);
        CU_ASSERT_TRUE(len >= p.min && len <= p.max);
        at += len;
        if (len < p.max) { /* ended before an anchor: the next segment's first chunk */
            Fingerprint next = fp_of(at);
            CU_ASSERT_EQUAL(sampling_fp_value(&next, 20) % p.size, 0);
            short_ones++;
        }
    }
    /* about min + size chunks on average: most end at an anchor, not at max */
    CU_ASSERT_TRUE(short_ones > lens->len / 2);
    CU_ASSERT_TRUE(lens->len > STREAM / (p.min + 3 * p.size) && lens->len < STREAM / p.min);
    /* deterministic */
    GArray *again = cut(&p, 0, STREAM, 0);
    CU_ASSERT_EQUAL(again->len, lens->len);
    CU_ASSERT_EQUAL(memcmp(again->data, lens->data, lens->len * sizeof(guint)), 0);
    g_array_unref(again);
    /* an edit at the front: the cuts fall back in step (same chunk ids) */
    GArray *shifted = cut(&p, 5, STREAM - 5, 0);
    GHashTable *ends = g_hash_table_new(g_direct_hash, g_direct_equal);
    at = 0;
    for (guint i = 0; i < lens->len; i++)
        g_hash_table_add(ends, GUINT_TO_POINTER((at += g_array_index(lens, guint, i))));
    guint shared = 0;
    at = 5;
    for (guint i = 0; i < shifted->len; i++)
        shared += g_hash_table_contains(ends, GUINT_TO_POINTER((at += g_array_index(shifted, guint, i))));
    CU_ASSERT_TRUE(shared + 3 >= shifted->len);
    g_hash_table_unref(ends);
    g_array_unref(shifted);
    g_array_unref(lens);
}

static void test_content_defined_extremes(void)
{
    /* max 1: every chunk a segment; min = max: every segment max long */
    SegmentParams one = { .algorithm = SEGMENT_CONTENT_DEFINED, .size = 2, .min = 0, .max = 1 };
    GArray *lens = cut(&one, 0, 500, 0);
    CU_ASSERT_EQUAL(lens->len, 500);
    g_array_unref(lens);
    SegmentParams even = { .algorithm = SEGMENT_CONTENT_DEFINED, .size = 1, .min = 7, .max = 7 };
    lens = cut(&even, 0, 700, 0);
    CU_ASSERT_EQUAL(lens->len, 100);
    for (guint i = 0; i < lens->len; i++)
        CU_ASSERT_EQUAL(g_array_index(lens, guint, i), 7);
    g_array_unref(lens);
}

static void test_file_defined(void)
{
    SegmentParams p = { .algorithm = SEGMENT_FILE_DEFINED, .size = 1024, .min = 0, .max = 40 };
    GArray *lens = cut(&p, 0, 1000, 100); /* files of 100 chunks: 40, 40, 20 each */
    CU_ASSERT_EQUAL(total(lens), 1000);
    CU_ASSERT_EQUAL(lens->len, 30);
    for (guint i = 0; i < lens->len; i++)
        CU_ASSERT_EQUAL(g_array_index(lens, guint, i), i % 3 == 2 ? 20u : 40u);
    g_array_unref(lens);
    Segmenter s;
    segmenter_init(&s, &p, 20);
    CU_ASSERT_FALSE(segmenter_file_end(&s)); /* an empty file ends no segment */
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("segmenting", NULL, NULL);
    CU_add_test(s, "fixed: every N chunks, across files", test_fixed);
    CU_add_test(s, "content-defined: bounded, anchored, deterministic", test_content_defined);
    CU_add_test(s, "content-defined: min and max at their extremes", test_content_defined_extremes);
    CU_add_test(s, "file-defined: each file, cut at max", test_file_defined);
}

UNIT_MAIN(add_suites)
