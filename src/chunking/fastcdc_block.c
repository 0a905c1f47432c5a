/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fastcdc_block.c: FastCDC over a whole block at once, with the cuts
 * fastcdc_next would make one chunk after another.
 *
 * fastcdc_next's gear hash at a tested position depends only on the 64
 * bytes ending there (it starts 64 bytes before min_size and every older
 * byte is shifted out), so whether a position may end a chunk is a
 * property of the position, not of where its chunk began. A block is cut
 * in two passes: first every position from min_size on whose hash has the
 * loose mask's bits zero (a candidate; the strict mask's bits are a
 * superset, so its cuts are among them, flagged) is found, four positions
 * at a time in the 64-bit lanes of an AVX2 register, each lane a quarter of
 * the block (no serial chain runs through the block); then the chunks are
 * walked over the candidates: the first flagged one from min_size up to the
 * normal point, else the first one up to max_size, else max_size. The
 * first pass hashes every position, where fastcdc_next skips the first
 * min_size - 64 bytes of each chunk, but four lanes take it at well over
 * the serial loop's speed. The unit test compares the cuts with
 * fastcdc_next's. */
#include "chunking/chunker_impl.h"

#include <string.h>

struct ChunkScratch {
    GArray *cand;    /* candidate positions in block order; CAND_STRICT flags the strict mask's */
    GArray *lane[4]; /* each lane's, before they are joined */
};

#define CAND_STRICT (UINT32_C(1) << 31)

ChunkScratch *chunk_scratch_new(void)
{
    ChunkScratch *s = g_new0(ChunkScratch, 1);
    s->cand = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (int l = 0; l < 4; l++)
        s->lane[l] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return s;
}

void chunk_scratch_free(ChunkScratch *s)
{
    if (s == NULL)
        return;
    g_array_unref(s->cand);
    for (int l = 0; l < 4; l++)
        g_array_unref(s->lane[l]);
    g_free(s);
}

/* Append position p to `out` if its hash h makes it a candidate. */
static inline void note(const Chunker *c, GArray *out, uint64_t h, size_t p)
{
    if (!(h & c->mask_large)) {
        uint32_t v = (uint32_t)p | (h & c->mask_small ? 0 : CAND_STRICT);
        g_array_append_val(out, v);
    }
}

/* The candidates among positions [from, to), from >= 63, one byte at a time. */
static void scan_serial(const Chunker *c, const uint8_t *buf, size_t from, size_t to, GArray *out)
{
    uint64_t h = 0;
    for (size_t i = from - 63; i < from; i++)
        h = (h << 1) + c->gear[buf[i]];
    for (size_t p = from; p < to; p++) {
        h = (h << 1) + c->gear[buf[p]];
        note(c, out, h, p);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define LANES_TARGET __attribute__((target("avx2")))

/* The gear values of the four lanes' bytes at offset j. */
LANES_TARGET static inline __m256i lane_gears(const uint64_t *gear, const uint8_t *const p[4], ptrdiff_t j)
{
    return _mm256_set_epi64x((long long)gear[p[3][j]], (long long)gear[p[2][j]], (long long)gear[p[1][j]],
                             (long long)gear[p[0][j]]);
}

/* The lanes whose hash (in h) has the loose mask's bits zero. */
LANES_TARGET static inline __m256i lane_hits(__m256i h, __m256i loose)
{
    return _mm256_cmpeq_epi64(_mm256_and_si256(h, loose), _mm256_setzero_si256());
}

/* Note the lanes `hits` marks, their hashes in h, at position p of lane 0's
 * quarter, each lane a quarter (q positions) further. */
LANES_TARGET static inline void note_lanes(const Chunker *c, ChunkScratch *s, __m256i h, __m256i hits, size_t p,
                                           size_t q)
{
    int hit = _mm256_movemask_pd(_mm256_castsi256_pd(hits));
    if (hit == 0)
        return;
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)(void *)lanes, h);
    for (int l = 0; l < 4; l++)
        if (hit & (1 << l))
            note(c, s->lane[l], lanes[l], p + (size_t)l * q);
}

/* The candidates among [from, to), from >= 63: lane l takes the l-th
 * quarter, its hash first run over the 63 bytes before it; what is left
 * over (under four positions) is taken serially. */
LANES_TARGET static void scan_lanes(const Chunker *c, ChunkScratch *s, const uint8_t *buf, size_t from, size_t to)
{
    const size_t q = (to - from) / 4;
    const uint8_t *const p[4] = { buf + from, buf + from + q, buf + from + 2 * q, buf + from + 3 * q };
    const uint64_t *gear = c->gear;
    const __m256i loose = _mm256_set1_epi64x((long long)c->mask_large);
    __m256i h = _mm256_setzero_si256();
    for (ptrdiff_t j = -63; j < 0; j++)
        h = _mm256_add_epi64(_mm256_slli_epi64(h, 1), lane_gears(gear, p, j));
    for (int l = 0; l < 4; l++)
        g_array_set_size(s->lane[l], 0);
    /* Two positions a step, tested with one branch: h after both is
     * (h << 2) + (g0 << 1) + g1, off the chain through h after the first. */
    size_t j = 0;
    for (; j + 2 <= q; j += 2) {
        __m256i g0 = lane_gears(gear, p, (ptrdiff_t)j), g1 = lane_gears(gear, p, (ptrdiff_t)j + 1);
        __m256i h0 = _mm256_add_epi64(_mm256_slli_epi64(h, 1), g0);
        h = _mm256_add_epi64(_mm256_slli_epi64(h, 2), _mm256_add_epi64(_mm256_slli_epi64(g0, 1), g1));
        __m256i e0 = lane_hits(h0, loose), e1 = lane_hits(h, loose), any = _mm256_or_si256(e0, e1);
        if (G_UNLIKELY(!_mm256_testz_si256(any, any))) {
            note_lanes(c, s, h0, e0, from + j, q);
            note_lanes(c, s, h, e1, from + j + 1, q);
        }
    }
    for (; j < q; j++) {
        h = _mm256_add_epi64(_mm256_slli_epi64(h, 1), lane_gears(gear, p, (ptrdiff_t)j));
        note_lanes(c, s, h, lane_hits(h, loose), from + j, q);
    }
    for (int l = 0; l < 4; l++)
        g_array_append_vals(s->cand, s->lane[l]->data, s->lane[l]->len);
    scan_serial(c, buf, from + 4 * q, to, s->cand);
}

static gboolean have_lanes(void)
{
    static gsize checked = 0;
    static gboolean yes = FALSE;
    if (g_once_init_enter(&checked)) {
        yes = __builtin_cpu_supports("avx2");
        g_once_init_leave(&checked, 1);
    }
    return yes;
}
#else
static gboolean have_lanes(void)
{
    return FALSE;
}
static void scan_lanes(const Chunker *c, ChunkScratch *s, const uint8_t *buf, size_t from, size_t to)
{
    (void)c, (void)s, (void)buf, (void)from, (void)to;
    g_assert_not_reached();
}
#endif

/* Positions below which the lanes do not pay for their warm-up (63 steps). */
#define LANES_FROM 4096

gboolean fastcdc_block_available(const Chunker *c, size_t len)
{
    return c->sizes.min_size >= 64 && len >= LANES_FROM && len < CAND_STRICT && have_lanes();
}

size_t fastcdc_cut_block(const Chunker *c, ChunkScratch *s, const uint8_t *buf, size_t len, gboolean at_end,
                         GArray *lengths)
{
    const size_t min = c->sizes.min_size, max = c->sizes.max_size, avg = c->sizes.avg_size;
    g_assert(fastcdc_block_available(c, len));
    g_array_set_size(s->cand, 0);
    if (len > min)
        scan_lanes(c, s, buf, min, len);
    const uint32_t *cand = (const uint32_t *)(const void *)s->cand->data;
    const guint ncand = s->cand->len;
    guint k = 0;
    size_t pos = 0;
    while (pos < len && (at_end || len - pos >= max)) {
        size_t rest = len - pos, n;
        if (rest <= min) {
            n = rest;
        } else {
            size_t end = MIN(rest, max), normal = MIN(avg, end);
            while (k < ncand && (cand[k] & ~CAND_STRICT) < pos + min)
                k++;
            /* the first strict candidate before the normal point, else the first one after it */
            guint j = k;
            while (j < ncand && (cand[j] & ~CAND_STRICT) < pos + normal && !(cand[j] & CAND_STRICT))
                j++;
            n = j < ncand && (cand[j] & ~CAND_STRICT) < pos + end ? (cand[j] & ~CAND_STRICT) + 1 - pos : end;
        }
        uint32_t v = (uint32_t)n;
        g_array_append_val(lengths, v);
        pos += n;
    }
    return pos;
}
