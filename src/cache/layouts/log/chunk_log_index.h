/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_index.h: the chunk log's in-memory index, fingerprint -> where
 * the chunk sits (segment, offset, length, stored length) and the CRC-32
 * its bytes are checked against at a hit (chunk_log.h). An array of entries (a freed
 * entry is reused) and an open_table.h of entry numbers (kept at most 70%
 * full), so its memory is exactly known: sizeof(ChunkLogEntry) per entry
 * slot plus 4 bytes per table bucket. Fingerprints are cryptographic
 * digests, so their first bytes are the hash. */
#ifndef DESTOR_CACHE_CHUNK_LOG_INDEX_H
#define DESTOR_CACHE_CHUNK_LOG_INDEX_H

#include "cache/structures/open_table.h"
#include "util/fingerprint.h"

#include <stddef.h>
#include <stdint.h>

#define CHUNK_LOG_NO_ENTRY UINT32_MAX

typedef struct {
    Fingerprint fp;
    uint32_t segment; /* segment number (the open segment's too) */
    uint32_t offset;  /* byte offset in the segment; next free entry when free */
    uint32_t length;  /* the chunk's bytes; 0: the entry is free */
    uint32_t stored;  /* its bytes in the segment: length when stored as it is,
                       * fewer when compressed (chunk_log.h) */
    uint32_t check;   /* CRC-32 of its `length` bytes, taken when it was put
                       * (0 in simulation, which holds no bytes) */
} ChunkLogEntry;

typedef struct {
    ChunkLogEntry *entries;
    uint32_t n_entries; /* entries handed out (used or on the free list) */
    uint32_t cap_entries;
    uint32_t free_head; /* first free entry, CHUNK_LOG_NO_ENTRY for none */
    OpenTable table; /* fp -> entry number, over entries (its used: the entries in use) */
} ChunkLogIndex;

void chunk_log_index_init(ChunkLogIndex *x);
void chunk_log_index_clear(ChunkLogIndex *x);
/* The entry number of fp, or CHUNK_LOG_NO_ENTRY. */
uint32_t chunk_log_index_find(const ChunkLogIndex *x, const Fingerprint *fp);
/* Add fp (not in the index); returns its entry number. */
uint32_t chunk_log_index_add(ChunkLogIndex *x, const Fingerprint *fp, uint32_t segment, uint32_t offset,
                             uint32_t length, uint32_t stored, uint32_t check);
void chunk_log_index_remove(ChunkLogIndex *x, uint32_t e);
/* Bytes of memory the entries and the table take. */
size_t chunk_log_index_bytes_of(const ChunkLogIndex *x);
/* The entries in use. */
uint32_t chunk_log_index_used(const ChunkLogIndex *x);
/* The whole index: the table's invariants, each entry in use found under
 * its fingerprint, the free ones chained and zero long. O(the entries). */
gboolean chunk_log_index_check(const ChunkLogIndex *x);

static inline ChunkLogEntry *chunk_log_index_entry(const ChunkLogIndex *x, uint32_t e)
{
    return &x->entries[e];
}

#endif
