/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_arc.c: ARC at chunk granularity: the unique chunks in T1/T2 with
 * ghosts B1/B2 and the adaptive target p, every list sized in bytes
 * (sized_arc.h says how sizes enter the published algorithm). Every
 * missed chunk is admitted (into T2 when it was a ghost, else T1); any
 * access to a cached chunk is a hit.
 *
 * When the chunk log reclaims its oldest segment (ssd-cache-segment-reclaim
 * reinsert), a chunk is kept when it is in T2 and earned its place there
 * since it was written (admitted or last kept): a hit (which moves it to
 * T2), or its admission from a ghost (into T2). Not every T2 chunk: with
 * the log as the limit ARC's own replacement never runs, so a chunk once
 * in T2 would be rewritten at every pass of the log until the bound
 * pushed it out. Every chunk the log drops, asked or left out by the
 * bound (or by evict's FIFO), leaves as ARC's victims do: a ghost in B1
 * or B2 (ARC's definition: a page replaced from T1 or T2 is remembered;
 * before, a chunk the bound left out was forgotten, so when it came back
 * it entered T1 and was not kept again). */
#include "cache/policy/chunk_policy.h"
#include "cache/structures/sized_arc.h"

typedef struct {
    SizedArc arc;         /* payload: the slot */
    uint32_t *entry;      /* per slot: its ARC entry */
    uint8_t *earned;      /* per slot: in T2 by a hit or a ghost since written (reinsert keeps it) */
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
    g_free(a->earned);
    g_free(a);
}

static gboolean chunk_arc_lookup(void *st, ChunkSlot slot, const ChunkAccess *acc)
{
    ChunkArc *a = st;
    (void)acc;
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    sized_arc_hit(&a->arc, a->entry[slot]);
    a->earned[slot] = 1;
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
        a->earned = g_renew(uint8_t, a->earned, n);
        a->slot_room = n;
    }
    a->entry[slot] = sized_arc_insert(&a->arc, acc->chunk, acc->length, slot, a->was_ghost);
    a->earned[slot] = a->was_ghost != FALSE;
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

/* Kept when in T2 by a hit or a ghost since written (the rewrite is a
 * write: that is spent); else the log drops it (chunk_arc_dropped). */
static gboolean chunk_arc_keep(void *st, ChunkSlot slot)
{
    ChunkArc *a = st;
    g_assert(slot < a->slot_room && sized_arc_resident(&a->arc, a->entry[slot]));
    gboolean keep = a->earned[slot] != 0;
    g_assert(!keep || a->arc.list[a->entry[slot]] == ARC_T2); /* earned only by entering T2 */
    a->earned[slot] = 0;
    return keep;
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
    return sizeof *a + sized_arc_bytes(&a->arc) + (size_t)a->slot_room * (sizeof(uint32_t) + sizeof(uint8_t));
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
