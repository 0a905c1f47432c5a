/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_arc.c: ARC at chunk granularity: the unique chunks in T1/T2 with
 * ghosts B1/B2 and the adaptive target p, every list sized in bytes
 * (sized_arc.h says how sizes enter the published algorithm). Every
 * missed chunk is admitted (into T2 when it was a ghost, else T1); any
 * access to a cached chunk is a hit.
 *
 * When the chunk log reclaims its oldest segment (ssd-cache-segment-reclaim
 * reinsert), ARC's REPLACE decides by position: the log frees room for a
 * segment's worth of new chunks, and a T2 chunk of the reclaimed segment
 * is dropped when REPLACE, repeated until that room is freed, would reach
 * it (from T1's LRU end while T1 holds more than p, or >= p for a B2 ghost
 * hit's first step, or T2 is used up; else from T2's; sized_arc.h,
 * sized_arc_replace_walk), else kept (rewritten; it stays where it is in
 * its list, as a page ARC does not replace). A T1 chunk (seen once, never
 * hit since it came in) is not kept, reached or not: hits-based
 * reinsertion as CacheLib's BlockCache does it, on ARC's own record of
 * hits (fixed before it was measured; against keeping T1 chunks too it
 * gained a little hit share at 4 of 8 points and lost at 2, its writes
 * within 0.07 of before: docs/results/reinsert.md, round 5). With the log as the
 * limit ARC's own victim step never runs, so this is where p acts. Every chunk
 * the log drops, asked or left out by the bound (or by evict's FIFO),
 * leaves as ARC's victims do: a ghost in B1 or B2 (ARC's definition: a
 * page replaced from T1 or T2 is remembered). */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/sized_arc.h"
#include "cache/structures/slot_reach.h"

typedef struct {
    SizedArc arc;         /* payload: the slot */
    uint32_t *entry;      /* per slot: its ARC entry */
    uint32_t slot_room;
    gboolean was_ghost;   /* the pending newcomer */
    ChunkSlot victim;     /* the last victim named (its removal makes a ghost) */
    SlotReach reach;      /* reinsert: the slots REPLACE would reach this reclamation */
} ChunkArc;

static void *chunk_arc_create(const ChunkPolicyEnv *env)
{
    ChunkArc *a = g_new0(ChunkArc, 1);
    sized_arc_init(&a->arc, (double)env->capacity_bytes);
    a->victim = CHUNK_NO_SLOT;
    return a;
}

static void chunk_arc_destroy(void *st)
{
    ChunkArc *a = st;
    sized_arc_free(&a->arc);
    slot_reach_free(&a->reach);
    g_free(a->entry);
    g_free(a);
}

static gboolean chunk_arc_lookup(void *st, ChunkSlot slot, const ChunkAccess *acc)
{
    ChunkArc *a = st;
    (void)acc;
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    sized_arc_hit(&a->arc, a->entry[slot]);
    return TRUE;
}

static gboolean chunk_arc_admit(void *st, const ChunkAccess *acc)
{
    ChunkArc *a = st;
    a->was_ghost = sized_arc_miss(&a->arc, acc->chunk, acc->length);
    return TRUE;
}

static ChunkSlot chunk_arc_victim(void *st)
{
    ChunkArc *a = st;
    uint32_t e = sized_arc_victim(&a->arc);
    a->victim = e == KEY_TABLE_NONE ? CHUNK_NO_SLOT : (ChunkSlot)a->arc.payload[e];
    return a->victim;
}

static void chunk_arc_inserted(void *st, ChunkSlot slot, const ChunkAccess *acc)
{
    ChunkArc *a = st;
    if (slot >= a->slot_room) {
        uint32_t n = a->slot_room ? a->slot_room : 256;
        while (n <= slot)
            n *= 2;
        a->entry = g_renew(uint32_t, a->entry, n);
        a->slot_room = n;
    }
    a->entry[slot] = sized_arc_insert(&a->arc, acc->chunk, acc->length, slot, a->was_ghost);
}

static void chunk_arc_removed(void *st, ChunkSlot slot)
{
    ChunkArc *a = st;
    if (slot == a->victim)
        sized_arc_evict(&a->arc, a->entry[slot]);
    else /* dropped by the core: no ghost */
        sized_arc_forget(&a->arc, a->entry[slot]);
    a->victim = CHUNK_NO_SLOT;
}

static void reach_entry(void *ctx, uint32_t e)
{
    ChunkArc *a = ctx;
    slot_reach_mark(&a->reach, (ChunkSlot)a->arc.payload[e]);
}

/* A segment of `room` bytes is reclaimed: mark what REPLACE would replace
 * to free that room. */
static void chunk_arc_reclaiming(void *st, uint64_t room)
{
    ChunkArc *a = st;
    slot_reach_clear(&a->reach);
    sized_arc_replace_walk(&a->arc, (double)room, reach_entry, a);
}

/* Kept when in T2 (hit since it entered the cache) and REPLACE would not
 * reach it this reclamation; a T1 chunk (never hit) is not kept. Else the
 * log drops it (chunk_arc_dropped). */
static gboolean chunk_arc_keep(void *st, ChunkSlot slot)
{
    ChunkArc *a = st;
    g_assert(slot < a->slot_room && sized_arc_resident(&a->arc, a->entry[slot]));
    return a->arc.list[a->entry[slot]] == ARC_T2 && !slot_reach_has(&a->reach, slot);
}

/* The log dropped it (not kept, past reinsert's bound, evict's FIFO): a
 * replacement, so a ghost. */
static void chunk_arc_dropped(void *st, ChunkSlot slot)
{
    ChunkArc *a = st;
    g_assert(slot < a->slot_room && sized_arc_resident(&a->arc, a->entry[slot]));
    sized_arc_evict(&a->arc, a->entry[slot]);
}

static size_t chunk_arc_memory(const void *st)
{
    const ChunkArc *a = st;
    return sizeof *a + sized_arc_bytes(&a->arc) + (size_t)a->slot_room * sizeof(uint32_t) +
           slot_reach_bytes(&a->reach);
}

const ChunkPolicyOps chunk_policy_arc = {
    .name = "arc",
    .description = "ARC over unique chunks, lists sized in bytes: T1/T2 with ghosts B1/B2 and the adaptive target p",
    .citation = "Megiddo & Modha, ARC, FAST 2003 (sizes: docs/CACHE.md)",
    .create = chunk_arc_create,
    .destroy = chunk_arc_destroy,
    .lookup = chunk_arc_lookup,
    .admit = chunk_arc_admit,
    .victim = chunk_arc_victim,
    .inserted = chunk_arc_inserted,
    .removed = chunk_arc_removed,
    .keep = chunk_arc_keep,
    .reclaiming = chunk_arc_reclaiming,
    .dropped = chunk_arc_dropped,
    .memory = chunk_arc_memory,
};
