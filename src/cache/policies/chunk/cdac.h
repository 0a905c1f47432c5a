/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cdac.h: the CDAC algorithm (cdac.c) shared by the two policies built on
 * it, cdac-lru (cdac_lru.c) and cdac-arc (cdac_arc.c), which differ only in
 * how the metadata cache orders its addresses. Their keys, in this order:
 * POLICY-lambda, POLICY-alpha, POLICY-sub-block, POLICY-metadata-factor
 * (the paper's defaults 0.5, 0.5, 4 KiB; the factor as d-lru's); their
 * counters: CDAC_COUNTERS. */
#ifndef DESTOR_CACHE_CDAC_H
#define DESTOR_CACHE_CDAC_H

#include "cache/policy/chunk_policy.h"

#define CDAC_KEYS(policy)                                                                                          \
    { policy "-lambda", CACHE_KEY_REAL, 0, 1, NULL, "0.5",                                                          \
      "RCE: an address whose chunk's reference count fell by more than this share since its last check is "        \
      "deleted" },                                                                                                 \
    { policy "-alpha", CACHE_KEY_REAL, 0, 1, NULL, "0.5",                                                           \
      "BHI: an address is hot when at least this share of its chunk's sub-blocks was touched" },                   \
    { policy "-sub-block", CACHE_KEY_UINT, 512, 1 << 20, NULL, "4096", "BHI: bytes of a sub-block (a bitmap bit)" }, \
    { policy "-metadata-factor", CACHE_KEY_REAL, 0.01, 1000, NULL, "2",                                             \
      "metadata cache entries (source addresses) per chunk the data cache holds at the store's average size" }

#define CDAC_COUNTERS                                                                      \
    { "bhi_retained", "addresses kept as hot (BHI)", NULL },                               \
    { "rce_retained", "addresses kept by reference count (RCE)", NULL },                   \
    { "addresses_deleted", "addresses deleted to free chunks", NULL },                     \
    { "metadata_evictions", "addresses evicted from a full metadata cache", NULL },        \
    { "forced_deletions", "addresses deleted after a search freed nothing", NULL }

void *cdac_lru_create(const ChunkPolicyEnv *env);
void *cdac_arc_create(const ChunkPolicyEnv *env);
void cdac_destroy(void *st);
gboolean cdac_lookup(void *st, ChunkSlot slot, const ChunkAccess *a);
gboolean cdac_admit(void *st, const ChunkAccess *a);
ChunkSlot cdac_victim(void *st);
void cdac_inserted(void *st, ChunkSlot slot, const ChunkAccess *a);
void cdac_removed(void *st, ChunkSlot slot);
size_t cdac_memory(const void *st);

#endif
