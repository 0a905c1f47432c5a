/* SPDX-License-Identifier: GPL-3.0-or-later */
/* belady.c: Belady's MIN with bypass (Belady 1966), the offline upper bound
 * on hits: it knows the whole container-access sequence (prepare) and
 * keeps, of the containers it could hold, those needed again soonest.
 *
 * prepare() computes, for every position i of the sequence, next[i]: the
 * position of the next access to the same container, or NEVER. The policy
 * then follows its own position: exactly one of hit() or admit() per access
 * (the core calls neither when the capacity is 0, and then nothing here is
 * ever decided). Each cached container is keyed by its next access; an
 * indexed max-heap over the slots (slot_heap.h) gives the one needed
 * furthest away.
 *
 *   hit:   the container's key becomes next[position].
 *   miss:  next[position] is NEVER: refused (refused_never_again), full or
 *          not; the cache not full: admitted into a free slot; full: the
 *          heap's top (the victim) is replaced if its next access is
 *          further than the newcomer's, else the newcomer is refused
 *          (refused_further_than_victim: bypass).
 *
 * Choices (docs/CACHE.md):
 *  - A miss never accessed again is refused even when a slot is free: it
 *    could never be hit, so refusing loses no hit and saves its SSD write.
 *  - Ties: two next accesses at distinct positions never tie; cached
 *    containers never accessed again do. Among those, the one whose last
 *    access is oldest goes first (its key is NEVER_BASE + (2^32-1 - last
 *    position), above every real position).
 *  - The policy checks that the accesses it sees are the prepared sequence:
 *    expect[id] holds the position of id's next access as prepared, so the
 *    first access whose position differs (another id, or past the end) is
 *    caught. From there on its decisions would mean nothing: it admits no
 *    more misses and counts every access in off_sequence_accesses (0 when
 *    the caller hands over the sequence it replays).
 *
 * Positions are 32-bit (a sequence of at most 2^32 - 1 accesses). Memory:
 * next[] (4 bytes an access), expect[] (4 bytes a container), and per slot
 * a heap entry (key and slot, 16 bytes) and its index (4). No saved state:
 * an offline policy runs in simulation only, which has no restart. */
#include "cache/policy/policy.h"
#include "cache/structures/slot_heap.h"
#include "util/error.h"

#define NEVER UINT32_MAX
#define NEVER_BASE ((uint64_t)1 << 32)

enum { REFUSED_NEVER, REFUSED_FURTHER, OFF_SEQUENCE, N_COUNTERS };

typedef struct {
    uint64_t key; /* the next access (see key_of) */
    CacheSlot slot;
} HeapEntry;

/* The heap's order: the later next access nearer the top. */
static inline gboolean later(const void *ctx, const HeapEntry *x, const HeapEntry *y)
{
    (void)ctx;
    return x->key > y->key;
}

SLOT_HEAP_DEFINE(BeladyHeap, belady_heap, HeapEntry, later)

typedef struct {
    const CachePolicyEnv *env;
    uint32_t *next;    /* per position: next access to its container, or NEVER */
    uint32_t *expect;  /* per container: its next access from `pos` on, or NEVER */
    size_t n;          /* positions */
    size_t pos;        /* the position of the next access */
    gboolean lost;     /* an access did not match the sequence */
    BeladyHeap heap;   /* the cached slots, the largest key on top */
    uint64_t pending;  /* the key of the container being admitted */
    CacheSlot replacing; /* the victim being replaced, or CACHE_NO_SLOT */
} Belady;

static void *belady_create(const CachePolicyEnv *env)
{
    Belady *b = g_new0(Belady, 1);
    b->env = env;
    belady_heap_init(&b->heap, env->capacity, NULL);
    b->replacing = CACHE_NO_SLOT;
    return b;
}

static void belady_destroy(void *st)
{
    Belady *b = st;
    g_free(b->next);
    g_free(b->expect);
    belady_heap_free(&b->heap);
    g_free(b);
}

static gboolean belady_prepare(void *st, const ContainerId *seq, size_t n, GError **err)
{
    Belady *b = st;
    if (n >= NEVER) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "belady: %zu accesses; at most %u fit its 32-bit positions", n, NEVER - 1);
        return FALSE;
    }
    g_free(b->next);
    g_free(b->expect);
    b->next = g_new(uint32_t, n ? n : 1);
    b->expect = g_new(uint32_t, b->env->n_containers ? b->env->n_containers : 1);
    for (uint32_t id = 0; id < b->env->n_containers; id++)
        b->expect[id] = NEVER;
    for (size_t i = n; i-- > 0;) { /* backwards: expect ends as each id's first access */
        b->next[i] = b->expect[seq[i]];
        b->expect[seq[i]] = (uint32_t)i;
    }
    b->n = n;
    return TRUE;
}

/* The key of a container whose next access is `next`, accessed now at `pos`. */
static uint64_t key_of(uint32_t next, size_t pos)
{
    return next != NEVER ? next : NEVER_BASE + (NEVER - (uint32_t)pos);
}

/* Is the access at the current position to `id` as prepared? Moves on to
 * the next position; a mismatch makes the policy lost for good. */
static gboolean follow(Belady *b, ContainerId id, uint32_t *next)
{
    if (!b->lost && b->pos < b->n && b->expect[id] == b->pos) {
        *next = b->next[b->pos];
        b->expect[id] = *next;
        b->pos++;
        return TRUE;
    }
    b->lost = TRUE;
    b->env->counters[OFF_SEQUENCE]++;
    return FALSE;
}

static void belady_hit(void *st, CacheSlot slot)
{
    Belady *b = st;
    size_t pos = b->pos;
    uint32_t next;
    if (!follow(b, b->env->slot_id[slot], &next))
        return;
    belady_heap_of(&b->heap, slot)->key = key_of(next, pos); /* later than now */
    belady_heap_rise(&b->heap, slot); /* a later key is nearer the top */
}

static CacheDecision belady_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Belady *b = st;
    size_t pos = b->pos;
    uint32_t next;
    if (!follow(b, id, &next))
        return CACHE_REFUSE;
    if (next == NEVER) {
        b->env->counters[REFUSED_NEVER]++;
        return CACHE_REFUSE;
    }
    b->pending = key_of(next, pos);
    if (!full)
        return CACHE_ADMIT_FREE;
    const HeapEntry *top = belady_heap_top(&b->heap);
    if (top->key < b->pending) {
        b->env->counters[REFUSED_FURTHER]++;
        return CACHE_REFUSE;
    }
    *victim = b->replacing = top->slot;
    return CACHE_ADMIT_REPLACE;
}

/* A replacement: the core calls removed(victim), then inserted(victim)
 * (simulation mode, where an offline policy runs, has no failed write in
 * between). The victim's entry stays at the top until the newcomer takes
 * it over with its nearer key and moves down: one pass instead of two. */
static void belady_inserted(void *st, CacheSlot slot)
{
    Belady *b = st;
    if (slot == b->replacing) {
        b->replacing = CACHE_NO_SLOT;
        belady_heap_of(&b->heap, slot)->key = b->pending;
        belady_heap_sink(&b->heap, slot);
        return;
    }
    belady_heap_insert(&b->heap, (HeapEntry){ b->pending, slot });
}

static void belady_removed(void *st, CacheSlot slot)
{
    Belady *b = st;
    if (slot == b->replacing)
        return;
    belady_heap_remove(&b->heap, slot);
}

static size_t belady_memory(const void *st)
{
    const Belady *b = st;
    size_t per_slot = SLOT_HEAP_BYTES_PER_SLOT(HeapEntry);
    return sizeof *b + b->n * sizeof(uint32_t) + (b->expect ? b->env->n_containers * sizeof(uint32_t) : 0) +
           b->env->capacity * per_slot;
}

static const CachePolicyCounter belady_counters[N_COUNTERS] = {
    [REFUSED_NEVER] = { "refused_never_again", "refused: never again", NULL },
    [REFUSED_FURTHER] = { "refused_further_than_victim", "refused: later than the victim", NULL },
    [OFF_SEQUENCE] = { "off_sequence_accesses", "accesses off the sequence", NULL },
};

const CachePolicyOps cache_policy_belady = {
    .name = "belady",
    .description = "Belady's MIN with bypass (offline): evict, or refuse, the container needed furthest away",
    .citation = "Belady: A study of replacement algorithms for a virtual-storage computer, IBM Systems Journal 1966",
    .offline = TRUE,
    .counters = belady_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = belady_create,
    .destroy = belady_destroy,
    .hit = belady_hit,
    .admit = belady_admit,
    .inserted = belady_inserted,
    .removed = belady_removed,
    .prepare = belady_prepare,
    .bytes_per_slot = SLOT_HEAP_BYTES_PER_SLOT(HeapEntry),
    .memory = belady_memory,
};
