/* slot_heap.h: an indexed binary heap of slot numbers, for the policies that
 * evict by a key kept per slot (LFU's count and last access, Belady's next
 * access, sigpop's frequency and insertion number), so that the heap code
 * (sifting, removing any slot, rebuilding) is written once. The policy keeps
 * the keys and gives the order: less(ctx, a, b) is TRUE when slot a belongs
 * nearer the top than slot b (a max-heap passes "greater"). The top is the
 * least slot. Every policy passes its own static function, so once these
 * inline functions are inlined the compiler calls it directly.
 *
 * A slot is in the heap at most once; pos[slot] is its index, valid while it
 * is in. O(log n) insert, remove and update, O(1) top, O(n) rebuild; 8 bytes
 * a slot. Among keys that compare equal the order is whatever the sifting
 * leaves: a policy that needs a deterministic victim makes its order total. */
#ifndef DESTOR_CACHE_SLOT_HEAP_H
#define DESTOR_CACHE_SLOT_HEAP_H

#include <glib.h>
#include <stdint.h>

/* Is slot a to be nearer the top than slot b? */
typedef gboolean (*SlotHeapLess)(const void *ctx, uint32_t a, uint32_t b);

typedef struct {
    uint32_t *slot; /* heap order: slot[0] is the top */
    uint32_t *pos;  /* per slot: its index in slot[] */
    uint32_t size;  /* slots in the heap */
} SlotHeap;

/* Per-slot bytes, for the memory report. */
#define SLOT_HEAP_BYTES_PER_SLOT (2 * sizeof(uint32_t))

static inline void slot_heap_init(SlotHeap *h, uint32_t capacity)
{
    uint32_t n = capacity ? capacity : 1;
    h->slot = g_new0(uint32_t, n);
    h->pos = g_new0(uint32_t, n);
    h->size = 0;
}

static inline void slot_heap_free(SlotHeap *h)
{
    g_free(h->slot);
    g_free(h->pos);
}

/* The top slot; the heap must not be empty. */
static inline uint32_t slot_heap_top(const SlotHeap *h)
{
    return h->slot[0];
}

static inline void slot_heap_place_(SlotHeap *h, uint32_t i, uint32_t s)
{
    h->slot[i] = s;
    h->pos[s] = i;
}

/* The slot at index i moves up past the parents it is less than. */
static inline void slot_heap_sift_up_(SlotHeap *h, uint32_t i, SlotHeapLess less, const void *ctx)
{
    uint32_t s = h->slot[i];
    while (i > 0 && less(ctx, s, h->slot[(i - 1) / 2])) {
        slot_heap_place_(h, i, h->slot[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    slot_heap_place_(h, i, s);
}

/* The slot at index i moves down past the least child while that child is
 * less than it. */
static inline void slot_heap_sift_down_(SlotHeap *h, uint32_t i, SlotHeapLess less, const void *ctx)
{
    uint32_t s = h->slot[i];
    for (uint32_t c; (c = 2 * i + 1) < h->size; i = c) {
        if (c + 1 < h->size && less(ctx, h->slot[c + 1], h->slot[c]))
            c++;
        if (!less(ctx, h->slot[c], s))
            break;
        slot_heap_place_(h, i, h->slot[c]);
    }
    slot_heap_place_(h, i, s);
}

/* Slot s, not in the heap, joins it with its key as it is now. */
static inline void slot_heap_insert(SlotHeap *h, uint32_t s, SlotHeapLess less, const void *ctx)
{
    slot_heap_place_(h, h->size++, s);
    slot_heap_sift_up_(h, h->size - 1, less, ctx);
}

/* Slot s's key changed: it moves up or down to its place. */
static inline void slot_heap_update(SlotHeap *h, uint32_t s, SlotHeapLess less, const void *ctx)
{
    uint32_t i = h->pos[s];
    slot_heap_sift_up_(h, i, less, ctx);
    if (h->pos[s] == i)
        slot_heap_sift_down_(h, i, less, ctx);
}

/* Slot s, in the heap, leaves it (the top or any other). The last slot
 * takes its index and moves up or down from there. */
static inline void slot_heap_remove(SlotHeap *h, uint32_t s, SlotHeapLess less, const void *ctx)
{
    uint32_t i = h->pos[s];
    uint32_t last = h->slot[--h->size];
    if (i == h->size)
        return;
    slot_heap_place_(h, i, last);
    slot_heap_update(h, last, less, ctx);
}

/* Slot s joins at the end without taking its place: for loading many slots
 * at once, followed by slot_heap_rebuild. */
static inline void slot_heap_append(SlotHeap *h, uint32_t s)
{
    slot_heap_place_(h, h->size++, s);
}

/* Restore the heap order after any keys changed or slots were appended:
 * O(size). */
static inline void slot_heap_rebuild(SlotHeap *h, SlotHeapLess less, const void *ctx)
{
    for (uint32_t i = h->size / 2; i-- > 0;)
        slot_heap_sift_down_(h, i, less, ctx);
}

#endif
