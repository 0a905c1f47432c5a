/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_heap.h: an indexed binary heap over cache slots, for the policies
 * that evict by a key (LFU's count and last access, Belady's next access,
 * sigpop's frequency and insertion number), so that the heap code (sifting,
 * removing any slot, rebuilding) is written once.
 *
 * SLOT_HEAP_DEFINE(Heap, prefix, Entry, less) defines the type Heap and its
 * functions prefix_init, prefix_insert, ... for entries of the policy's type
 * Entry, which has a member `CacheSlot slot` and may hold the key itself:
 * a sift then reads only the heap array, not one per-slot array per key
 * (LFU with its keys in per-slot arrays measured 0.7x as fast). less(ctx, a,
 * b), a function or macro of the policy, is TRUE when entry a belongs nearer
 * the top than entry b (a max-heap passes "greater"); ctx is what the policy
 * gave prefix_init, for keys kept outside the entries. The top is the least
 * entry.
 *
 * A slot is in the heap at most once; pos[slot] is the index of its entry,
 * valid while it is in. O(log n) insert, remove and the moves after a key
 * changed (rise, sink, or update when the direction is not known: one
 * comparison more), O(1) top, O(n) rebuild; sizeof(Entry) + 4 bytes a
 * slot. Among entries that compare equal the order is whatever the sifting
 * leaves: a policy that needs a deterministic victim makes its order total.
 * prefix_check() holds the whole order; in a checking build (util/check.h)
 * every insert, move and removal checks where the entry landed, and a
 * rebuild the whole heap. */
#ifndef DESTOR_CACHE_SLOT_HEAP_H
#define DESTOR_CACHE_SLOT_HEAP_H

#include "cache/policy/policy.h"
#include "util/check.h"

#include <glib.h>
#include <stdint.h>

/* A policy uses only some of a heap's functions: no warning for the rest. */
#define SLOT_HEAP_FN static inline G_GNUC_UNUSED

/* Per-slot bytes of a heap of Entry, for the memory report. */
#define SLOT_HEAP_BYTES_PER_SLOT(Entry) (sizeof(Entry) + sizeof(uint32_t))

#define SLOT_HEAP_DEFINE(Heap, prefix, Entry, less)                                        \
    typedef struct {                                                                       \
        Entry *entry;    /* heap order: entry[0] is the top */                             \
        uint32_t *pos;   /* per slot: the index of its entry */                            \
        uint32_t size;   /* entries in the heap */                                         \
        const void *ctx; /* handed to less */                                              \
    } Heap;                                                                                \
                                                                                           \
    SLOT_HEAP_FN void prefix##_init(Heap *h, uint32_t capacity, const void *ctx)           \
    {                                                                                      \
        uint32_t n = capacity ? capacity : 1;                                              \
        h->entry = g_new0(Entry, n);                                                       \
        h->pos = g_new0(uint32_t, n);                                                      \
        h->size = 0;                                                                       \
        h->ctx = ctx;                                                                      \
    }                                                                                      \
                                                                                           \
    SLOT_HEAP_FN void prefix##_free(Heap *h)                                               \
    {                                                                                      \
        g_free(h->entry);                                                                  \
        g_free(h->pos);                                                                    \
    }                                                                                      \
                                                                                           \
    /* The top entry; the heap must not be empty. */                                       \
    SLOT_HEAP_FN Entry *prefix##_top(Heap *h)                                              \
    {                                                                                      \
        return &h->entry[0];                                                               \
    }                                                                                      \
                                                                                           \
    /* The entry of slot s, in the heap: change its key, then call rise, sink              \
     * or update. */                                                                       \
    SLOT_HEAP_FN Entry *prefix##_of(Heap *h, CacheSlot s)                                  \
    {                                                                                      \
        return &h->entry[h->pos[s]];                                                       \
    }                                                                                      \
                                                                                           \
    SLOT_HEAP_FN void prefix##_place(Heap *h, uint32_t i, Entry e)                         \
    {                                                                                      \
        h->entry[i] = e;                                                                   \
        h->pos[e.slot] = i;                                                                \
    }                                                                                      \
                                                                                           \
    /* The entry at index i moves up past the parents it is less than. */                  \
    SLOT_HEAP_FN void prefix##_sift_up(Heap *h, uint32_t i)                                \
    {                                                                                      \
        Entry e = h->entry[i];                                                             \
        while (i > 0 && less(h->ctx, &e, &h->entry[(i - 1) / 2])) {                        \
            prefix##_place(h, i, h->entry[(i - 1) / 2]);                                   \
            i = (i - 1) / 2;                                                               \
        }                                                                                  \
        prefix##_place(h, i, e);                                                           \
    }                                                                                      \
                                                                                           \
    /* The entry at index i moves down past its least child while that child               \
     * is less than it. */                                                                 \
    SLOT_HEAP_FN void prefix##_sift_down(Heap *h, uint32_t i)                              \
    {                                                                                      \
        Entry e = h->entry[i];                                                             \
        for (uint32_t c; (c = 2 * i + 1) < h->size; i = c) {                               \
            if (c + 1 < h->size && less(h->ctx, &h->entry[c + 1], &h->entry[c]))           \
                c++;                                                                       \
            if (!less(h->ctx, &h->entry[c], &e))                                           \
                break;                                                                     \
            prefix##_place(h, i, h->entry[c]);                                             \
        }                                                                                  \
        prefix##_place(h, i, e);                                                           \
    }                                                                                      \
                                                                                           \
    /* Entry i is where its slot says, not less than its parent, no child                  \
     * less than it. O(1). */                                                              \
    SLOT_HEAP_FN gboolean prefix##_ok_at(const Heap *h, uint32_t i)                        \
    {                                                                                      \
        uint32_t c = 2 * i + 1;                                                            \
        return i < h->size && h->pos[h->entry[i].slot] == i &&                             \
               (i == 0 || !less(h->ctx, &h->entry[i], &h->entry[(i - 1) / 2])) &&          \
               (c >= h->size || !less(h->ctx, &h->entry[c], &h->entry[i])) &&              \
               (c + 1 >= h->size || !less(h->ctx, &h->entry[c + 1], &h->entry[i]));        \
    }                                                                                      \
                                                                                           \
    /* The whole heap in order. O(size). */                                                \
    SLOT_HEAP_FN gboolean prefix##_check(const Heap *h)                                    \
    {                                                                                      \
        for (uint32_t i = 0; i < h->size; i++)                                             \
            if (!prefix##_ok_at(h, i))                                                     \
                return FALSE;                                                              \
        return TRUE;                                                                       \
    }                                                                                      \
                                                                                           \
    /* e's slot, not in the heap, joins it. */                                             \
    SLOT_HEAP_FN void prefix##_insert(Heap *h, Entry e)                                    \
    {                                                                                      \
        prefix##_place(h, h->size++, e);                                                   \
        prefix##_sift_up(h, h->size - 1);                                                  \
        DESTOR_CHECK(prefix##_ok_at(h, h->pos[e.slot]));                                   \
    }                                                                                      \
                                                                                           \
    /* Slot s's key changed so that it belongs nearer the top, if anything: its            \
     * entry moves up. */                                                                  \
    SLOT_HEAP_FN void prefix##_rise(Heap *h, CacheSlot s)                                  \
    {                                                                                      \
        prefix##_sift_up(h, h->pos[s]);                                                    \
        DESTOR_CHECK(prefix##_ok_at(h, h->pos[s]));                                        \
    }                                                                                      \
                                                                                           \
    /* Slot s's key changed so that it belongs further from the top, if                    \
     * anything: its entry moves down. */                                                  \
    SLOT_HEAP_FN void prefix##_sink(Heap *h, CacheSlot s)                                  \
    {                                                                                      \
        prefix##_sift_down(h, h->pos[s]);                                                  \
        DESTOR_CHECK(prefix##_ok_at(h, h->pos[s]));                                        \
    }                                                                                      \
                                                                                           \
    /* Slot s's key changed either way: its entry moves up or down. */                     \
    SLOT_HEAP_FN void prefix##_update(Heap *h, CacheSlot s)                                \
    {                                                                                      \
        uint32_t i = h->pos[s];                                                            \
        prefix##_sift_up(h, i);                                                            \
        if (h->pos[s] == i)                                                                \
            prefix##_sift_down(h, i);                                                      \
        DESTOR_CHECK(prefix##_ok_at(h, h->pos[s]));                                        \
    }                                                                                      \
                                                                                           \
    /* Slot s, in the heap, leaves it (the top or any other). The last entry               \
     * takes its index and moves up or down from there. */                                 \
    SLOT_HEAP_FN void prefix##_remove(Heap *h, CacheSlot s)                                \
    {                                                                                      \
        uint32_t i = h->pos[s];                                                            \
        Entry last = h->entry[--h->size];                                                  \
        if (i == h->size)                                                                  \
            return;                                                                        \
        prefix##_place(h, i, last);                                                        \
        prefix##_update(h, last.slot);                                                     \
    }                                                                                      \
                                                                                           \
    /* e's slot joins at the end without taking its place: for loading many                \
     * slots at once, followed by rebuild. */                                              \
    SLOT_HEAP_FN void prefix##_append(Heap *h, Entry e)                                    \
    {                                                                                      \
        prefix##_place(h, h->size++, e);                                                   \
    }                                                                                      \
                                                                                           \
    /* Restore the heap order after keys changed or entries were appended:                 \
     * O(size). */                                                                         \
    SLOT_HEAP_FN void prefix##_rebuild(Heap *h)                                            \
    {                                                                                      \
        for (uint32_t i = h->size / 2; i-- > 0;)                                           \
            prefix##_sift_down(h, i);                                                      \
        DESTOR_CHECK(prefix##_check(h));                                                   \
    }

#endif
