/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cdac_arc.c: CDAC-ARC, CDAC (cdac.c) with the metadata cache ordered by
 * ARC (sized_arc.h, one unit an address): the address examined for
 * eviction is the one ARC would replace (T1's or T2's LRU end by the
 * target p); a hit moves an address to T2, a retained one to the MRU end
 * of its own list; a deleted address becomes a ghost, and an address
 * found among the ghosts re-enters T2, adapting p. */
#include "cache/policies/chunk/cdac.h"

static const CachePolicyKey cdac_arc_keys[] = { CDAC_KEYS("cdac-arc") };
static const CachePolicyCounter cdac_arc_counters[] = { CDAC_COUNTERS };

const ChunkPolicyOps chunk_policy_cdac_arc = {
    .name = "cdac-arc",
    .description = "CDAC-ARC: D-ARC's metadata cache, chunks freed by reference-count eviction (lambda) and "
                   "bitmap hotness (alpha, sub-blocks) at ARC's replacement end",
    .citation = "CDAC: Content-driven Deduplication-Aware Storage Cache (the paper's section 3)",
    .keys = cdac_arc_keys,
    .n_keys = G_N_ELEMENTS(cdac_arc_keys),
    .counters = cdac_arc_counters,
    .n_counters = G_N_ELEMENTS(cdac_arc_counters),
    .create = cdac_arc_create,
    .destroy = cdac_destroy,
    .lookup = cdac_lookup,
    .admit = cdac_admit,
    .victim = cdac_victim,
    .inserted = cdac_inserted,
    .removed = cdac_removed,
    .memory = cdac_memory,
};
