/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_arc.c: ARC at chunk granularity: the unique chunks in T1/T2 with
 * ghosts B1/B2 and the adaptive target p, every list sized in bytes
 * (sized_arc.h says how sizes enter the published algorithm). Every
 * missed chunk is admitted (into T2 when it was a ghost, else T1); any
 * access to a cached chunk is a hit.
 *
 * When the chunk log reclaims its oldest segment (ssd-cache-segment-reclaim
 * reinsert), each chunk it asks about is taken as the LRU candidate of its
 * own list and ARC's REPLACE step decides: when REPLACE would take from
 * that list now (T1 when |T1| > p, or >= p on a B2 ghost hit, or T2 is
 * empty; else T2) the chunk is dropped, else ARC would replace from the
 * other list and the chunk is kept (rewritten; it stays where it is in
 * its list, as a page ARC does not replace). With the log as the limit
 * ARC's own victim step never runs, so this is where p acts. Every chunk
 * the log drops, asked or left out by the bound (or by evict's FIFO),
 * leaves as ARC's victims do: a ghost in B1 or B2 (ARC's definition: a
 * page replaced from T1 or T2 is remembered). */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/sized_arc.h"

typedef struct {
    SizedArc arc;         /* payload: the slot */
    uint32_t *entry;      /* per slot: its ARC entry */
    uint32_t slot_room;
    gboolean was_ghost;   /* the pending newcomer */
    ChunkSlot victim;     /* the last victim named (its removal makes a ghost) */
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

/* ARC's REPLACE with slot's chunk as its list's LRU candidate: kept when
 * REPLACE would take from the other list; else the log drops it
 * (chunk_arc_dropped). */
static gboolean chunk_arc_keep(void *st, ChunkSlot slot)
{
    ChunkArc *a = st;
    g_assert(slot < a->slot_room && sized_arc_resident(&a->arc, a->entry[slot]));
    gboolean in_t1 = a->arc.list[a->entry[slot]] == ARC_T1;
    return in_t1 != sized_arc_replaces_t1(&a->arc);
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
    return sizeof *a + sized_arc_bytes(&a->arc) + (size_t)a->slot_room * sizeof(uint32_t);
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
    .dropped = chunk_arc_dropped,
    .memory = chunk_arc_memory,
};
