/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_compiled_trace.c: the compiled trace's bytes against docs/FORMAT.md
 * worked by hand, a round trip, and each consistency check of the decoder
 * (with the CRC made right, so the check itself is what refuses). */
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
    CompiledTrace *t = compiled_trace_new();
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
    expect_refused(b, 8, 2, "unknown version");
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

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("compiled_trace", NULL, NULL);
    CU_add_test(s, "bytes worked by hand, round trip", test_bytes_by_hand);
    CU_add_test(s, "each check refuses", test_checks);
}

UNIT_MAIN(add_suites)
