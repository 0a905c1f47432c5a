/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_austere.c: the chunk policy of ssd-cache-layout buckets
 * (AustereCache, docs/CACHE.md "The bucket layout"). It decides nothing
 * itself: every cached chunk is a hit, every miss is admitted, and the
 * layout evicts, inside the newcomer's bucket, the run of sub-slots whose
 * chunks have the lowest Count-Min count (chunk_buckets_place.h), telling
 * the core. So it keeps no per-chunk state: the austere memory is the
 * layout's index. Valid only with that layout, and that layout only with
 * it (a configuration error otherwise). */
#include "cache/policy/chunk_policy.h"

typedef struct {
    int unused; /* no state: the layout keeps the counts */
} ChunkAustere;

static void *austere_create(const ChunkPolicyEnv *env)
{
    (void)env;
    return g_new0(ChunkAustere, 1);
}

static void austere_destroy(void *st)
{
    g_free(st);
}

static gboolean austere_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    (void)st;
    (void)a;
    return slot != CHUNK_NO_SLOT;
}

static gboolean austere_admit(void *st, const ChunkAccess *a)
{
    (void)st;
    (void)a;
    return TRUE;
}

/* Never asked: with buckets the core leaves room-making to the layout. */
static ChunkSlot austere_victim(void *st)
{
    (void)st;
    g_assert_not_reached();
    return CHUNK_NO_SLOT;
}

static void austere_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    (void)st;
    (void)slot;
    (void)a;
}

static void austere_removed(void *st, ChunkSlot slot)
{
    (void)st;
    (void)slot;
}

static size_t austere_memory(const void *st)
{
    (void)st;
    return sizeof(ChunkAustere);
}

const ChunkPolicyOps chunk_policy_austere = {
    .name = CHUNK_POLICY_AUSTERE,
    .description = "AustereCache's bucket-local replacement, left to ssd-cache-layout buckets (only with it): admit "
                   "every miss, evict in the newcomer's bucket the sub-slots of the least counted chunks",
    .citation = "Wang et al., AustereCache, USENIX ATC 2020",
    .create = austere_create,
    .destroy = austere_destroy,
    .lookup = austere_lookup,
    .admit = austere_admit,
    .victim = austere_victim,
    .inserted = austere_inserted,
    .removed = austere_removed,
    .memory = austere_memory,
};
