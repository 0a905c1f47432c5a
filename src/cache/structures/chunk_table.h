/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_table.h: the chunk cache's index from fingerprint to slot, an
 * open_table.h over slot numbers; the fingerprints themselves live in the
 * core's per-slot array, which the table is handed at every call (it may
 * move when it grows). Bucket choice: the fingerprint's first 8 bytes (a
 * cryptographic digest: uniform), mixed. */
#ifndef DESTOR_CACHE_CHUNK_TABLE_H
#define DESTOR_CACHE_CHUNK_TABLE_H

#include "cache/structures/open_table.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define CHUNK_TABLE_EMPTY OPEN_TABLE_NONE

typedef OpenTable ChunkTable;

static inline uint64_t chunk_table_key(const Fingerprint *fp)
{
    uint64_t k;
    memcpy(&k, fp->bytes, sizeof k);
    return k;
}

static inline uint64_t chunk_table_hash(const Fingerprint *fp)
{
    uint64_t k = chunk_table_key(fp);
    return ((k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull) >> 32; /* the product's high half */
}

static inline gboolean chunk_table_equal(const Fingerprint *a, const Fingerprint *b)
{
    return memcmp(a->bytes, b->bytes, FP_SLOT) == 0;
}

/* chunk_table_find(t, fps, fp): the slot holding fp, or CHUNK_TABLE_EMPTY. */
OPEN_TABLE_TYPED(chunk_table, Fingerprint, chunk_table_hash, chunk_table_equal)

#endif
