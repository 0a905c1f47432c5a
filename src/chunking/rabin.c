/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rabin.c: content-defined chunking with a Rabin fingerprint.
 *
 * The fingerprint of the last RABIN_WINDOW bytes is that byte string read
 * as a polynomial over GF(2), reduced modulo the irreducible RABIN_POLY.
 * Two 256-entry tables, built in rabin_init(), make sliding the window a
 * pair of lookups: one removes the outgoing byte, one reduces after the
 * incoming byte is shifted in. A chunk ends where the low log2(avg) bits of
 * the fingerprint equal a fixed non-zero magic value (so runs of zeros,
 * whose fingerprint is 0, never cut and fall back to max_size).
 *
 * Hashing restarts at every chunk, RABIN_WINDOW bytes before min_size, so
 * each decision depends only on the bytes since the previous cut and is the
 * same as a window sliding over the whole stream. */
#include "chunking/chunker_impl.h"

/* Low bits of this constant become the cut value; its low 6 bits are not
 * all zero, so the magic is never 0 for any avg >= 64. */
#define RABIN_MAGIC UINT64_C(0x2b7e151628aed2a6)

/* a(x) * x mod P, for a of degree < RABIN_DEGREE. */
static uint64_t mul_x_mod(uint64_t a)
{
    a <<= 1;
    if (a >> RABIN_DEGREE)
        a ^= RABIN_POLY;
    return a;
}

/* a(x) * x^k mod P. */
static uint64_t mul_xk_mod(uint64_t a, unsigned k)
{
    while (k--)
        a = mul_x_mod(a);
    return a;
}

void rabin_init(Chunker *c)
{
    for (unsigned t = 0; t < 256; t++) {
        /* t has degree < 8 < 53, so it is already reduced. */
        c->rabin_mod[t] = mul_xk_mod(t, RABIN_DEGREE);
        c->rabin_out[t] = mul_xk_mod(t, 8 * RABIN_WINDOW);
        c->rabin_mod2[t] = mul_xk_mod(t, RABIN_DEGREE + 8);
        c->rabin_out2[t] = mul_xk_mod(t, 8 * RABIN_WINDOW + 8);
    }
    c->rabin_mask = (uint64_t)c->sizes.avg_size - 1;
    c->rabin_magic = RABIN_MAGIC & c->rabin_mask;
}

size_t rabin_next(const Chunker *c, const uint8_t *buf, size_t len)
{
    const size_t min = c->sizes.min_size;
    const size_t max = c->sizes.max_size;
    if (len <= min)
        return len;
    const size_t end = len < max ? len : max;
    const uint64_t mask = c->rabin_mask, magic = c->rabin_magic;

    /* Fill the window with the RABIN_WINDOW bytes that end at min_size. */
    size_t i = min >= RABIN_WINDOW ? min - RABIN_WINDOW : 0;
    uint64_t fp = 0;
    for (; i < min; i++)
        fp = rabin_append(c, fp, buf[i]);

    /* Only reachable with min < RABIN_WINDOW, which validation forbids:
     * bytes before the chunk count as leading zeros, which do not change
     * the polynomial, so appending without dropping is exact. */
    for (; i < RABIN_WINDOW && i < end; i++) {
        if ((fp & mask) == magic)
            return i;
        fp = rabin_append(c, fp, buf[i]);
    }

    /* fp covers buf[i - RABIN_WINDOW, i): a cut here makes a chunk of i bytes.
     * Two bytes per step: the fingerprint after the first byte is computed
     * only for its cut test, off the chain that carries fp to the next step,
     * so every position is still tested and cuts are exactly those of the
     * byte-at-a-time loop below (the unit test compares the two). */
    for (; i + 2 <= end; i += 2) {
        if ((fp & mask) == magic)
            return i;
        const uint8_t out1 = buf[i - RABIN_WINDOW], in1 = buf[i];
        const uint8_t out2 = buf[i + 1 - RABIN_WINDOW], in2 = buf[i + 1];
        if ((rabin_slide(c, fp, out1, in1) & mask) == magic)
            return i + 1;
        fp = rabin_slide2(c, fp, out1, in1, out2, in2);
    }
    for (; i < end; i++) {
        if ((fp & mask) == magic)
            return i;
        fp = rabin_slide(c, fp, buf[i - RABIN_WINDOW], buf[i]);
    }
    return end;
}
