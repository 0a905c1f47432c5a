/* SPDX-License-Identifier: GPL-3.0-or-later */
/* checksum.c: CRC-32 over long buffers by folding 256-bit lanes with
 * VPCLMULQDQ where the processor has it (checksum.h); libdeflate does the
 * rest, and everything on other processors.
 *
 * The fold, in the bit-reflected form every gzip CRC-32 uses: four 256-bit
 * accumulators hold eight consecutive 16-byte blocks; moving a block F bits
 * further multiplies its two 64-bit halves by x^(F+32) and x^(F-32) mod P
 * (carry-less; the constants are bit-reflected and shifted left one) and
 * adds the block found there. F is 1024 in the loop, then 256 and 128 to
 * bring the accumulators down to one block V whose raw CRC is the data's;
 * libdeflate gives V's (from a zero state), which is the CRC of all of it. */
#include "util/checksum.h"

#include <glib.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* x^n mod P (P = 0x104C11DB7), bit-reflected in 32 bits and shifted left one. */
static uint64_t fold_constant(unsigned n)
{
    uint64_t r = 1;
    for (unsigned i = 0; i < n; i++) {
        r <<= 1;
        if (r & (1ull << 32))
            r ^= 0x104C11DB7ull;
    }
    uint64_t reflected = 0;
    for (unsigned b = 0; b < 32; b++)
        if (r & (1ull << b))
            reflected |= 1ull << (31 - b);
    return reflected << 1;
}

#define FOLD_TARGET __attribute__((target("avx2,pclmul,vpclmulqdq")))

FOLD_TARGET static inline __m256i fold256(__m256i acc, __m256i k, __m256i next)
{
    __m256i lo = _mm256_clmulepi64_epi128(acc, k, 0x00), hi = _mm256_clmulepi64_epi128(acc, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(lo, hi), next);
}

/* The constants for F = 1024, 256 and 128: x^(F+32), then x^(F-32). */
static uint64_t k1024[2], k256[2], k128[2];

static void make_constants(void)
{
    k1024[0] = fold_constant(1024 + 32);
    k1024[1] = fold_constant(1024 - 32);
    k256[0] = fold_constant(256 + 32);
    k256[1] = fold_constant(256 - 32);
    k128[0] = fold_constant(128 + 32);
    k128[1] = fold_constant(128 - 32);
}

/* Both 128-bit lanes: the low half times k[0], the high half times k[1]. */
FOLD_TARGET static inline __m256i lanes(const uint64_t k[2])
{
    return _mm256_set_epi64x((long long)k[1], (long long)k[0], (long long)k[1], (long long)k[0]);
}

/* The CRC of len bytes (a multiple of 128, at least 128), continuing crc. */
FOLD_TARGET static uint32_t crc32_fold(uint32_t crc, const uint8_t *p, size_t len)
{
    g_assert(len >= 128 && len % 128 == 0);
    const __m256i *v = (const __m256i *)(const void *)p;
    __m256i y0 = _mm256_loadu_si256(v), y1 = _mm256_loadu_si256(v + 1);
    __m256i y2 = _mm256_loadu_si256(v + 2), y3 = _mm256_loadu_si256(v + 3);
    y0 = _mm256_xor_si256(y0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)~crc)); /* the state so far */
    const __m256i far = lanes(k1024), near = lanes(k256);
    const __m128i last_k = _mm_set_epi64x((long long)k128[1], (long long)k128[0]);
    for (v += 4, len -= 128; len > 0; v += 4, len -= 128) {
        y0 = fold256(y0, far, _mm256_loadu_si256(v));
        y1 = fold256(y1, far, _mm256_loadu_si256(v + 1));
        y2 = fold256(y2, far, _mm256_loadu_si256(v + 2));
        y3 = fold256(y3, far, _mm256_loadu_si256(v + 3));
    }
    y3 = fold256(fold256(fold256(y0, near, y1), near, y2), near, y3);
    __m128i first = _mm256_castsi256_si128(y3), last = _mm256_extracti128_si256(y3, 1);
    __m128i folded = _mm_xor_si128(_mm_clmulepi64_si128(first, last_k, 0x00), _mm_clmulepi64_si128(first, last_k, 0x11));
    uint8_t block[16];
    _mm_storeu_si128((__m128i *)(void *)block, _mm_xor_si128(folded, last));
    return libdeflate_crc32(0xFFFFFFFFu, block, sizeof block); /* from the zero state */
}

/* Asked once: does the processor (and the system, for the AVX state) fold? */
static gboolean can_fold(void)
{
    static gsize state = 0; /* 1: no, 2: yes */
    if (g_once_init_enter(&state)) {
        gboolean yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
                       __builtin_cpu_supports("vpclmulqdq");
        if (yes)
            make_constants();
        g_once_init_leave(&state, yes ? 2 : 1);
    }
    return state == 2;
}
#endif

/* Shorter buffers go to libdeflate whole: the fold's three last steps and
 * its 16-byte tail cost about what two of its 128-byte rounds save. */
#define FOLD_MIN 256u

uint32_t checksum_crc32(uint32_t crc, const void *p, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (len >= FOLD_MIN && can_fold()) {
        size_t bulk = len & ~(size_t)127;
        crc = crc32_fold(crc, p, bulk);
        p = (const uint8_t *)p + bulk;
        len -= bulk;
    }
#endif
    return libdeflate_crc32(crc, p, len);
}
