/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_file_output.c: file_output_copy hands over exactly the bytes of a
 * range, in order, then the end mark once, whether it finds the range's
 * first chunk by walking the chunks or by binary search in their offsets
 * (file_output_chunk_starts); ranges at, across and past chunk ends, empty
 * and past the end of the file. */
#include "read/file_output.h"
#include "unit.h"

#include <string.h>

/* A chunk source whose chunk at container c, offset o holds bytes
 * (c * 7 + o + k) & 0xff, k = 0, 1, ... */
typedef struct {
    ChunkSource chunks;
    uint8_t buf[4096];
} Fake;

static const uint8_t *fake_read(ChunkSource *self, const ChunkRef *ref, GError **mismatch, GError **err)
{
    (void)mismatch;
    (void)err;
    Fake *f = (Fake *)self;
    g_assert(ref->length <= sizeof f->buf);
    for (uint32_t k = 0; k < ref->length; k++)
        f->buf[k] = (uint8_t)(ref->container * 7 + ref->offset + k);
    return f->buf;
}

typedef struct {
    GByteArray *got;
    int ends; /* the end marks seen */
} Sink;

static gboolean sink(void *ctx, const uint8_t *data, size_t len, GError **err)
{
    (void)err;
    Sink *s = ctx;
    if (data == NULL)
        s->ends++;
    else
        g_byte_array_append(s->got, data, (guint)len);
    return TRUE;
}

static void test_ranges(void)
{
    Fake fake = { .chunks = { .read = fake_read } };
    FileRecord *r = file_record_new(ENTRY_FILE, "f", 1);
    GByteArray *whole = g_byte_array_new();
    GRand *rand = g_rand_new_with_seed(40);
    for (uint32_t i = 0; i < 300; i++) {
        ChunkRef c = { .container = i / 10, .offset = 512 + i, .length = (uint32_t)g_rand_int_range(rand, 1, 4000) };
        g_array_append_val(r->chunks, c);
        for (uint32_t k = 0; k < c.length; k++) {
            uint8_t b = (uint8_t)(c.container * 7 + c.offset + k);
            g_byte_array_append(whole, &b, 1);
        }
    }
    r->size = whole->len;
    uint64_t *starts = file_output_chunk_starts(r);
    CU_ASSERT_EQUAL(starts[r->chunks->len], r->size);
    for (int t = 0; t < 2000; t++) {
        FileRange range;
        switch (t % 5) {
        case 0: /* at a chunk's start */
            range.offset = starts[g_rand_int_range(rand, 0, (gint32)r->chunks->len)];
            break;
        case 1: /* the last byte of a chunk */
            range.offset = starts[g_rand_int_range(rand, 1, (gint32)r->chunks->len + 1)] - 1;
            break;
        case 2: /* past the end */
            range.offset = r->size + (uint64_t)g_rand_int_range(rand, 0, 3);
            break;
        default:
            range.offset = (uint64_t)g_rand_int_range(rand, 0, (gint32)r->size);
        }
        range.length = t % 7 == 0 ? 0 : (uint64_t)g_rand_int_range(rand, 1, 300000);
        uint64_t a = MIN(range.offset, r->size), b = MIN(a + range.length, r->size);
        for (int indexed = 0; indexed < 2; indexed++) {
            Sink s = { .got = g_byte_array_new() };
            GError *err = NULL;
            CU_ASSERT_TRUE(file_output_copy(&fake.chunks, r, 0, &range, indexed ? starts : NULL, sink, &s,
                                            FILE_DIGEST_NONE, &err));
            CU_ASSERT_EQUAL(s.ends, 1);
            CU_ASSERT_EQUAL(s.got->len, b - a);
            CU_ASSERT_TRUE(s.got->len == b - a && (a == b || memcmp(s.got->data, whole->data + a, b - a) == 0));
            g_byte_array_unref(s.got);
        }
    }
    g_free(starts);
    g_rand_free(rand);
    g_byte_array_unref(whole);
    file_record_free(r);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("file output", NULL, NULL);
    CU_add_test(s, "ranges walked and found by binary search", test_ranges);
}

UNIT_MAIN(add_suites)
