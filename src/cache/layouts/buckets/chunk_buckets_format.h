/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets_format.h: the on-SSD form of one bucket of the bucketized
 * chunk layout (chunk_buckets.h; docs/FORMAT.md, "Chunk buckets"), kept
 * apart so that the layout's logic and the unit tests share one encoding.
 *
 * A bucket is a metadata area (a header and one table entry per sub-slot,
 * padded to whole 4 KiB pages) followed by its sub-slots. The header's
 * CRC-32 covers the header and the table, so a torn or flipped metadata
 * area is found. A chunk's bytes are matched against its fingerprint
 * when it is put; its entry then records their CRC-32, which a hit
 * checks (format 2; format 1 entries had none: a hit re-hashed the chunk,
 * and a cache of format 1 is started empty). */
#ifndef DESTOR_CACHE_CHUNK_BUCKETS_FORMAT_H
#define DESTOR_CACHE_CHUNK_BUCKETS_FORMAT_H

#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

#define CHUNK_BUCKETS_MAGIC "DSTRBKT1"
#define CHUNK_BUCKETS_FORMAT_VERSION 2u
#define CHUNK_BUCKETS_HEADER 64u
#define CHUNK_BUCKETS_ENTRY 48u
#define CHUNK_BUCKETS_ID_LEN 16u

/* What every bucket of one layout says about the whole layout. */
typedef struct {
    uint8_t store_id[CHUNK_BUCKETS_ID_LEN];
    uint32_t subslot_size;
    uint32_t slots;   /* sub-slots per bucket */
    uint32_t fp_alg;
    uint32_t codec;   /* the ssd-cache-compression it was written with */
    uint32_t bucket;  /* its own number */
    uint64_t seq;     /* writes of the layout before this one */
} ChunkBucketsHeader;

/* One table entry: set on the first sub-slot of a chunk (its head). */
typedef struct {
    Fingerprint fp;
    uint32_t raw_len;    /* the chunk's length */
    uint32_t stored_len; /* bytes in the sub-slots (compressed or raw) */
    uint8_t codec;       /* CacheCodecKind of those bytes (none: raw) */
    uint8_t n_slots;     /* sub-slots it takes, from its head on */
    uint8_t head;        /* 1 on a head entry, 0 on any other */
    uint32_t check;      /* CRC-32 of the chunk's raw_len bytes (format 2) */
} ChunkBucketsEntry;

/* Bytes of the metadata area for `slots` sub-slots (whole 4 KiB pages). */
uint32_t chunk_buckets_meta_size(uint32_t slots);
/* Bytes of one bucket on the SSD. */
uint64_t chunk_buckets_bucket_size(uint32_t slots, uint32_t subslot_size);
/* The largest chunk such buckets hold: a whole bucket of sub-slots, at
 * most CHUNK_BUCKETS_MAX_SLOTS of them. */
uint32_t chunk_buckets_largest_chunk(uint32_t slots, uint32_t subslot_size);

void chunk_buckets_entry_put(uint8_t *meta, uint32_t slot, const ChunkBucketsEntry *e);
void chunk_buckets_entry_get(const uint8_t *meta, uint32_t slot, ChunkBucketsEntry *e);
void chunk_buckets_entry_clear(uint8_t *meta, uint32_t slot);
/* Write the header and its CRC over header and `slots` entries. */
void chunk_buckets_seal(uint8_t *meta, const ChunkBucketsHeader *h);

typedef enum {
    CHUNK_BUCKETS_META_EMPTY = 0,   /* never written (all zero) */
    CHUNK_BUCKETS_META_OK = 1,      /* header and table whole */
    CHUNK_BUCKETS_META_DAMAGED = 2, /* not all zero and not whole */
    CHUNK_BUCKETS_META_OLD = 3,     /* whole, of an older format version (no CRC-32 per chunk) */
} ChunkBucketsMetaState;

/* Decode and check a metadata area written for `slots` sub-slots. */
ChunkBucketsMetaState chunk_buckets_unseal(const uint8_t *meta, uint32_t slots, ChunkBucketsHeader *h);

#endif
