/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_format.h: the chunk log's on-SSD formats (docs/FORMAT.md,
 * "Chunk log"), all little-endian, kept apart from the log's logic so the
 * unit tests can build and damage them byte by byte.
 *
 * A segment (segment_size bytes, written whole):
 *    0  magic "DPLCCLG1"          8  version u32 (3)
 *   12  flags u32 (0)            16  store identity, 16 bytes
 *   32  sequence number u64 (the order segments were written in, from 1)
 *   40  segment_size u32         44  n_entries u32
 *   48  data_end u32 (the chunks' bytes are at [64, data_end))
 *   52  fingerprint algorithm u32 (fingerprint.h)
 *   56  compression u32 (cache_codec.h: the log's ssd-cache-compression)
 *   60  crc32 (zlib) of bytes 0..59 and the table
 *   64  the chunks' stored bytes, packed
 *   ... zeros
 *   segment_size - 48 * n_entries: the entry table, one 48-byte entry per
 *       chunk: fingerprint (32 bytes, zero-padded), offset u32, length u32
 *       (the chunk's bytes), stored u32 (its bytes in the segment: equal to
 *       length when stored as it is, less when compressed with the
 *       segment's compression), check u32 (crc32 (zlib) of the chunk's
 *       length bytes, decoded: what a hit is checked against)
 *
 * chunklog.meta (replaced atomically; written at open marked in use with
 * no chunks, and at a clean close with the index):
 *    0  magic "DPLCCLM1"          8  version u32 (3)
 *   12  flags u32 (bit 0: clean close)
 *   16  store identity, 16 bytes 32  segment_size u32
 *   36  n_segments u32           40  fingerprint algorithm u32
 *   44  n_chunks u32             48  next sequence number u64
 *   56  compression u32          60  zero u32
 *   64  n_segments x 8: the segment's sequence number u64 (0: free)
 *   then n_chunks x 52: fingerprint (32), segment u32, offset u32, length u32,
 *       stored u32, check u32
 *   crc32 (zlib) u32 of everything before it
 *
 * Version 1 (before compression) had no stored length (40-byte table
 * entries, 44-byte meta entries) and zero at 56; version 2 no check
 * (44-byte table entries, 48-byte meta entries): its hits were hashed
 * again. A log of another version is started empty, said on stderr
 * (chunk_log_format_version). */
#ifndef DESTOR_CACHE_CHUNK_LOG_FORMAT_H
#define DESTOR_CACHE_CHUNK_LOG_FORMAT_H

#include "cache/layouts/log/chunk_log.h"
#include "cache/layouts/log/chunk_log_index.h"

#include <glib.h>
#include <stdint.h>

#define CHUNK_LOG_SEGMENT_MAGIC "DPLCCLG1"
#define CHUNK_LOG_META_MAGIC "DPLCCLM1"
#define CHUNK_LOG_FORMAT_VERSION 3
#define CHUNK_LOG_SEGMENT_HEADER 64u
#define CHUNK_LOG_TABLE_ENTRY 48u
#define CHUNK_LOG_META_HEADER 64u
#define CHUNK_LOG_META_ENTRY 52u

/* What a segment's header says about it. */
typedef struct {
    uint8_t store_id[CHUNK_LOG_STORE_ID_LEN];
    uint64_t seq;
    uint32_t segment_size;
    uint32_t n_entries;
    uint32_t data_end;
    uint32_t fp_alg;
    uint32_t codec; /* CacheCodecKind */
} ChunkLogSegmentHeader;

/* Fill in the header of the segment at seg (its table already at its
 * tail), the CRC last. */
void chunk_log_segment_seal(uint8_t *seg, const ChunkLogSegmentHeader *h);
/* Put table entry i (counted from the segment's end). */
void chunk_log_segment_put_entry(uint8_t *seg, uint32_t segment_size, uint32_t i, const Fingerprint *fp,
                                 uint32_t offset, uint32_t length, uint32_t stored, uint32_t check);
/* Decode a header (the first CHUNK_LOG_SEGMENT_HEADER bytes): FALSE when
 * the magic, version or geometry is wrong (the CRC is checked with the
 * table, by chunk_log_segment_table_ok). */
gboolean chunk_log_segment_header_decode(const uint8_t *p, uint32_t segment_size, ChunkLogSegmentHeader *h);
/* The format version of a segment or chunklog.meta whose first 12 bytes
 * are p (magic: CHUNK_LOG_SEGMENT_MAGIC or CHUNK_LOG_META_MAGIC), 0 when
 * the magic is not there. */
uint32_t chunk_log_format_version(const uint8_t *p, const char *magic);
/* Does the CRC of header p and table (n_entries * CHUNK_LOG_TABLE_ENTRY bytes) match? */
gboolean chunk_log_segment_table_ok(const uint8_t *p, const uint8_t *table, uint32_t n_entries);
/* Entry i of a table read as bytes; FALSE when its stored bytes do not lie
 * in the segment's data or its stored length is 0 or above its length. */
gboolean chunk_log_segment_entry(const uint8_t *table, uint32_t n_entries, uint32_t i, uint32_t data_end,
                                 Fingerprint *fp, uint32_t *offset, uint32_t *length, uint32_t *stored,
                                 uint32_t *check);

/* chunklog.meta in memory. */
typedef struct {
    gboolean clean;
    uint8_t store_id[CHUNK_LOG_STORE_ID_LEN];
    uint32_t segment_size;
    uint32_t n_segments;
    uint32_t fp_alg;
    uint32_t codec;         /* CacheCodecKind */
    uint64_t next_seq;
    uint64_t *seq;          /* n_segments */
    uint32_t n_chunks;
    ChunkLogEntry *chunks;  /* n_chunks (fp, segment, offset, length, stored, check) */
} ChunkLogMeta;

/* The bytes chunklog.meta takes (the encoding's length). */
uint64_t chunk_log_meta_size(uint32_t n_segments, uint32_t n_chunks);
GByteArray *chunk_log_meta_encode(const ChunkLogMeta *m);
/* FALSE when the bytes are not a whole, intact chunklog.meta. */
gboolean chunk_log_meta_decode(const uint8_t *p, size_t len, ChunkLogMeta *m);
void chunk_log_meta_clear(ChunkLogMeta *m);

#endif
