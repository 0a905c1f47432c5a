/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_compiled_trace.c: the compiled trace's bytes against docs/FORMAT.md
 * worked by hand, a round trip, and each consistency check of the decoder
 * (with the CRC made right, so the check itself is what refuses), for
 * version 1 (container accesses) and version 2 (chunk accesses), and
 * their timed forms, versions 3 and 4; a file written before times
 * existed still reads. */
#include "trace/compiled_trace.h"
#include "unit.h"
#include "util/error.h"
#include "util/le.h"

#include <string.h>
#include <zlib.h>

/* Job 7 (manifest checksum 0xA1B2C3D4); request 0: 5000 bytes, containers
 * 3 then 1; request 1: 0 bytes, none; request 2: 10 bytes, container 3.
 * Pool of 4 containers of 128 KiB. */
static CompiledTrace *sample(void)
{
    CompiledTrace *t = compiled_trace_new(COMPILED_TRACE_VERSION);
    t->container_size = 131072;
    t->n_containers = 4;
    CompiledTraceJob j = { 7, 0xA1B2C3D4u };
    g_array_append_val(t->jobs, j);
    uint64_t bytes[] = { 5000, 0, 10 };
    uint32_t jobs[] = { 7, 7, 7 }, counts[] = { 2, 0, 1 }, ids[] = { 3, 1, 3 };
    g_array_append_vals(t->req_bytes, bytes, 3);
    g_array_append_vals(t->req_job, jobs, 3);
    g_array_append_vals(t->req_accesses, counts, 3);
    g_array_append_vals(t->ids, ids, 3);
    return t;
}

static void test_bytes_by_hand(void)
{
    CompiledTrace *t = sample();
    GByteArray *b = g_byte_array_new();
    compiled_trace_encode(t, b);
    const uint8_t *p = b->data;
    /* 64 header + 8 per job + 16 per request + 4 per access + 4 CRC */
    CU_ASSERT_EQUAL_FATAL(b->len, 64 + 8 + 3 * 16 + 3 * 4 + 4);
    CU_ASSERT_EQUAL(memcmp(p, "DPLCCTR1", 8), 0);
    CU_ASSERT_EQUAL(le32_get(p + 8), 1);
    CU_ASSERT_EQUAL(le32_get(p + 12), 64);
    static const uint8_t zero[20];
    CU_ASSERT_EQUAL(memcmp(p + 16, zero, 16), 0); /* no store identity */
    CU_ASSERT_EQUAL(memcmp(p + 32, "\x00\x00\x02\x00", 4), 0); /* 131072, little-endian */
    CU_ASSERT_EQUAL(le32_get(p + 36), 4);
    CU_ASSERT_EQUAL(le32_get(p + 40), 1);
    CU_ASSERT_EQUAL(memcmp(p + 44, zero, 4), 0);
    CU_ASSERT_EQUAL(le64_get(p + 48), 3);
    CU_ASSERT_EQUAL(le64_get(p + 56), 3);
    CU_ASSERT_EQUAL(memcmp(p + 64, "\x07\x00\x00\x00\xD4\xC3\xB2\xA1", 8), 0);
    /* request 0 at 72: 5000 = 0x1388, job 7, 2 accesses */
    CU_ASSERT_EQUAL(memcmp(p + 72, "\x88\x13\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x02\x00\x00\x00", 16), 0);
    CU_ASSERT_EQUAL(le64_get(p + 88), 0);
    CU_ASSERT_EQUAL(le32_get(p + 100), 0);
    CU_ASSERT_EQUAL(le64_get(p + 104), 10);
    CU_ASSERT_EQUAL(le32_get(p + 116), 1);
    CU_ASSERT_EQUAL(memcmp(p + 120, "\x03\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00", 12), 0);
    CU_ASSERT_EQUAL(le32_get(p + 132), (uint32_t)crc32(0, p, 132));

    GError *err = NULL;
    CompiledTrace *d = compiled_trace_decode(p, b->len, "t.ctr", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(compiled_trace_requests(d), 3);
    CU_ASSERT_EQUAL(g_array_index(d->ids, uint32_t, 1), 1);
    CU_ASSERT_EQUAL(g_array_index(d->req_bytes, uint64_t, 0), 5000);
    CU_ASSERT_EQUAL(g_array_index(d->jobs, CompiledTraceJob, 0).manifest_checksum, 0xA1B2C3D4u);
    compiled_trace_free(d);
    compiled_trace_free(t);
    g_byte_array_unref(b);
}

/* Decode `b` after poking a u32 at `off` and fixing the CRC: must fail with
 * an INTEGRITY error whose message holds `why`. */
static void expect_refused(const GByteArray *b, size_t off, uint32_t value, const char *why)
{
    uint8_t *p = g_memdup2(b->data, b->len);
    le32_put(p + off, value);
    le32_put(p + b->len - 4, (uint32_t)crc32(0, p, b->len - 4));
    GError *err = NULL;
    CompiledTrace *t = compiled_trace_decode(p, b->len, "t.ctr", &err);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    if (err != NULL && strstr(err->message, why) == NULL)
        fprintf(stderr, "\nexpected '%s' in '%s'\n", why, err->message);
    CU_ASSERT(err != NULL && strstr(err->message, why) != NULL);
    g_clear_error(&err);
    compiled_trace_free(t);
    g_free(p);
}

static void test_checks(void)
{
    CompiledTrace *t = sample();
    GByteArray *b = g_byte_array_new();
    compiled_trace_encode(t, b);
    expect_refused(b, 8, 5, "unknown version");
    expect_refused(b, 8, 0, "unknown version");
    expect_refused(b, 8, 3, "length does not match"); /* timed, but no times */
    expect_refused(b, 44, 1, "chunk table in a container trace");
    expect_refused(b, 40, 2, "length does not match");
    expect_refused(b, 36, 3, "past the pool");            /* container 3 in a pool of 3 */
    expect_refused(b, 84, 3, "do not add up");            /* request 0: 2 -> 3 accesses */
    expect_refused(b, 116, 2, "do not add up");           /* request 2: 1 -> 2 accesses */
    expect_refused(b, 80, 8, "does not list");            /* request 0 of job 8 */
    expect_refused(b, 32, 0, "container size 0");
    expect_refused(b, 88, 5, "disagree");                /* request 1: 5 bytes from no container */
    expect_refused(b, 72, 0, "disagree");                 /* request 0: no bytes from 2 containers */
    expect_refused(b, 76, 0x80000000u, "more bytes");     /* request 0: 2^63 + 5000 bytes */
    /* a flipped bit with the CRC left alone */
    uint8_t *p = g_memdup2(b->data, b->len);
    p[120] ^= 1;
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(compiled_trace_decode(p, b->len, "t.ctr", &err));
    CU_ASSERT(err != NULL && strstr(err->message, "checksum") != NULL);
    g_clear_error(&err);
    CU_ASSERT_PTR_NULL(compiled_trace_decode(p, 40, "t.ctr", &err)); /* shorter than a header */
    g_clear_error(&err);
    g_free(p);
    compiled_trace_free(t);
    g_byte_array_unref(b);
}

/* Version 2, the same requests as chunk accesses: chunk 0 (fingerprint
 * 0xAA.., container 3, offset 100, 4096 bytes), chunk 1 (0xBB.., container
 * 1, offset 0, 2000 bytes); request 0 reads all of chunk 0 (address
 * 0x1122334455667788) and [1096, 2000) of chunk 1 (address 9); request 2
 * reads [5, 15) of chunk 0 (address 42). */
static CompiledTrace *sample_chunks(void)
{
    CompiledTrace *t = compiled_trace_new(COMPILED_TRACE_VERSION_CHUNKS);
    t->container_size = 131072;
    t->n_containers = 4;
    CompiledTraceJob j = { 7, 0xA1B2C3D4u };
    g_array_append_val(t->jobs, j);
    uint64_t bytes[] = { 5000, 0, 10 };
    uint32_t jobs[] = { 7, 7, 7 }, counts[] = { 2, 0, 1 };
    g_array_append_vals(t->req_bytes, bytes, 3);
    g_array_append_vals(t->req_job, jobs, 3);
    g_array_append_vals(t->req_accesses, counts, 3);
    ChunkRef refs[2] = { { .container = 3, .offset = 100, .length = 4096 },
                         { .container = 1, .offset = 0, .length = 2000 } };
    memset(refs[0].fp.bytes, 0xAA, sizeof refs[0].fp.bytes);
    memset(refs[1].fp.bytes, 0xBB, sizeof refs[1].fp.bytes);
    g_array_append_vals(t->chunks.chunks, refs, 2);
    ChunkTouch touches[] = { { 0, 0, 4096, 0x1122334455667788ull }, { 1, 1096, 904, 9 }, { 0, 5, 10, 42 } };
    g_array_append_vals(t->chunks.touches, touches, 3);
    return t;
}

static void test_chunks_by_hand(void)
{
    CompiledTrace *t = sample_chunks();
    GByteArray *b = g_byte_array_new();
    compiled_trace_encode(t, b);
    const uint8_t *p = b->data;
    /* 64 header + 8 per job + 16 per request + 44 per chunk + 20 per access + 4 CRC */
    CU_ASSERT_EQUAL_FATAL(b->len, 64 + 8 + 3 * 16 + 2 * 44 + 3 * 20 + 4);
    CU_ASSERT_EQUAL(memcmp(p, "DPLCCTR1", 8), 0);
    CU_ASSERT_EQUAL(le32_get(p + 8), 2);
    CU_ASSERT_EQUAL(le32_get(p + 44), 2);   /* chunk table entries */
    CU_ASSERT_EQUAL(le64_get(p + 48), 3);
    CU_ASSERT_EQUAL(le64_get(p + 56), 3);   /* chunk accesses */
    CU_ASSERT_EQUAL(le32_get(p + 84), 2);   /* request 0's accesses */
    /* chunk 0 at 120: fingerprint, container 3, offset 100, length 4096 */
    CU_ASSERT_EQUAL(p[120], 0xAA);
    CU_ASSERT_EQUAL(p[151], 0xAA);
    CU_ASSERT_EQUAL(memcmp(p + 152, "\x03\x00\x00\x00\x64\x00\x00\x00\x00\x10\x00\x00", 12), 0);
    CU_ASSERT_EQUAL(p[164], 0xBB);
    CU_ASSERT_EQUAL(le32_get(p + 196), 1);
    /* access 0 at 208: chunk 0, [0, 4096), address */
    CU_ASSERT_EQUAL(memcmp(p + 208, "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00"
                                    "\x88\x77\x66\x55\x44\x33\x22\x11", 20), 0);
    CU_ASSERT_EQUAL(le32_get(p + 228), 1);
    CU_ASSERT_EQUAL(le32_get(p + 232), 1096);
    CU_ASSERT_EQUAL(le32_get(p + 236), 904);
    CU_ASSERT_EQUAL(le64_get(p + 240), 9);
    CU_ASSERT_EQUAL(le64_get(p + 260), 42);
    CU_ASSERT_EQUAL(le32_get(p + 268), (uint32_t)crc32(0, p, 268));

    GError *err = NULL;
    CompiledTrace *d = compiled_trace_decode(p, b->len, "t.ctr", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_TRUE(compiled_trace_is_chunks(d));
    CU_ASSERT_EQUAL(d->ids->len, 0);
    CU_ASSERT_EQUAL_FATAL(d->chunks.chunks->len, 2);
    CU_ASSERT_EQUAL_FATAL(d->chunks.touches->len, 3);
    CU_ASSERT_EQUAL(memcmp(d->chunks.chunks->data, t->chunks.chunks->data, 2 * sizeof(ChunkRef)), 0);
    for (guint i = 0; i < 3; i++) { /* field by field: the struct has padding */
        const ChunkTouch *x = &g_array_index(d->chunks.touches, ChunkTouch, i),
                         *y = &g_array_index(t->chunks.touches, ChunkTouch, i);
        CU_ASSERT(x->chunk == y->chunk && x->touch_offset == y->touch_offset &&
                  x->touch_length == y->touch_length && x->address == y->address);
    }
    GByteArray *again = g_byte_array_new();
    compiled_trace_encode(d, again);
    CU_ASSERT(again->len == b->len && memcmp(again->data, b->data, b->len) == 0);
    g_byte_array_unref(again);
    compiled_trace_free(d);
    compiled_trace_free(t);
    g_byte_array_unref(b);
}

static void test_chunk_checks(void)
{
    CompiledTrace *t = sample_chunks();
    GByteArray *b = g_byte_array_new();
    compiled_trace_encode(t, b);
    expect_refused(b, 44, 3, "length does not match");      /* 3 table entries claimed */
    expect_refused(b, 36, 3, "past the pool");              /* container 3 in a pool of 3 */
    expect_refused(b, 156, 131072 - 4095, "outside its container"); /* chunk 0 past the container's end */
    expect_refused(b, 160, 0, "outside its container");     /* chunk 0 of no bytes */
    expect_refused(b, 208, 2, "does not hold");             /* access 0 names chunk 2 */
    expect_refused(b, 212, 1, "outside its chunk");         /* access 0 reads [1, 4097) */
    expect_refused(b, 236, 0, "outside its chunk");         /* access 1 reads nothing */
    expect_refused(b, 236, 903, "disagree");                /* request 0 reads 4999 bytes */
    expect_refused(b, 84, 1, "do not add up");              /* request 0: 2 -> 1 accesses */
    compiled_trace_free(t);
    g_byte_array_unref(b);
}

/* sample() as a file written before compiled traces had times (version
 * 1, 136 bytes, frozen): it still reads, untimed. */
static const uint8_t OLD_FILE[] = {
    0x44, 0x50, 0x4c, 0x43, 0x43, 0x54, 0x52, 0x31, 0x01, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0xd4, 0xc3, 0xb2, 0xa1,
    0x88, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x91, 0x88, 0xf4, 0xd1
};

static void test_old_file(void)
{
    GError *err = NULL;
    CompiledTrace *d = compiled_trace_decode(OLD_FILE, sizeof OLD_FILE, "old.ctr", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_FALSE(d->timed);
    CU_ASSERT_FALSE(compiled_trace_is_chunks(d));
    CU_ASSERT_EQUAL(d->req_time->len, 0);
    CU_ASSERT_EQUAL(compiled_trace_time(d, 2), 0);
    CU_ASSERT_EQUAL(compiled_trace_requests(d), 3);
    CU_ASSERT_EQUAL(g_array_index(d->ids, uint32_t, 2), 3);
    /* written again untimed, it is the same file */
    GByteArray *b = g_byte_array_new();
    compiled_trace_encode(d, b);
    CU_ASSERT(b->len == sizeof OLD_FILE && memcmp(b->data, OLD_FILE, sizeof OLD_FILE) == 0);
    g_byte_array_unref(b);
    compiled_trace_free(d);
}

/* Times 0, 1.5 s, 1.5 s for t's three requests. */
static void set_times(CompiledTrace *t)
{
    uint64_t times[] = { 0, 1500000000u, 1500000000u };
    g_array_append_vals(t->req_time, times, 3);
    t->timed = TRUE;
}

/* A timed trace: the version + 2, the untimed file's bytes up to its
 * CRC, then a u64 time a request, then the CRC; decoded back. */
static void check_timed(CompiledTrace *plain, uint32_t version)
{
    GByteArray *old = g_byte_array_new(), *b = g_byte_array_new();
    compiled_trace_encode(plain, old);
    set_times(plain);
    compiled_trace_encode(plain, b);
    const uint8_t *p = b->data;
    CU_ASSERT_EQUAL_FATAL(b->len, old->len + 3 * 8);
    CU_ASSERT_EQUAL(le32_get(p + 8), version);
    CU_ASSERT_EQUAL(memcmp(p + 12, old->data + 12, old->len - 4 - 12), 0);
    size_t at = old->len - 4;
    CU_ASSERT_EQUAL(le64_get(p + at), 0);
    CU_ASSERT_EQUAL(memcmp(p + at + 8, "\x00\x2f\x68\x59\x00\x00\x00\x00", 8), 0); /* 1.5e9 = 0x59682F00 */
    CU_ASSERT_EQUAL(le64_get(p + at + 16), 1500000000u);
    CU_ASSERT_EQUAL(le32_get(p + b->len - 4), (uint32_t)crc32(0, p, b->len - 4));
    GError *err = NULL;
    CompiledTrace *d = compiled_trace_decode(p, b->len, "t.ctr", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_TRUE(d->timed);
    CU_ASSERT_EQUAL(d->version, plain->version);
    CU_ASSERT_EQUAL(compiled_trace_time(d, 1), 1500000000u);
    GByteArray *again = g_byte_array_new();
    compiled_trace_encode(d, again);
    CU_ASSERT(again->len == b->len && memcmp(again->data, b->data, b->len) == 0);
    /* a time before the previous one is damage */
    expect_refused(b, at + 16, 1499999999u, "before the previous");
    expect_refused(b, at + 4, 1, "before the previous"); /* request 0 at 2^32 ns */
    g_byte_array_unref(again);
    compiled_trace_free(d);
    g_byte_array_unref(old);
    g_byte_array_unref(b);
}

static void test_timed(void)
{
    CompiledTrace *t = sample(), *c = sample_chunks();
    check_timed(t, 3);
    check_timed(c, 4);
    compiled_trace_free(t);
    compiled_trace_free(c);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("compiled_trace", NULL, NULL);
    CU_add_test(s, "bytes worked by hand, round trip", test_bytes_by_hand);
    CU_add_test(s, "each check refuses", test_checks);
    CU_add_test(s, "version 2 bytes worked by hand, round trip", test_chunks_by_hand);
    CU_add_test(s, "each version 2 check refuses", test_chunk_checks);
    CU_add_test(s, "a file of before times reads, untimed", test_old_file);
    CU_add_test(s, "versions 3 and 4: times, round trip, checks", test_timed);
}

UNIT_MAIN(add_suites)
