/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_format.c: encoding and decoding of the chunk log's segments and
 * chunklog.meta (chunk_log_format.h). */
#include "cache/layouts/log/chunk_log_format.h"
#include "util/checksum.h"
#include "util/le.h"

#include <string.h>

static uint8_t *table_at(uint8_t *seg, uint32_t segment_size, uint32_t i)
{
    return seg + segment_size - (size_t)(i + 1) * CHUNK_LOG_TABLE_ENTRY;
}

void chunk_log_segment_put_entry(uint8_t *seg, uint32_t segment_size, uint32_t i, const Fingerprint *fp,
                                 uint32_t offset, uint32_t length, uint32_t stored, uint32_t check)
{
    uint8_t *p = table_at(seg, segment_size, i);
    memcpy(p, fp->bytes, FP_SLOT);
    le32_put(p + 32, offset);
    le32_put(p + 36, length);
    le32_put(p + 40, stored);
    le32_put(p + 44, check);
}

uint32_t chunk_log_format_version(const uint8_t *p, const char *magic)
{
    return memcmp(p, magic, 8) == 0 ? le32_get(p + 8) : 0;
}

void chunk_log_segment_seal(uint8_t *seg, const ChunkLogSegmentHeader *h)
{
    memset(seg, 0, CHUNK_LOG_SEGMENT_HEADER);
    memcpy(seg, CHUNK_LOG_SEGMENT_MAGIC, 8);
    le32_put(seg + 8, CHUNK_LOG_FORMAT_VERSION);
    memcpy(seg + 16, h->store_id, CHUNK_LOG_STORE_ID_LEN);
    le64_put(seg + 32, h->seq);
    le32_put(seg + 40, h->segment_size);
    le32_put(seg + 44, h->n_entries);
    le32_put(seg + 48, h->data_end);
    le32_put(seg + 52, h->fp_alg);
    le32_put(seg + 56, h->codec);
    const uint8_t *table = seg + h->segment_size - (size_t)h->n_entries * CHUNK_LOG_TABLE_ENTRY;
    uint32_t crc = checksum_crc32(CHECKSUM_CRC32_START, seg, 60);
    crc = checksum_crc32(crc, table, (size_t)h->n_entries * CHUNK_LOG_TABLE_ENTRY);
    le32_put(seg + 60, crc);
}

gboolean chunk_log_segment_header_decode(const uint8_t *p, uint32_t segment_size, ChunkLogSegmentHeader *h)
{
    if (memcmp(p, CHUNK_LOG_SEGMENT_MAGIC, 8) != 0 || le32_get(p + 8) != CHUNK_LOG_FORMAT_VERSION)
        return FALSE;
    memcpy(h->store_id, p + 16, CHUNK_LOG_STORE_ID_LEN);
    h->seq = le64_get(p + 32);
    h->segment_size = le32_get(p + 40);
    h->n_entries = le32_get(p + 44);
    h->data_end = le32_get(p + 48);
    h->fp_alg = le32_get(p + 52);
    h->codec = le32_get(p + 56);
    return h->segment_size == segment_size && h->seq > 0 && h->data_end >= CHUNK_LOG_SEGMENT_HEADER &&
           h->data_end <= segment_size &&
           h->n_entries <= (segment_size - h->data_end) / CHUNK_LOG_TABLE_ENTRY;
}

gboolean chunk_log_segment_table_ok(const uint8_t *p, const uint8_t *table, uint32_t n_entries)
{
    uint32_t crc = checksum_crc32(CHECKSUM_CRC32_START, p, 60);
    crc = checksum_crc32(crc, table, (size_t)n_entries * CHUNK_LOG_TABLE_ENTRY);
    return le32_get(p + 60) == crc;
}

gboolean chunk_log_segment_entry(const uint8_t *table, uint32_t n_entries, uint32_t i, uint32_t data_end,
                                 Fingerprint *fp, uint32_t *offset, uint32_t *length, uint32_t *stored,
                                 uint32_t *check)
{
    /* entry i is the i-th from the end: the table is written backwards */
    const uint8_t *p = table + (size_t)(n_entries - 1 - i) * CHUNK_LOG_TABLE_ENTRY;
    memcpy(fp->bytes, p, FP_SLOT);
    *offset = le32_get(p + 32);
    *length = le32_get(p + 36);
    *stored = le32_get(p + 40);
    *check = le32_get(p + 44);
    return *stored > 0 && *stored <= *length && *offset >= CHUNK_LOG_SEGMENT_HEADER && *offset <= data_end &&
           *stored <= data_end - *offset;
}

uint64_t chunk_log_meta_size(uint32_t n_segments, uint32_t n_chunks)
{
    return CHUNK_LOG_META_HEADER + (uint64_t)n_segments * 8 + (uint64_t)n_chunks * CHUNK_LOG_META_ENTRY + 4;
}

GByteArray *chunk_log_meta_encode(const ChunkLogMeta *m)
{
    size_t len = (size_t)chunk_log_meta_size(m->n_segments, m->n_chunks);
    GByteArray *b = g_byte_array_sized_new((guint)len);
    g_byte_array_set_size(b, (guint)len);
    uint8_t *p = b->data;
    memset(p, 0, len);
    memcpy(p, CHUNK_LOG_META_MAGIC, 8);
    le32_put(p + 8, CHUNK_LOG_FORMAT_VERSION);
    le32_put(p + 12, m->clean ? 1 : 0);
    memcpy(p + 16, m->store_id, CHUNK_LOG_STORE_ID_LEN);
    le32_put(p + 32, m->segment_size);
    le32_put(p + 36, m->n_segments);
    le32_put(p + 40, m->fp_alg);
    le32_put(p + 44, m->n_chunks);
    le64_put(p + 48, m->next_seq);
    le32_put(p + 56, m->codec);
    uint8_t *q = p + CHUNK_LOG_META_HEADER;
    for (uint32_t i = 0; i < m->n_segments; i++, q += 8)
        le64_put(q, m->seq ? m->seq[i] : 0);
    for (uint32_t i = 0; i < m->n_chunks; i++, q += CHUNK_LOG_META_ENTRY) {
        memcpy(q, m->chunks[i].fp.bytes, FP_SLOT);
        le32_put(q + 32, m->chunks[i].segment);
        le32_put(q + 36, m->chunks[i].offset);
        le32_put(q + 40, m->chunks[i].length);
        le32_put(q + 44, m->chunks[i].stored);
        le32_put(q + 48, m->chunks[i].check);
    }
    le32_put(q, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
    return b;
}

gboolean chunk_log_meta_decode(const uint8_t *p, size_t len, ChunkLogMeta *m)
{
    memset(m, 0, sizeof *m);
    if (len < CHUNK_LOG_META_HEADER + 4 || memcmp(p, CHUNK_LOG_META_MAGIC, 8) != 0 ||
        le32_get(p + 8) != CHUNK_LOG_FORMAT_VERSION ||
        le32_get(p + len - 4) != checksum_crc32(CHECKSUM_CRC32_START, p, len - 4))
        return FALSE;
    m->clean = (le32_get(p + 12) & 1) != 0;
    memcpy(m->store_id, p + 16, CHUNK_LOG_STORE_ID_LEN);
    m->segment_size = le32_get(p + 32);
    m->n_segments = le32_get(p + 36);
    m->fp_alg = le32_get(p + 40);
    m->n_chunks = le32_get(p + 44);
    m->next_seq = le64_get(p + 48);
    m->codec = le32_get(p + 56);
    if (len != CHUNK_LOG_META_HEADER + (uint64_t)m->n_segments * 8 + (uint64_t)m->n_chunks * CHUNK_LOG_META_ENTRY + 4)
        return FALSE;
    const uint8_t *q = p + CHUNK_LOG_META_HEADER;
    m->seq = g_new(uint64_t, m->n_segments ? m->n_segments : 1);
    for (uint32_t i = 0; i < m->n_segments; i++, q += 8)
        m->seq[i] = le64_get(q);
    m->chunks = g_new(ChunkLogEntry, m->n_chunks ? m->n_chunks : 1);
    for (uint32_t i = 0; i < m->n_chunks; i++, q += CHUNK_LOG_META_ENTRY) {
        memcpy(m->chunks[i].fp.bytes, q, FP_SLOT);
        m->chunks[i].segment = le32_get(q + 32);
        m->chunks[i].offset = le32_get(q + 36);
        m->chunks[i].length = le32_get(q + 40);
        m->chunks[i].stored = le32_get(q + 44);
        m->chunks[i].check = le32_get(q + 48);
    }
    return TRUE;
}

void chunk_log_meta_clear(ChunkLogMeta *m)
{
    g_free(m->seq);
    g_free(m->chunks);
    memset(m, 0, sizeof *m);
}
