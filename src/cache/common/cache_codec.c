/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_codec.c: the codecs of cache_codec.h on liblz4 and libzstd. */
#include "cache/common/cache_codec.h"

#include <lz4.h>
#include <string.h>
#include <zstd.h>

struct CacheCodec {
    CacheCodecKind kind;
    int level;
    ZSTD_CCtx *cctx; /* made on first use */
    ZSTD_DCtx *dctx;
};

static const char *const names[CACHE_CODEC_KINDS] = { "none", "lz4", "zstd" };

const char *cache_codec_name(CacheCodecKind kind)
{
    g_assert((unsigned)kind < CACHE_CODEC_KINDS);
    return names[kind];
}

gboolean cache_codec_parse(const char *name, CacheCodecKind *out)
{
    for (int k = 0; k < CACHE_CODEC_KINDS; k++)
        if (strcmp(name, names[k]) == 0) {
            *out = (CacheCodecKind)k;
            return TRUE;
        }
    return FALSE;
}

gboolean cache_codec_level_ok(CacheCodecKind kind, int level, const char **why)
{
    switch (kind) {
    case CACHE_CODEC_NONE:
        *why = "ssd-cache-compression none takes no level (leave it 0)";
        return level == 0;
    case CACHE_CODEC_LZ4:
        *why = "for lz4 the level is its acceleration: 0 (default, 1) to 65537";
        return level >= 0 && level <= 65537;
    case CACHE_CODEC_ZSTD:
        *why = "for zstd the level is 0 (zstd's default, 3) to 19";
        return level >= 0 && level <= 19;
    }
    *why = "unknown compression";
    return FALSE;
}

CacheCodec *cache_codec_new(CacheCodecKind kind, int level)
{
    g_assert((unsigned)kind < CACHE_CODEC_KINDS);
    CacheCodec *c = g_new0(CacheCodec, 1);
    c->kind = kind;
    c->level = level;
    return c;
}

void cache_codec_free(CacheCodec *c)
{
    if (c == NULL)
        return;
    ZSTD_freeCCtx(c->cctx);
    ZSTD_freeDCtx(c->dctx);
    g_free(c);
}

CacheCodecKind cache_codec_kind(const CacheCodec *c)
{
    return c->kind;
}

size_t cache_codec_compress(CacheCodec *c, const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
    if (cap == 0 || len == 0)
        return 0;
    switch (c->kind) {
    case CACHE_CODEC_NONE:
        return 0;
    case CACHE_CODEC_LZ4: {
        if (len > LZ4_MAX_INPUT_SIZE)
            return 0;
        int n = LZ4_compress_fast((const char *)src, (char *)dst, (int)len, (int)MIN(cap, (size_t)INT32_MAX),
                                  c->level > 0 ? c->level : 1);
        g_assert(n >= 0 && (size_t)n <= cap);
        return (size_t)n; /* 0: did not fit */
    }
    case CACHE_CODEC_ZSTD: {
        if (c->cctx == NULL && (c->cctx = ZSTD_createCCtx()) == NULL)
            return 0;
        size_t n = ZSTD_compressCCtx(c->cctx, dst, cap, src, len, c->level > 0 ? c->level : ZSTD_CLEVEL_DEFAULT);
        if (ZSTD_isError(n))
            return 0; /* dstSize_tooSmall: did not fit */
        g_assert(n > 0 && n <= cap);
        return n;
    }
    }
    return 0;
}

gboolean cache_codec_decompress(CacheCodec *c, CacheCodecKind kind, const uint8_t *src, size_t len, uint8_t *dst,
                                size_t expect)
{
    switch (kind) {
    case CACHE_CODEC_NONE:
        if (len != expect)
            return FALSE;
        memmove(dst, src, len);
        return TRUE;
    case CACHE_CODEC_LZ4: {
        if (len > INT32_MAX || expect > INT32_MAX)
            return FALSE;
        /* safe: bounded by both lengths; a negative result is damage */
        int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)len, (int)expect);
        return n >= 0 && (size_t)n == expect;
    }
    case CACHE_CODEC_ZSTD: {
        if (c->dctx == NULL && (c->dctx = ZSTD_createDCtx()) == NULL)
            return FALSE;
        unsigned long long framed = ZSTD_getFrameContentSize(src, len);
        if (framed != (unsigned long long)expect) /* also catches ERROR / UNKNOWN */
            return FALSE;
        size_t n = ZSTD_decompressDCtx(c->dctx, dst, expect, src, len);
        return !ZSTD_isError(n) && n == expect;
    }
    }
    return FALSE;
}
