/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_codec.h: compression of what the SSD cache writes
 * (ssd-cache-compression none | lz4 | zstd), about buffers alone so that any
 * cached object (a container today, a chunk later) uses the same code.
 *
 * Compressing fills a bounded output: the caller says how many bytes the
 * result may take to be worth storing (the container cache: one 4 KiB SSD
 * page less than the raw copy), and a result that does not fit comes back
 * as 0, meaning "store it as it is". Decompressing takes the length the
 * bytes must decode to and fails (never overruns, never returns a short
 * result) when the input is damaged or decodes to any other length; the
 * caller then checks the decoded bytes' own checksum.
 *
 * The level: zstd's compression level (1..ZSTD_maxCLevel(), 0 = zstd's
 * default, 3); for lz4 it is lz4's acceleration (1 = LZ4_compress_default,
 * higher is faster and compresses less); none takes no level. */
#ifndef DESTOR_CACHE_CODEC_H
#define DESTOR_CACHE_CODEC_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    CACHE_CODEC_NONE = 0,
    CACHE_CODEC_LZ4 = 1,
    CACHE_CODEC_ZSTD = 2,
} CacheCodecKind;
#define CACHE_CODEC_KINDS 3

/* "none", "lz4", "zstd" */
const char *cache_codec_name(CacheCodecKind kind);
/* FALSE for any other name. */
gboolean cache_codec_parse(const char *name, CacheCodecKind *out);
/* Is `level` meaningful for `kind`? *why says what is allowed when not. */
gboolean cache_codec_level_ok(CacheCodecKind kind, int level, const char **why);

/* A compressor/decompressor with its reusable contexts (zstd's); one per
 * thread, or used under the caller's lock. */
typedef struct CacheCodec CacheCodec;

CacheCodec *cache_codec_new(CacheCodecKind kind, int level);
void cache_codec_free(CacheCodec *c);
CacheCodecKind cache_codec_kind(const CacheCodec *c);

/* Compress src[0..len) into dst, at most cap bytes. Returns the compressed
 * length (1..cap), or 0 when the result would not fit in cap (or the kind
 * is none): store the data as it is. */
size_t cache_codec_compress(CacheCodec *c, const uint8_t *src, size_t len, uint8_t *dst, size_t cap);

/* Decompress src[0..len), compressed with `kind` (whatever c's own kind:
 * the stored object says), into exactly `expect` bytes at dst. FALSE when
 * the input is damaged, truncated, or decodes to another length. */
gboolean cache_codec_decompress(CacheCodec *c, CacheCodecKind kind, const uint8_t *src, size_t len, uint8_t *dst,
                                size_t expect);

#endif
