/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunker_impl.h: what chunker.c shares with the per-algorithm files.
 *
 * The Chunker struct is defined here (not in chunker.h) so callers only see
 * an opaque handle, while rabin.c, fastcdc.c, fixed.c and the unit test can
 * reach the precomputed tables. Nothing here is part of the public API. */
#ifndef DESTOR_CHUNKER_IMPL_H
#define DESTOR_CHUNKER_IMPL_H

#include "chunking/chunker.h"

/* Rabin: an irreducible polynomial over GF(2) of degree 53, bit i being the
 * coefficient of x^i (found by a seeded search and checked with Rabin's
 * irreducibility test; the unit test checks it again). */
#define RABIN_POLY UINT64_C(0x38cb79a37b51b9)
#define RABIN_DEGREE 53
#define RABIN_WINDOW 48 /* bytes in the sliding window */

/* Gear hash: the table comes from splitmix64 seeded with this constant. */
#define GEAR_SEED UINT64_C(0x6a09e667f3bcc908)
/* Normalized chunking level: the mask before the normal point has
 * log2(avg) + level bits, the one after it log2(avg) - level bits. */
#define FASTCDC_NORMALIZATION 2

struct Chunker {
    ChunkAlgorithm alg;
    ChunkSizes sizes;
    /* rabin */
    uint64_t rabin_mod[256]; /* t(x) * x^53 mod P for the top byte t */
    uint64_t rabin_out[256]; /* b(x) * x^(8*RABIN_WINDOW) mod P */
    uint64_t rabin_mod2[256]; /* t(x) * x^61 mod P: the top byte, two bytes on */
    uint64_t rabin_out2[256]; /* b(x) * x^(8*RABIN_WINDOW + 8) mod P */
    uint64_t rabin_mask;     /* avg - 1 */
    uint64_t rabin_magic;    /* cut when (fp & mask) == magic */
    /* fastcdc */
    uint64_t gear[256];
    uint64_t mask_small; /* stricter, used before the normal point */
    uint64_t mask_large; /* looser, used after it */
};

/* Append byte `in` to the polynomial `fp` (degree < 53): (fp * x^8 + in) mod P.
 * The top byte of fp * x^8 is fp >> 45, so the table index does not wait
 * for the shift. */
static inline uint64_t rabin_append(const Chunker *c, uint64_t fp, uint8_t in)
{
    return (((fp << 8) | in) & ((UINT64_C(1) << RABIN_DEGREE) - 1)) ^
           c->rabin_mod[fp >> (RABIN_DEGREE - 8)];
}

/* Slide the window one byte: append `in` and drop `out`, the byte
 * RABIN_WINDOW positions before `in`. Reduction is linear, so the outgoing
 * byte is removed after the append, off the critical path. */
static inline uint64_t rabin_slide(const Chunker *c, uint64_t fp, uint8_t out, uint8_t in)
{
    uint64_t low = (((fp << 8) | in) & ((UINT64_C(1) << RABIN_DEGREE) - 1)) ^ c->rabin_out[out];
    return low ^ c->rabin_mod[fp >> (RABIN_DEGREE - 8)];
}

/* Slide the window two bytes in one step: append in1 then in2, dropping
 * out1 then out2. The same value as two rabin_slide calls (the polynomial
 * is reduced either way), but the chain through fp is one shift, two
 * independent lookups and the XORs, for two bytes: fp * x^16 folds its top
 * 16 bits, as top byte * x^61 + next byte * x^53, back below degree 53. */
static inline uint64_t rabin_slide2(const Chunker *c, uint64_t fp, uint8_t out1, uint8_t in1, uint8_t out2,
                                    uint8_t in2)
{
    uint64_t low = (((fp << 16) | ((uint64_t)in1 << 8) | in2) & ((UINT64_C(1) << RABIN_DEGREE) - 1)) ^
                   c->rabin_out2[out1] ^ c->rabin_out[out2];
    return low ^ c->rabin_mod2[fp >> (RABIN_DEGREE - 8)] ^ c->rabin_mod[(fp >> (RABIN_DEGREE - 16)) & 0xff];
}

void rabin_init(Chunker *c);
size_t rabin_next(const Chunker *c, const uint8_t *buf, size_t len);

void fastcdc_init(Chunker *c);
size_t fastcdc_next(const Chunker *c, const uint8_t *buf, size_t len);

size_t fixed_next(const Chunker *c, const uint8_t *buf, size_t len);

#endif
