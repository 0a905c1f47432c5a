/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_reach.h: the slots a chunk policy would replace next, as marked
 * when the chunk log starts reclaiming a segment under
 * ssd-cache-segment-reclaim reinsert (chunk_arc.c: the chunks ARC's
 * REPLACE would reach to free a segment's room).
 * A flag per slot and the list of flagged slots, so clearing costs what
 * marking did. */
#ifndef DESTOR_CACHE_SLOT_REACH_H
#define DESTOR_CACHE_SLOT_REACH_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint8_t *flag;    /* per slot: marked */
    uint32_t room;    /* slots flag[] holds */
    uint32_t *marked; /* the marked slots */
    uint32_t n_marked, marked_room;
} SlotReach;

static inline void slot_reach_free(SlotReach *r)
{
    g_free(r->flag);
    g_free(r->marked);
    memset(r, 0, sizeof *r);
}

/* Unmark every slot. */
static inline void slot_reach_clear(SlotReach *r)
{
    for (uint32_t i = 0; i < r->n_marked; i++)
        r->flag[r->marked[i]] = 0;
    r->n_marked = 0;
}

static inline void slot_reach_mark(SlotReach *r, uint32_t slot)
{
    if (slot >= r->room) {
        uint32_t n = r->room ? r->room : 256;
        while (n <= slot)
            n *= 2;
        r->flag = g_renew(uint8_t, r->flag, n);
        memset(r->flag + r->room, 0, n - r->room);
        r->room = n;
    }
    g_assert(!r->flag[slot]);
    if (r->n_marked == r->marked_room) {
        r->marked_room = r->marked_room ? 2 * r->marked_room : 64;
        r->marked = g_renew(uint32_t, r->marked, r->marked_room);
    }
    r->flag[slot] = 1;
    r->marked[r->n_marked++] = slot;
}

static inline gboolean slot_reach_has(const SlotReach *r, uint32_t slot)
{
    return slot < r->room && r->flag[slot];
}

static inline size_t slot_reach_bytes(const SlotReach *r)
{
    return (size_t)r->room + (size_t)r->marked_room * sizeof(uint32_t);
}

#endif
