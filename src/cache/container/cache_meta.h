/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_meta.h: cache.meta, what a real-mode SSD cache remembers across
 * runs: which container sits in which slot (with a check of its bytes),
 * the policy's saved state, and every container's access count.
 *
 * Layout, all little-endian:
 *   header (104 bytes; 96 in version 5, 88 in 4, 80 in 2 and 3, 64 in 1)
 *     0  magic "DPLCSSD1"          8  version u32 (4)
 *    12  flags u32 (bit 0: clean shutdown)
 *    16  container_size u64       24  capacity u32
 *    28  n_entries u32            32  n_counts u32
 *    36  counts mode u32 (cache-counters: 0 exact, 1 sketch, 2 compact; 0
 *        before version 4)
 *    40  policy_word u64          48  policy name, 16 bytes, NUL-padded
 *    64  store identity, 16 bytes (store.meta; absent in version 1)
 *    80  accesses since the counts' last aging u64 (version 4)
 *    88  anchor: the highest cached container id u32 (none: 0xFFFFFFFF)
 *    92  its stamp u32 (container_stamp() of the store's container when it
 *        was cached): the store's history the entries belong to (version 5)
 *    96  ssd-cache-compression the copies were written with u32
 *        (CacheCodecKind; 0 none, 1 lz4, 2 zstd; version 6)
 *   100  zero u32
 *   n_entries x 28 bytes (24 before version 6): id u32, slot u32, check u64
 *     (crc32 of the container's bytes in the low half, adler32 in the
 *     high), policy word u64, the copy's stored length u32 (version 6: the
 *     slot header's; container_size for a raw copy)
 *   n_counts cells of the access counts (access_counts.h): exact, u32 each,
 *     the count of container 0, 1, ...; compact, u16 each, the same; sketch,
 *     u16 each, the two rows of the count-min sketch one after the other
 *   the policy's state (version 3; absent in 1 and 2):
 *     state_version u32, state_len u32, state_len bytes (the policy's
 *     save_state blob), crc32 u32 (zlib) of the blob
 *   crc32 u32 (zlib) of everything before it
 *
 * The file is replaced atomically (write, fsync, rename). On open the cache
 * republishes it with the clean flag cleared, and sets the flag again on a
 * clean close; a file found without it means the last run died, and every
 * entry is checked against its slot's bytes before use. */
#ifndef DESTOR_CACHE_META_H
#define DESTOR_CACHE_META_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

#define CACHE_META_FILE "cache.meta"
#define CACHE_META_MAGIC "DPLCSSD1"
#define CACHE_META_VERSION 6
#define CACHE_META_HEADER_SIZE 104
#define CACHE_META_V5_HEADER_SIZE 96
#define CACHE_META_V4_HEADER_SIZE 88
#define CACHE_META_V2_HEADER_SIZE 80
#define CACHE_META_V1_HEADER_SIZE 64
#define CACHE_META_STORE_ID_LEN 16
#define CACHE_META_ENTRY_SIZE 28
#define CACHE_META_V5_ENTRY_SIZE 24
#define CACHE_META_POLICY_LEN 16

typedef struct {
    ContainerId id;
    uint32_t slot;
    uint64_t check; /* cache_copy_check() of the container_size bytes in the slot */
    uint64_t word; /* the policy's saved per-slot state */
    uint32_t stored_len; /* the copy's bytes before padding; 0 before version 6 (a raw copy) */
} CacheMetaEntry;

typedef struct {
    uint32_t version;  /* as read; saving always writes CACHE_META_VERSION */
    gboolean has_store_id; /* FALSE for version 1: the store is unknown */
    uint8_t store_id[CACHE_META_STORE_ID_LEN];
    gboolean clean;
    uint64_t container_size;
    uint32_t capacity;
    uint64_t policy_word;
    char policy[CACHE_META_POLICY_LEN + 1];
    uint32_t n_entries;
    CacheMetaEntry *entries;
    uint32_t counts_mode;   /* AccessCountsMode */
    uint32_t n_counts;      /* cells */
    uint32_t *counts;       /* the cells, widened to u32 */
    uint64_t counts_since_aging;
    gboolean has_anchor;    /* FALSE before version 5: the history is unknown */
    ContainerId anchor_id;  /* CACHE_NO_CONTAINER (UINT32_MAX): no entries */
    uint32_t anchor_stamp;
    uint32_t compression;   /* CacheCodecKind the copies were written with (0 before version 6) */
    uint32_t state_version; /* the policy's, with its blob */
    uint32_t state_len;
    uint8_t *state;         /* NULL before version 3 */
} CacheMeta;

/* Write `path` atomically and durably. */
gboolean cache_meta_save(const char *path, const CacheMeta *m, GError **err);
/* Read `path`. A missing file: TRUE with *found = FALSE. A damaged one
 * (checksum, magic, version, sizes): FALSE with an INTEGRITY error. */
gboolean cache_meta_load(const char *path, CacheMeta *m, gboolean *found, GError **err);
void cache_meta_clear(CacheMeta *m);

#endif
