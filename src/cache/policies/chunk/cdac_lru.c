/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cdac_lru.c: CDAC-LRU, CDAC (cdac.c) with the metadata cache in LRU order:
 * the address examined for eviction is the least recently used one; a hit
 * or a retained address moves to the most recent end. */
#include "cache/policies/chunk/cdac.h"

static const CachePolicyKey cdac_lru_keys[] = { CDAC_KEYS("cdac-lru") };
static const CachePolicyCounter cdac_lru_counters[] = { CDAC_COUNTERS };

const ChunkPolicyOps chunk_policy_cdac_lru = {
    .name = "cdac-lru",
    .description = "CDAC-LRU: D-LRU's two caches, chunks freed by reference-count eviction (lambda) and "
                   "bitmap hotness (alpha, sub-blocks) over an LRU metadata cache",
    .citation = "CDAC: Content-driven Deduplication-Aware Storage Cache (the paper's section 3)",
    .keys = cdac_lru_keys,
    .n_keys = G_N_ELEMENTS(cdac_lru_keys),
    .counters = cdac_lru_counters,
    .n_counters = G_N_ELEMENTS(cdac_lru_counters),
    .create = cdac_lru_create,
    .destroy = cdac_destroy,
    .lookup = cdac_lookup,
    .admit = cdac_admit,
    .victim = cdac_victim,
    .inserted = cdac_inserted,
    .removed = cdac_removed,
    .memory = cdac_memory,
};
