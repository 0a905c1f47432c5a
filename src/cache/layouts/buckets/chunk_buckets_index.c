/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_index.c: the bucket layout's in-memory index
 * (chunk_buckets_index.h). */
#include "cache/layouts/buckets/chunk_buckets_index.h"
#include "util/check.h"
#include "util/le.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static gboolean bit(const uint8_t *a, uint64_t i)
{
    return (a[i / 8] >> (i % 8)) & 1;
}

static void set_bit(uint8_t *a, uint64_t i, gboolean v)
{
    if (v)
        a[i / 8] |= (uint8_t)(1u << (i % 8));
    else
        a[i / 8] &= (uint8_t)~(1u << (i % 8));
}

static uint64_t at(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s)
{
    return (uint64_t)bucket * x->slots + s;
}

void chunk_buckets_index_init(ChunkBucketsIndex *x, uint32_t n_buckets, uint32_t slots)
{
    uint64_t n = (uint64_t)n_buckets * slots;
    x->n_buckets = n_buckets;
    x->slots = slots;
    x->prefix = g_new0(uint16_t, n);
    x->used = g_malloc0((n + 7) / 8);
    x->head = g_malloc0((n + 7) / 8);
    x->chunks = x->used_slots = 0;
}

void chunk_buckets_index_clear(ChunkBucketsIndex *x)
{
    g_free(x->prefix);
    g_free(x->used);
    g_free(x->head);
    memset(x, 0, sizeof *x);
}

uint32_t chunk_buckets_bucket_of(const ChunkBucketsIndex *x, const Fingerprint *fp)
{
    /* bytes 2..5 scaled onto [0, n_buckets): no division (Lemire's
     * multiply-shift range reduction) */
    return (uint32_t)(((uint64_t)le32_get(fp->bytes + 2) * x->n_buckets) >> 32);
}

gboolean chunk_buckets_index_used(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s)
{
    return bit(x->used, at(x, bucket, s));
}

gboolean chunk_buckets_index_head(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s)
{
    return bit(x->head, at(x, bucket, s));
}

uint32_t chunk_buckets_index_run(const ChunkBucketsIndex *x, uint32_t bucket, uint32_t s)
{
    g_assert(bit(x->head, at(x, bucket, s)));
    uint32_t n = 1;
    while (s + n < x->slots && bit(x->used, at(x, bucket, s + n)) && !bit(x->head, at(x, bucket, s + n)))
        n++;
    return n;
}

/* A bucket's sub-slots: a free one has no head bit and prefix 0; a used
 * one after a free one (or first) is a head; each sub-slot of a chunk has
 * its head's prefix. Adds its chunks and used sub-slots to the counts. */
static gboolean bucket_ok(const ChunkBucketsIndex *x, uint32_t bucket, uint64_t *chunks, uint64_t *used)
{
    for (uint32_t s = 0; s < x->slots; s++) {
        uint64_t i = at(x, bucket, s);
        gboolean u = bit(x->used, i), h = bit(x->head, i);
        gboolean starts = s == 0 || !bit(x->used, i - 1);
        if (!u ? h || x->prefix[i] != 0 : (starts && !h) || (!h && x->prefix[i] != x->prefix[i - 1]))
            return FALSE;
        *chunks += h;
        *used += u;
    }
    return TRUE;
}

gboolean chunk_buckets_index_check(const ChunkBucketsIndex *x)
{
    uint64_t chunks = 0, used = 0;
    for (uint32_t b = 0; b < x->n_buckets; b++)
        if (!bucket_ok(x, b, &chunks, &used))
            return FALSE;
    return chunks == x->chunks && used == x->used_slots;
}

void chunk_buckets_index_mark(ChunkBucketsIndex *x, uint32_t bucket, uint32_t s, uint32_t n, uint16_t p)
{
    g_assert(n >= 1 && s + n <= x->slots);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t i = at(x, bucket, s + k);
        g_assert(!bit(x->used, i));
        x->prefix[i] = p;
        set_bit(x->used, i, TRUE);
        set_bit(x->head, i, k == 0);
    }
    x->chunks++;
    x->used_slots += n;
    DESTOR_CHECK(bucket_ok(x, bucket, &(uint64_t){ 0 }, &(uint64_t){ 0 }));
}

uint32_t chunk_buckets_index_unmark(ChunkBucketsIndex *x, uint32_t bucket, uint32_t s)
{
    uint32_t n = chunk_buckets_index_run(x, bucket, s);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t i = at(x, bucket, s + k);
        x->prefix[i] = 0;
        set_bit(x->used, i, FALSE);
        set_bit(x->head, i, FALSE);
    }
    g_assert(x->chunks > 0 && x->used_slots >= n);
    x->chunks--;
    x->used_slots -= n;
    DESTOR_CHECK(bucket_ok(x, bucket, &(uint64_t){ 0 }, &(uint64_t){ 0 }));
    return n;
}

/* The prefixes are compared 8 at a time (SSE2, in every x86-64) where
 * there is SSE2, one at a time elsewhere; the head bit only on a match. */
int chunk_buckets_index_find(const ChunkBucketsIndex *x, uint32_t bucket, uint16_t p, uint32_t from)
{
    const uint16_t *pre = x->prefix + at(x, bucket, 0);
    uint32_t s = from;
#ifdef __SSE2__
    const __m128i want = _mm_set1_epi16((short)p);
    for (; s + 8 <= x->slots; s += 8) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(pre + s)), want));
        while (m != 0) {
            uint32_t k = s + (uint32_t)__builtin_ctz(m) / 2;
            if (bit(x->head, at(x, bucket, k)))
                return (int)k;
            m &= m - 1; /* the two mask bits of one slot */
            m &= m - 1;
        }
    }
#endif
    for (; s < x->slots; s++)
        if (pre[s] == p && bit(x->head, at(x, bucket, s)))
            return (int)s;
    return -1;
}

gboolean chunk_buckets_index_maybe(const ChunkBucketsIndex *x, const Fingerprint *fp)
{
    return chunk_buckets_index_find(x, chunk_buckets_bucket_of(x, fp), chunk_buckets_prefix_of(fp), 0) >= 0;
}

size_t chunk_buckets_index_bytes_of(const ChunkBucketsIndex *x)
{
    uint64_t n = (uint64_t)x->n_buckets * x->slots;
    return (size_t)(n * sizeof(uint16_t) + 2 * ((n + 7) / 8));
}
