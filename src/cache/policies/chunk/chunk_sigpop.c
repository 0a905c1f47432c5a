/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_sigpop.c: sigpop's significance-tested popularity admission (the
 * container policy is sigpop.c, a policy of our own after PLC-Cache and
 * TinyLFU) at chunk granularity, counting chunks: f(x) is x's estimate in
 * a count-min sketch (frequency_sketch.h, as chunk_tinylfu.c keeps it:
 * every access, hit or miss, added first, the chunk identity folded to 32
 * bits; sized for, and halved every sigpop-chunk-sample-factor x, the
 * chunks the cache holds at the store's average chunk size), so nothing is
 * kept per stored chunk.
 *
 *   victim the cached chunk with the lowest recorded f; among equal f the
 *          one admitted earlier (an insertion number per slot).
 *   miss x a = f(x), this access counted:
 *          a < sigpop-chunk-min-count     -> refused (refused_cold)
 *          fits in the free space         -> admitted
 *          else b = f(victim):
 *          a - b > z sqrt(a + b)          -> admitted; the victim, then the
 *                                            next lowest, leave until it fits
 *          otherwise                      -> refused (refused_not_significant)
 *          z = sigpop-chunk-z.
 *
 * Choices (docs/CACHE.md "plc and sigpop counting chunks"): a cached
 * chunk's recorded f is its estimate at its last access, insertion or
 * aging (an aging of the sketch re-reads every cached chunk's estimate:
 * O(cached chunks) once per sample-factor x chunks accesses); the test is
 * made with the first victim only (chunk_tinylfu.c's rule); the sketch's
 * counters stop at 15, so the test compares counts of at most 15. Defaults
 * are sigpop.c's: z 2, min-count 2. */
#include "cache/policy/chunk_policy.h"
#include "cache/policy/frequency_sketch.h"
#include "cache/structures/slot_heap.h"

#include <math.h>

enum { KEY_Z, KEY_MIN_COUNT, KEY_SAMPLE, N_KEYS };
enum { REFUSED_COLD, REFUSED_NOT_SIGNIFICANT, AGINGS, N_COUNTERS };

/* The victim heap's entry: the slot with its keys (recorded f, insertion number). */
typedef struct {
    CacheSlot slot;
    uint32_t f;
    uint64_t seq;
} HeapEntry;

#define heap_less(ctx, x, y) ((x)->f < (y)->f || ((x)->f == (y)->f && (x)->seq < (y)->seq))

SLOT_HEAP_DEFINE(VictimHeap, victim_heap, HeapEntry, heap_less)

typedef struct {
    VictimHeap heap;
    uint64_t *slot_chunk;
    uint32_t *slot_length;
    uint32_t slot_room;
    uint64_t used, capacity, next_seq;
    double z;
    uint32_t min_count;
    FrequencySketch sketch;
    uint64_t *counters;
} ChunkSigpop;

static const CachePolicyKey chunk_sigpop_keys[N_KEYS] = {
    [KEY_Z] = { "sigpop-chunk-z", CACHE_KEY_REAL, 0, 100, NULL, "2.0",
                "chunk granularity: a miss of count a replaces the least counted chunk (count b) only if "
                "a - b > z sqrt(a + b)" },
    [KEY_MIN_COUNT] = { "sigpop-chunk-min-count", CACHE_KEY_UINT, 0, SKETCH_COUNTER_MAX, NULL, "2",
                        "chunk granularity: a miss whose estimate (this access counted) is below this is refused" },
    [KEY_SAMPLE] = { "sigpop-chunk-sample-factor", CACHE_KEY_UINT, 1, 1000, NULL, "10",
                     "chunk granularity: the count sketch halves its counters every this many x the chunks the "
                     "cache holds (at the average chunk size) accesses" },
};

static const CachePolicyCounter chunk_sigpop_counters[N_COUNTERS] = {
    [REFUSED_COLD] = { "refused_cold", "refused: count below sigpop-chunk-min-count", NULL },
    [REFUSED_NOT_SIGNIFICANT] = { "refused_not_significant", "refused: not significantly more counted", NULL },
    [AGINGS] = { "agings", "sketch halvings", NULL },
};

static ContainerId sketch_key(uint64_t chunk)
{
    return (ContainerId)(chunk ^ (chunk >> 32));
}

static void *chunk_sigpop_create(const ChunkPolicyEnv *env)
{
    ChunkSigpop *s = g_new0(ChunkSigpop, 1);
    uint64_t chunks = env->capacity_bytes / (env->avg_chunk_size ? env->avg_chunk_size : 1);
    uint32_t n = chunks < 1 ? 1 : chunks > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)chunks;
    victim_heap_init(&s->heap, 256, s);
    s->slot_room = 256;
    s->slot_chunk = g_new0(uint64_t, s->slot_room);
    s->slot_length = g_new0(uint32_t, s->slot_room);
    s->capacity = env->capacity_bytes;
    s->z = env->values[KEY_Z].number;
    s->min_count = (uint32_t)env->values[KEY_MIN_COUNT].number;
    s->counters = env->counters;
    s->next_seq = 1;
    sketch_init(&s->sketch, n, (uint64_t)env->values[KEY_SAMPLE].number * n);
    return s;
}

static void chunk_sigpop_destroy(void *st)
{
    ChunkSigpop *s = st;
    victim_heap_free(&s->heap);
    sketch_free(&s->sketch);
    g_free(s->slot_chunk);
    g_free(s->slot_length);
    g_free(s);
}

/* Count an access; after an aging, re-read every cached chunk's f. */
static unsigned count(ChunkSigpop *s, uint64_t chunk)
{
    uint64_t before = s->sketch.accesses;
    unsigned f = sketch_add(&s->sketch, sketch_key(chunk));
    if (s->sketch.accesses <= before) { /* halved */
        s->counters[AGINGS]++;
        for (uint32_t i = 0; i < s->heap.size; i++) {
            HeapEntry *e = &s->heap.entry[i];
            e->f = sketch_estimate(&s->sketch, sketch_key(s->slot_chunk[e->slot]));
        }
        victim_heap_rebuild(&s->heap);
        f = sketch_estimate(&s->sketch, sketch_key(chunk));
    }
    return f;
}

static gboolean chunk_sigpop_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkSigpop *s = st;
    unsigned f = count(s, a->chunk);
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    victim_heap_of(&s->heap, slot)->f = f;
    victim_heap_update(&s->heap, slot);
    return TRUE;
}

static gboolean chunk_sigpop_admit(void *st, const ChunkAccess *a)
{
    ChunkSigpop *s = st;
    double fa = sketch_estimate(&s->sketch, sketch_key(a->chunk));
    if (fa < s->min_count) {
        s->counters[REFUSED_COLD]++;
        return FALSE;
    }
    if (s->used + a->length <= s->capacity || s->heap.size == 0)
        return TRUE;
    double fb = victim_heap_top(&s->heap)->f;
    if (fa - fb > s->z * sqrt(fa + fb))
        return TRUE;
    s->counters[REFUSED_NOT_SIGNIFICANT]++;
    return FALSE;
}

static ChunkSlot chunk_sigpop_victim(void *st)
{
    ChunkSigpop *s = st;
    return s->heap.size ? victim_heap_top(&s->heap)->slot : CHUNK_NO_SLOT;
}

static void chunk_sigpop_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkSigpop *s = st;
    if (slot >= s->slot_room) {
        uint32_t n = s->slot_room;
        while (n <= slot)
            n *= 2;
        s->slot_chunk = g_renew(uint64_t, s->slot_chunk, n);
        s->slot_length = g_renew(uint32_t, s->slot_length, n);
        s->heap.entry = g_renew(HeapEntry, s->heap.entry, n); /* at most one entry a slot */
        s->heap.pos = g_renew(uint32_t, s->heap.pos, n);
        s->slot_room = n;
    }
    s->slot_chunk[slot] = a->chunk;
    s->slot_length[slot] = a->length;
    s->used += a->length;
    HeapEntry e = { slot, sketch_estimate(&s->sketch, sketch_key(a->chunk)), s->next_seq++ };
    victim_heap_insert(&s->heap, e);
}

static void chunk_sigpop_removed(void *st, ChunkSlot slot)
{
    ChunkSigpop *s = st;
    s->used -= s->slot_length[slot];
    victim_heap_remove(&s->heap, slot);
}

static size_t chunk_sigpop_memory(const void *st)
{
    const ChunkSigpop *s = st;
    return sizeof *s + (size_t)s->slot_room * (sizeof(uint64_t) + sizeof(uint32_t) + SLOT_HEAP_BYTES_PER_SLOT(HeapEntry)) +
           (size_t)SKETCH_ROWS * s->sketch.width / 2;
}

const ChunkPolicyOps chunk_policy_sigpop = {
    .name = "sigpop",
    .description = "significance-tested popularity admission over unique chunks: a miss replaces the least "
                   "counted chunk only when a - b > z sqrt(a + b), counts in a sketch",
    .citation = "our own, after PLC-Cache (MSST 2014) and TinyLFU (ACM TOS 2017); chunks: docs/CACHE.md",
    .keys = chunk_sigpop_keys,
    .n_keys = N_KEYS,
    .counters = chunk_sigpop_counters,
    .n_counters = N_COUNTERS,
    .create = chunk_sigpop_create,
    .destroy = chunk_sigpop_destroy,
    .lookup = chunk_sigpop_lookup,
    .admit = chunk_sigpop_admit,
    .victim = chunk_sigpop_victim,
    .inserted = chunk_sigpop_inserted,
    .removed = chunk_sigpop_removed,
    .memory = chunk_sigpop_memory,
};
