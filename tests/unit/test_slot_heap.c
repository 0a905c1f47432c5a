/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_slot_heap.c: the indexed heap over slots that LFU, Belady and sigpop
 * share (src/cache/structures/slot_heap.h), on its own: seeded random sequences of
 * inserts, removals of any slot, key changes (rise, sink, update), bulk
 * loads (append, rebuild) and key changes followed by a rebuild, in a
 * min-order and a max-order heap, each step checked against a brute-force
 * search for the top, with the heap order and the position index checked
 * in full after every step. */
#include "cache/structures/slot_heap.h"
#include "unit.h"

#include <stdlib.h>

typedef struct {
    uint32_t key; /* few distinct values, so that keys tie often */
    CacheSlot slot;
} Entry;

/* ctx: whether the larger key is on top. Ties: the lower slot first, so
 * that exactly one entry is the top. */
static inline gboolean entry_less(const void *ctx, const Entry *a, const Entry *b)
{
    gboolean max = *(const gboolean *)ctx;
    if (a->key != b->key)
        return max ? a->key > b->key : a->key < b->key;
    return a->slot < b->slot;
}

SLOT_HEAP_DEFINE(TestHeap, test_heap, Entry, entry_less)

typedef struct {
    TestHeap heap;
    uint32_t capacity;
    gboolean *in;  /* per slot: in the heap (the model) */
    uint32_t *key; /* per slot: its key (the model) */
    uint32_t n;    /* slots in */
    gboolean max;
} Run;

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A random slot that is (in = TRUE) or is not in the heap; there must be one. */
static CacheSlot pick(const Run *r, gboolean in, uint64_t *rng)
{
    CacheSlot s;
    do
        s = (CacheSlot)(next_rand(rng) % r->capacity);
    while (r->in[s] != in);
    return s;
}

/* Is the entry for slot a to be above the one for slot b, by the model? */
static gboolean model_above(const Run *r, CacheSlot a, CacheSlot b)
{
    if (r->key[a] != r->key[b])
        return r->max ? r->key[a] > r->key[b] : r->key[a] < r->key[b];
    return a < b;
}

/* The heap against the model: the same slots with the same keys, every
 * position recorded, no child above its parent, and the top the one a
 * search of all slots finds. */
static gboolean consistent(Run *r)
{
    TestHeap *h = &r->heap;
    if (h->size != r->n)
        return FALSE;
    for (uint32_t i = 0; i < h->size; i++) {
        CacheSlot s = h->entry[i].slot;
        if (s >= r->capacity || !r->in[s] || h->pos[s] != i || h->entry[i].key != r->key[s])
            return FALSE;
        if (i > 0 && model_above(r, s, h->entry[(i - 1) / 2].slot))
            return FALSE;
    }
    CacheSlot best = CACHE_NO_SLOT;
    for (CacheSlot s = 0; s < r->capacity; s++)
        if (r->in[s] && (best == CACHE_NO_SLOT || model_above(r, s, best)))
            best = s;
    return r->n == 0 || test_heap_top(h)->slot == best;
}

/* A new key for slot s, in the heap, moved with rise, sink or update. */
static void change_key(Run *r, CacheSlot s, uint64_t *rng)
{
    uint32_t old = r->key[s], k = (uint32_t)(next_rand(rng) % 16);
    r->key[s] = k;
    test_heap_of(&r->heap, s)->key = k;
    gboolean up = r->max ? k >= old : k <= old; /* nearer the top, if anything */
    if (next_rand(rng) % 3 == 0)
        test_heap_update(&r->heap, s);
    else if (up)
        test_heap_rise(&r->heap, s);
    else
        test_heap_sink(&r->heap, s);
}

static void run_random(uint32_t capacity, gboolean max, uint64_t seed, int steps)
{
    Run r = { .capacity = capacity, .max = max };
    r.in = g_new0(gboolean, capacity);
    r.key = g_new0(uint32_t, capacity);
    test_heap_init(&r.heap, capacity, &r.max);
    uint64_t rng = seed;
    int bad = 0;
    for (int step = 0; step < steps && !bad; step++) {
        unsigned op = (unsigned)(next_rand(&rng) % 100);
        if (op < 40 && r.n < capacity) { /* insert */
            CacheSlot s = pick(&r, FALSE, &rng);
            r.key[s] = (uint32_t)(next_rand(&rng) % 16);
            r.in[s] = TRUE;
            r.n++;
            test_heap_insert(&r.heap, (Entry){ r.key[s], s });
        } else if (op < 70 && r.n > 0) { /* remove the top or any other slot */
            CacheSlot s = op < 50 ? test_heap_top(&r.heap)->slot : pick(&r, TRUE, &rng);
            test_heap_remove(&r.heap, s);
            r.in[s] = FALSE;
            r.n--;
        } else if (op < 95 && r.n > 0) {
            change_key(&r, pick(&r, TRUE, &rng), &rng);
        } else if (op < 98) { /* bulk load: append every absent slot, then rebuild */
            for (CacheSlot s = 0; s < capacity; s++) {
                if (r.in[s])
                    continue;
                r.key[s] = (uint32_t)(next_rand(&rng) % 16);
                r.in[s] = TRUE;
                r.n++;
                test_heap_append(&r.heap, (Entry){ r.key[s], s });
            }
            test_heap_rebuild(&r.heap);
        } else { /* change every key in place, then rebuild */
            for (uint32_t i = 0; i < r.heap.size; i++) {
                Entry *e = &r.heap.entry[i];
                e->key = r.key[e->slot] = (uint32_t)(next_rand(&rng) % 16);
            }
            test_heap_rebuild(&r.heap);
        }
        bad = !consistent(&r);
    }
    CU_ASSERT_FALSE(bad);
    test_heap_free(&r.heap);
    g_free(r.in);
    g_free(r.key);
}

static void test_min_random(void)
{
    const uint32_t capacities[] = { 1, 2, 3, 7, 64, 257 };
    for (size_t i = 0; i < G_N_ELEMENTS(capacities); i++)
        run_random(capacities[i], FALSE, 1000 + i, 20000);
}

static void test_max_random(void)
{
    const uint32_t capacities[] = { 1, 2, 3, 7, 64, 257 };
    for (size_t i = 0; i < G_N_ELEMENTS(capacities); i++)
        run_random(capacities[i], TRUE, 2000 + i, 20000);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("slot heap", NULL, NULL);
    CU_add_test(s, "min-heap, random steps = brute force", test_min_random);
    CU_add_test(s, "max-heap, random steps = brute force", test_max_random);
}

UNIT_MAIN(add_suites)
