/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_format.c: encoding and checking of a bucket's metadata
 * area (chunk_buckets_format.h). */
#include "cache/layouts/buckets/chunk_buckets_format.h"
#include "cache/layouts/buckets/chunk_buckets.h"
#include "util/checksum.h"
#include "util/le.h"

#include <string.h>

#define PAGE 4096u

uint32_t chunk_buckets_meta_size(uint32_t slots)
{
    uint32_t n = CHUNK_BUCKETS_HEADER + slots * CHUNK_BUCKETS_ENTRY;
    return (n + PAGE - 1) / PAGE * PAGE;
}

uint64_t chunk_buckets_bucket_size(uint32_t slots, uint32_t subslot_size)
{
    return chunk_buckets_meta_size(slots) + (uint64_t)slots * subslot_size;
}

uint32_t chunk_buckets_largest_chunk(uint32_t slots, uint32_t subslot_size)
{
    return MIN(slots, CHUNK_BUCKETS_MAX_SLOTS) * subslot_size;
}

static uint8_t *entry_at(uint8_t *meta, uint32_t slot)
{
    return meta + CHUNK_BUCKETS_HEADER + (size_t)slot * CHUNK_BUCKETS_ENTRY;
}

void chunk_buckets_entry_put(uint8_t *meta, uint32_t slot, const ChunkBucketsEntry *e)
{
    uint8_t *p = entry_at(meta, slot);
    memset(p, 0, CHUNK_BUCKETS_ENTRY);
    memcpy(p, e->fp.bytes, FP_SLOT);
    le32_put(p + 32, e->raw_len);
    le32_put(p + 36, e->stored_len);
    p[40] = e->codec;
    p[41] = e->n_slots;
    p[42] = e->head;
    le32_put(p + 44, e->check);
}

void chunk_buckets_entry_get(const uint8_t *meta, uint32_t slot, ChunkBucketsEntry *e)
{
    const uint8_t *p = entry_at((uint8_t *)meta, slot);
    memcpy(e->fp.bytes, p, FP_SLOT);
    e->raw_len = le32_get(p + 32);
    e->stored_len = le32_get(p + 36);
    e->codec = p[40];
    e->n_slots = p[41];
    e->head = p[42];
    e->check = le32_get(p + 44);
}

void chunk_buckets_entry_clear(uint8_t *meta, uint32_t slot)
{
    memset(entry_at(meta, slot), 0, CHUNK_BUCKETS_ENTRY);
}

static uint32_t meta_crc(const uint8_t *meta, uint32_t slots)
{
    uint32_t crc = checksum_crc32(CHECKSUM_CRC32_START, meta, 60);
    return checksum_crc32(crc, meta + CHUNK_BUCKETS_HEADER, (size_t)slots * CHUNK_BUCKETS_ENTRY);
}

void chunk_buckets_seal(uint8_t *meta, const ChunkBucketsHeader *h)
{
    memset(meta, 0, CHUNK_BUCKETS_HEADER);
    memcpy(meta, CHUNK_BUCKETS_MAGIC, 8);
    le32_put(meta + 8, CHUNK_BUCKETS_FORMAT_VERSION);
    le32_put(meta + 12, h->bucket);
    memcpy(meta + 16, h->store_id, CHUNK_BUCKETS_ID_LEN);
    le64_put(meta + 32, h->seq);
    le32_put(meta + 40, h->subslot_size);
    le32_put(meta + 44, h->slots);
    le32_put(meta + 48, h->fp_alg);
    le32_put(meta + 52, h->codec);
    le32_put(meta + 60, meta_crc(meta, h->slots));
}

ChunkBucketsMetaState chunk_buckets_unseal(const uint8_t *meta, uint32_t slots, ChunkBucketsHeader *h)
{
    uint32_t size = chunk_buckets_meta_size(slots);
    gboolean zero = TRUE;
    for (uint32_t i = 0; i < size && zero; i++)
        zero = meta[i] == 0;
    if (zero)
        return CHUNK_BUCKETS_META_EMPTY;
    uint32_t version = le32_get(meta + 8);
    if (memcmp(meta, CHUNK_BUCKETS_MAGIC, 8) != 0 || version == 0 || version > CHUNK_BUCKETS_FORMAT_VERSION)
        return CHUNK_BUCKETS_META_DAMAGED;
    /* the CRC covers as many entries as the header says; a header whose
     * slot count differs from ours is checked over its own count when it
     * fits, so another layout's bucket is told from a damaged one */
    uint32_t said = le32_get(meta + 44);
    uint32_t n = said >= 1 && chunk_buckets_meta_size(said) <= size ? said : slots;
    if (le32_get(meta + 60) != meta_crc(meta, n))
        return CHUNK_BUCKETS_META_DAMAGED;
    if (version < CHUNK_BUCKETS_FORMAT_VERSION)
        return CHUNK_BUCKETS_META_OLD;
    h->bucket = le32_get(meta + 12);
    memcpy(h->store_id, meta + 16, CHUNK_BUCKETS_ID_LEN);
    h->seq = le64_get(meta + 32);
    h->subslot_size = le32_get(meta + 40);
    h->slots = said;
    h->fp_alg = le32_get(meta + 48);
    h->codec = le32_get(meta + 52);
    return CHUNK_BUCKETS_META_OK;
}
