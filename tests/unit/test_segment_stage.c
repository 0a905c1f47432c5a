/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_segment_stage.c: the segment buffer (backup/segment_stage.c) over
 * random streams of files and chunks, with each segmenting rule: what it
 * hands on is the stream itself (every chunk once, in stream order, its
 * data intact, its reference in its own file's list at its place; every
 * entry once, in order, after all of its chunks), each announced segment
 * is exactly the chunks handed on after it and before the next, segments
 * keep to the rule's bounds, and nothing is held after the flush. The
 * files' records are freed as soon as they are handed in, as backup's
 * store stage does. */
#include "backup/segment_stage.h"
#include "unit.h"

#include <string.h>

typedef struct {
    GArray *segments;   /* guint: announced lengths */
    guint announced;    /* chunks announced not yet handed on */
    guint chunks;       /* chunks handed on */
    GPtrArray *entries; /* FileRecord shares, in the order handed on */
    gboolean order_ok;
} Seen;

static Fingerprint fp_of(uint32_t i)
{
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, &i, sizeof i, &fp);
    return fp;
}

static gboolean on_segment(void *ctx, const Fingerprint *fps, guint n, GError **err)
{
    (void)err;
    Seen *s = ctx;
    s->order_ok &= s->announced == 0 && n > 0;
    for (guint i = 0; i < n; i++)
        s->order_ok &= memcmp(&fps[i], &(Fingerprint){ 0 }, sizeof fps[i]) != 0;
    g_array_append_val(s->segments, n);
    s->announced = n;
    return TRUE;
}

/* Chunk k of the stream is fp_of(k) with 1 + k % 50 bytes of value k % 251. */
static gboolean on_chunk(void *ctx, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                         GError **err)
{
    (void)err;
    Seen *s = ctx;
    guint k = s->chunks++;
    Fingerprint want = fp_of(k);
    s->order_ok &= s->announced > 0 && memcmp(fp, &want, sizeof want) == 0 && len == 1 + k % 50;
    for (size_t i = 0; i < len; i++)
        s->order_ok &= data[i] == k % 251;
    s->announced--;
    ChunkRef ref = { .fp = *fp, .container = k, .length = (uint32_t)len };
    g_array_append_val(r->chunks, ref);
    return TRUE;
}

static gboolean on_entry(void *ctx, const FileRecord *r, GError **err)
{
    (void)err;
    Seen *s = ctx;
    g_ptr_array_add(s->entries, file_record_share(r));
    return TRUE;
}

static void run(const SegmentParams *p, guint seed)
{
    GRand *rng = g_rand_new_with_seed(seed);
    Seen seen = { g_array_new(FALSE, FALSE, sizeof(guint)), 0, 0,
                  g_ptr_array_new_with_free_func((GDestroyNotify)file_record_free), TRUE };
    SegmentSink sink = { on_segment, on_chunk, on_entry, &seen };
    SegmentStage *st = segment_stage_new(p, 20, &sink);
    GError *err = NULL;
    guint k = 0, files = 200;
    GArray *file_chunks = g_array_new(FALSE, FALSE, sizeof(guint)); /* first chunk, count per entry */
    for (guint f = 0; f < files; f++) {
        char name[16];
        g_snprintf(name, sizeof name, "f%u", f);
        gboolean dir = g_rand_int_range(rng, 0, 10) == 0;
        FileRecord *r = file_record_new(dir ? ENTRY_DIR : ENTRY_FILE, name, strlen(name));
        guint n = dir ? 0 : (guint)g_rand_int_range(rng, 0, 60);
        g_array_append_val(file_chunks, k);
        g_array_append_val(file_chunks, n);
        for (guint i = 0; i < n; i++, k++) {
            uint8_t data[50];
            memset(data, k % 251, sizeof data);
            Fingerprint fp = fp_of(k);
            CU_ASSERT_TRUE(segment_stage_add_chunk(st, r, &fp, data, 1 + k % 50, &err));
        }
        CU_ASSERT_TRUE(segment_stage_add_entry(st, r, &err));
        file_record_free(r); /* the store stage frees it at once */
    }
    CU_ASSERT_TRUE(segment_stage_flush(st, &err));
    CU_ASSERT_TRUE(seen.order_ok);
    CU_ASSERT_EQUAL(seen.chunks, k);
    CU_ASSERT_EQUAL(seen.announced, 0);
    CU_ASSERT_EQUAL_FATAL(seen.entries->len, files);
    for (guint f = 0; f < files; f++) {
        const FileRecord *r = g_ptr_array_index(seen.entries, f);
        guint first = g_array_index(file_chunks, guint, 2 * f), n = g_array_index(file_chunks, guint, 2 * f + 1);
        char name[16];
        g_snprintf(name, sizeof name, "f%u", f);
        CU_ASSERT_TRUE(r->path->len == strlen(name) && memcmp(r->path->data, name, r->path->len) == 0);
        CU_ASSERT_EQUAL_FATAL(r->chunks->len, n);
        for (guint i = 0; i < n; i++)
            CU_ASSERT_EQUAL(g_array_index(r->chunks, ChunkRef, i).container, first + i);
    }
    guint sum = 0;
    for (guint i = 0; i < seen.segments->len; i++) {
        guint len = g_array_index(seen.segments, guint, i);
        sum += len;
        if (p->algorithm == SEGMENT_FIXED && i + 1 < seen.segments->len)
            CU_ASSERT_EQUAL(len, p->size);
        if (p->algorithm == SEGMENT_CONTENT_DEFINED && i + 1 < seen.segments->len)
            CU_ASSERT_TRUE(len >= p->min && len <= p->max);
        if (p->algorithm == SEGMENT_FILE_DEFINED)
            CU_ASSERT_TRUE(len <= p->max && len < 60); /* no file's chunks join another's */
    }
    CU_ASSERT_EQUAL(sum, k);
    segment_stage_free(st);
    g_array_unref(file_chunks);
    g_array_unref(seen.segments);
    g_ptr_array_unref(seen.entries);
    g_rand_free(rng);
}

static void test_fixed(void)
{
    for (guint seed = 1; seed <= 5; seed++) {
        run(&(SegmentParams){ .algorithm = SEGMENT_FIXED, .size = 1 + seed * 37, .min = 0, .max = 10 }, seed);
        run(&(SegmentParams){ .algorithm = SEGMENT_FIXED, .size = 1, .min = 0, .max = 10 }, seed);
    }
}

static void test_content_defined(void)
{
    for (guint seed = 1; seed <= 5; seed++)
        run(&(SegmentParams){ .algorithm = SEGMENT_CONTENT_DEFINED, .size = 16, .min = seed, .max = 40 * seed },
            seed);
}

static void test_file_defined(void)
{
    for (guint seed = 1; seed <= 5; seed++)
        run(&(SegmentParams){ .algorithm = SEGMENT_FILE_DEFINED, .size = 1024, .min = 0, .max = 7 * seed }, seed);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("segment_stage", NULL, NULL);
    CU_add_test(s, "fixed segments hand the stream on in order", test_fixed);
    CU_add_test(s, "content-defined segments hand the stream on in order", test_content_defined);
    CU_add_test(s, "file-defined segments hand the stream on in order", test_file_defined);
}

UNIT_MAIN(add_suites)
