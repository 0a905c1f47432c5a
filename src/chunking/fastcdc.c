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

    /* After adding buf[i], a cut makes a chunk of i + 1 bytes. The loops
     * are unrolled by four to halve the loop overhead per byte. */
#define GEAR_STEP(k, mask)                      \
    do {                                        \
        h = (h << 1) + gear[buf[i + (k)]];      \
        if (!(h & (mask)))                      \
            return i + (k) + 1;                 \
    } while (0)
    for (; i + 4 <= normal; i += 4) {
        GEAR_STEP(0, mask_small);
        GEAR_STEP(1, mask_small);
        GEAR_STEP(2, mask_small);
        GEAR_STEP(3, mask_small);
    }
    for (; i < normal; i++)
        GEAR_STEP(0, mask_small);
    for (; i + 4 <= end; i += 4) {
        GEAR_STEP(0, mask_large);
        GEAR_STEP(1, mask_large);
        GEAR_STEP(2, mask_large);
        GEAR_STEP(3, mask_large);
    }
    for (; i < end; i++)
        GEAR_STEP(0, mask_large);
#undef GEAR_STEP
    return end;
}
