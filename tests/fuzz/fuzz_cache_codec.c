/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_cache_codec.c: the SSD cache's decompression path
 * (cache_codec_decompress), on hostile blocks and on damaged real ones.
 *
 * Input: a mode byte, then bytes. Mode bits 0-1 pick the codec (0 and 3:
 * lz4, 1: zstd, 2: none); bits 2-7 pick the expected length (64 bytes to
 * 64 KiB, or the input's own length). Two runs per input:
 *   1. the bytes as a compressed block: decompression into exactly the
 *      expected length either fails or fills it, never writes past it
 *      (the output sits in a buffer of exactly that size, so ASan sees an
 *      overrun);
 *   2. the bytes compressed for real, then damaged where the input says
 *      (the last 8 bytes, as positions and xor masks; or truncated): the
 *      same must hold, and an undamaged block must decode to the bytes. */
#include "fuzz_util.h"

#include "cache/common/cache_codec.h"

static size_t expected_length(uint8_t mode, size_t n)
{
    unsigned sel = mode >> 2; /* 0..63 */
    return sel == 63 ? n : (size_t)64 << (sel % 11);
}

static void decode_at_most(CacheCodec *c, CacheCodecKind kind, const uint8_t *src, size_t len, size_t expect)
{
    uint8_t *out = g_malloc(expect ? expect : 1);
    if (cache_codec_decompress(c, kind, src, len, out, expect)) {
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < expect; i++) /* every byte of it was written */
            sink ^= out[i];
        (void)sink;
    }
    g_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    const uint8_t *body = data + 1;
    size_t n = size - 1;
    static const CacheCodecKind kinds[4] = { CACHE_CODEC_LZ4, CACHE_CODEC_ZSTD, CACHE_CODEC_NONE, CACHE_CODEC_LZ4 };
    CacheCodecKind kind = kinds[mode & 3];
    CacheCodec *c = cache_codec_new(kind, 0);

    /* 1: a hostile block; exact-size copy so ASan sees reads past it */
    uint8_t *block = g_malloc(n ? n : 1);
    memcpy(block, body, n);
    decode_at_most(c, kind, block, n, expected_length(mode, n));
    g_free(block);

    /* 2: a real block, damaged */
    size_t cap = n + n / 8 + 1024;
    uint8_t *packed = g_malloc(cap);
    size_t clen = cache_codec_compress(c, body, n, packed, cap);
    if (clen > 0) {
        uint8_t *round = g_malloc(n ? n : 1);
        if (!cache_codec_decompress(c, kind, packed, clen, round, n) || memcmp(round, body, n) != 0)
            abort(); /* an undamaged block must give the bytes back */
        g_free(round);
        uint8_t *damaged = g_memdup2(packed, clen);
        size_t dlen = clen;
        if (n >= 8) {
            for (int i = 0; i < 4; i++) {
                size_t at = ((size_t)body[n - 8 + 2 * i] << 8 | body[n - 7 + 2 * i]) % clen;
                damaged[at] ^= (uint8_t)(body[n - 7 + 2 * i] | 1);
            }
            if (body[n - 1] & 0x80)
                dlen = clen - 1 - (body[n - 2] % clen);
        }
        decode_at_most(c, kind, damaged, dlen, n);
        g_free(damaged);
    }
    g_free(packed);
    cache_codec_free(c);
    return 0;
}
