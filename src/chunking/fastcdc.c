/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fastcdc.c: gear-hash content-defined chunking with normalized chunking.
 *
 * The gear hash h = (h << 1) + gear[byte] forgets a byte after 64 steps, so
 * its top bits depend on the last 64 bytes only: a rolling hash with no
 * outgoing-byte work. A chunk ends where the masked top bits of h are all
 * zero. Normalized chunking (level 2) uses a mask with log2(avg)+2 bits
 * before the normal point (avg bytes) and one with log2(avg)-2 bits after,
 * which narrows the chunk-size distribution around avg.
 *
 * Hashing restarts 64 bytes before min_size at every chunk, which yields the
 * same hash values as hashing the whole stream, while the cut decision still
 * depends only on the bytes since the previous cut. The gear table is our
 * own: splitmix64 output from the fixed seed GEAR_SEED. */
#include "chunking/chunker_impl.h"

#define GEAR_SPAN 64 /* bytes that influence the gear hash */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A mask of the top `bits` bits of a 64-bit word. */
static uint64_t top_mask(unsigned bits)
{
    if (bits == 0)
        return 0;
    if (bits >= 64)
        return UINT64_MAX;
    return UINT64_MAX << (64 - bits);
}

void fastcdc_init(Chunker *c)
{
    uint64_t state = GEAR_SEED;
    for (unsigned i = 0; i < 256; i++)
        c->gear[i] = splitmix64(&state);

    unsigned bits = 0;
    while (((size_t)1 << bits) < c->sizes.avg_size)
        bits++;
    unsigned loose = bits > FASTCDC_NORMALIZATION ? bits - FASTCDC_NORMALIZATION : 1;
    c->mask_small = top_mask(bits + FASTCDC_NORMALIZATION);
    c->mask_large = top_mask(loose);
}

size_t fastcdc_next(const Chunker *c, const uint8_t *buf, size_t len)
{
    const size_t min = c->sizes.min_size;
    const size_t max = c->sizes.max_size;
    if (len <= min)
        return len;
    const size_t end = len < max ? len : max;
    const size_t normal = c->sizes.avg_size < end ? c->sizes.avg_size : end;
    const uint64_t *gear = c->gear;
    const uint64_t mask_small = c->mask_small, mask_large = c->mask_large;

    size_t i = min >= GEAR_SPAN ? min - GEAR_SPAN : 0;
    uint64_t h = 0;
    for (; i < min; i++)
        h = (h << 1) + gear[buf[i]];

    /* After adding buf[i], a cut makes a chunk of i + 1 bytes. The hash is
     * a serial chain (shift, add) per byte; to shorten it, four bytes are
     * taken at a time: h after the k-th of them is (h << k) + t[k-1], where
     * t folds the four gear values together without waiting for h. The
     * chain through h is then one shift and one add per four bytes, and
     * each position is still tested, so cuts are exactly those of the
     * byte-at-a-time loop (the unit test compares the two). */
#define GEAR_STEP(mask)                         \
    do {                                        \
        h = (h << 1) + gear[buf[i]];            \
        if (!(h & (mask)))                      \
            return i + 1;                       \
    } while (0)
#define GEAR_QUAD(mask)                                                   \
    do {                                                                  \
        const uint64_t g0 = gear[buf[i]], g1 = gear[buf[i + 1]];          \
        const uint64_t g2 = gear[buf[i + 2]], g3 = gear[buf[i + 3]];      \
        const uint64_t t1 = (g0 << 1) + g1, t2 = (t1 << 1) + g2;          \
        const uint64_t t3 = (t2 << 1) + g3;                               \
        if (!(((h << 1) + g0) & (mask)))                                  \
            return i + 1;                                                 \
        if (!(((h << 2) + t1) & (mask)))                                  \
            return i + 2;                                                 \
        if (!(((h << 3) + t2) & (mask)))                                  \
            return i + 3;                                                 \
        h = (h << 4) + t3;                                                \
        if (!(h & (mask)))                                                \
            return i + 4;                                                 \
    } while (0)
    for (; i + 4 <= normal; i += 4)
        GEAR_QUAD(mask_small);
    for (; i < normal; i++)
        GEAR_STEP(mask_small);
    for (; i + 4 <= end; i += 4)
        GEAR_QUAD(mask_large);
    for (; i < end; i++)
        GEAR_STEP(mask_large);
#undef GEAR_QUAD
#undef GEAR_STEP
    return end;
}
