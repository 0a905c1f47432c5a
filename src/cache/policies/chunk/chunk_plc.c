/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_plc.c: PLC-Cache's write-aware admission (Liu, Chai, Qin, Xiao,
 * MSST 2014; the container policy is plc.c) at chunk granularity, counting
 * chunks: a chunk's access_count is its estimate in a count-min sketch
 * (frequency_sketch.h, as chunk_tinylfu.c keeps it: every access, hit or
 * miss, is added first; the chunk identity folded to 32 bits), so the
 * memory per stored chunk stays bounded (the sketch is sized for the
 * chunks the cache holds at the store's average chunk size).
 *
 *   hit:   inner_priority += 1
 *   miss:  Popularity Filter: admit only if estimate > plc-chunk-filter-threshold
 *          fits in the free space: admitted
 *          else a = CLOCK_EVICT(); a.delay_count -= 1 (not below 0)
 *               delay_count > 0: refused (Delayed Eviction)
 *               else admitted only if IN_OUT_COMPARE(b, a), else refused
 *          admitted: a leaves, then CLOCK_EVICT() picks further victims
 *          (no delay, no comparison) until the newcomer fits
 *   CLOCK_EVICT: while the chunk under the hand has inner_priority > 0:
 *          decrement it and advance; return it (the hand stays on it).
 *   IN_OUT_COMPARE(b, a): estimate(b) >= f(estimate(a)) * threshold with
 *          plc.c's default f = clamp(x / threshold, 1, 2), i.e. estimate(b)
 *          >= clamp(estimate(a), threshold, 2 * threshold).
 *
 * Choices (docs/CACHE.md "plc and sigpop counting chunks"): the paper's
 * reference_count clause of IN_OUT_COMPARE is left out (a chunk policy
 * sees no per-chunk reference count; the store's chunks are unique); an
 * evicted chunk's access_count is not reset (a sketch cannot reset one
 * key), the sketch ages instead (halved every plc-chunk-sample-factor x
 * the cache's chunks accesses, tinylfu's rule); a newcomer's
 * inner_priority is its estimate minus the threshold (plc.c's default,
 * hotness) and it enters the clock behind the hand (the last the hand
 * reaches), since a variable-size newcomer may replace several chunks; the
 * comparison is made with the first victim only (chunk_tinylfu.c's rule).
 * Defaults are plc.c's (the paper's): threshold 4, delay 2. */
#include "cache/policy/chunk_policy.h"
#include "cache/policy/frequency_sketch.h"
#include "cache/structures/index_list.h"

enum { KEY_FILTER, KEY_DELAY, KEY_SAMPLE, N_KEYS };
enum { REFUSED_FILTER, REFUSED_DELAY, REFUSED_INOUT, N_COUNTERS };

typedef struct {
    IndexLinks links;
    IndexList ring;         /* the clock: the hand on the head, advancing moves it to the tail */
    uint64_t *slot_chunk;
    uint32_t *slot_length, *priority, *delay;
    uint32_t slot_room;
    uint64_t used, capacity;
    uint32_t threshold, delay_threshold;
    gboolean chose;         /* admit picked the first victim: victim() returns the hand */
    FrequencySketch sketch;
    uint64_t *counters;
} ChunkPlc;

static const CachePolicyKey chunk_plc_keys[N_KEYS] = {
    [KEY_FILTER] = { "plc-chunk-filter-threshold", CACHE_KEY_UINT, 0, SKETCH_COUNTER_MAX - 1, NULL, "4",
                     "chunk granularity: Popularity Filter, admit a chunk only once its sketch estimate exceeds "
                     "this" },
    [KEY_DELAY] = { "plc-chunk-delay-threshold", CACHE_KEY_UINT, 0, UINT32_MAX, NULL, "2",
                    "chunk granularity: Delayed Eviction, times the clock must pick a cached chunk before a "
                    "newcomer can replace it (0, 1: none)" },
    [KEY_SAMPLE] = { "plc-chunk-sample-factor", CACHE_KEY_UINT, 1, 1000, NULL, "10",
                     "chunk granularity: the access-count sketch halves its counters every this many x the "
                     "chunks the cache holds (at the average chunk size) accesses" },
};

static const CachePolicyCounter chunk_plc_counters[N_COUNTERS] = {
    [REFUSED_FILTER] = { "refused_popularity_filter", "refused: popularity filter", NULL },
    [REFUSED_DELAY] = { "refused_delayed_eviction", "refused: delayed eviction", NULL },
    [REFUSED_INOUT] = { "refused_inout_compare", "refused: in-out comparison", NULL },
};

static ContainerId sketch_key(uint64_t chunk)
{
    return (ContainerId)(chunk ^ (chunk >> 32));
}

static void *chunk_plc_create(const ChunkPolicyEnv *env)
{
    ChunkPlc *p = g_new0(ChunkPlc, 1);
    uint64_t chunks = env->capacity_bytes / (env->avg_chunk_size ? env->avg_chunk_size : 1);
    uint32_t n = chunks < 1 ? 1 : chunks > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)chunks;
    index_list_init(&p->ring);
    p->capacity = env->capacity_bytes;
    p->threshold = (uint32_t)env->values[KEY_FILTER].number;
    p->delay_threshold = (uint32_t)env->values[KEY_DELAY].number;
    p->counters = env->counters;
    sketch_init(&p->sketch, n, (uint64_t)env->values[KEY_SAMPLE].number * n);
    return p;
}

static void chunk_plc_destroy(void *st)
{
    ChunkPlc *p = st;
    index_links_free(&p->links);
    sketch_free(&p->sketch);
    g_free(p->slot_chunk);
    g_free(p->slot_length);
    g_free(p->priority);
    g_free(p->delay);
    g_free(p);
}

static gboolean chunk_plc_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkPlc *p = st;
    sketch_add(&p->sketch, sketch_key(a->chunk));
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    p->priority[slot]++;
    return TRUE;
}

/* CLOCK_EVICT: the hand's chunk once its inner_priority is 0. Terminates:
 * every step lowers a priority, and each was raised by a hit or an
 * insertion (amortised constant time). */
static ChunkSlot clock_evict(ChunkPlc *p)
{
    g_assert(p->ring.len > 0);
    while (p->priority[p->ring.head] > 0) {
        uint32_t s = p->ring.head;
        p->priority[s]--;
        index_list_to_tail(&p->links, &p->ring, s);
    }
    return p->ring.head;
}

static gboolean chunk_plc_admit(void *st, const ChunkAccess *a)
{
    ChunkPlc *p = st;
    unsigned mine = sketch_estimate(&p->sketch, sketch_key(a->chunk));
    p->chose = FALSE;
    if (mine <= p->threshold) {
        p->counters[REFUSED_FILTER]++;
        return FALSE;
    }
    if (p->used + a->length <= p->capacity || p->ring.len == 0)
        return TRUE;
    ChunkSlot v = clock_evict(p);
    if (p->delay[v] > 0)
        p->delay[v]--;
    if (p->delay[v] > 0) {
        p->counters[REFUSED_DELAY]++;
        return FALSE;
    }
    unsigned theirs = sketch_estimate(&p->sketch, sketch_key(p->slot_chunk[v]));
    unsigned need = theirs < p->threshold ? p->threshold : theirs > 2 * p->threshold ? 2 * p->threshold : theirs;
    if (mine < need) {
        p->counters[REFUSED_INOUT]++;
        return FALSE;
    }
    p->chose = TRUE;
    return TRUE;
}

static ChunkSlot chunk_plc_victim(void *st)
{
    ChunkPlc *p = st;
    if (p->ring.len == 0)
        return CHUNK_NO_SLOT;
    if (p->chose) { /* admit's comparison was with the hand's chunk */
        p->chose = FALSE;
        return p->ring.head;
    }
    return clock_evict(p);
}

static void chunk_plc_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkPlc *p = st;
    if (slot >= p->slot_room) {
        uint32_t n = p->slot_room ? p->slot_room : 256;
        while (n <= slot)
            n *= 2;
        p->slot_chunk = g_renew(uint64_t, p->slot_chunk, n);
        p->slot_length = g_renew(uint32_t, p->slot_length, n);
        p->priority = g_renew(uint32_t, p->priority, n);
        p->delay = g_renew(uint32_t, p->delay, n);
        p->slot_room = n;
    }
    unsigned est = sketch_estimate(&p->sketch, sketch_key(a->chunk));
    p->slot_chunk[slot] = a->chunk;
    p->slot_length[slot] = a->length;
    p->priority[slot] = est > p->threshold ? est - p->threshold : 0; /* 0 only for a warm start */
    p->delay[slot] = p->delay_threshold;
    p->used += a->length;
    p->chose = FALSE;
    index_list_append(&p->links, &p->ring, slot);
}

static void chunk_plc_removed(void *st, ChunkSlot slot)
{
    ChunkPlc *p = st;
    p->used -= p->slot_length[slot];
    index_list_unlink(&p->links, &p->ring, slot);
}

static size_t chunk_plc_memory(const void *st)
{
    const ChunkPlc *p = st;
    return sizeof *p + index_links_bytes(&p->links) + (size_t)p->slot_room * (sizeof(uint64_t) + 3 * sizeof(uint32_t)) +
           (size_t)SKETCH_ROWS * p->sketch.width / 2;
}

const ChunkPolicyOps chunk_policy_plc = {
    .name = "plc",
    .description = "PLC-Cache's popularity filter, delayed eviction and in-out comparison over a clock of unique "
                   "chunks, access counts in a sketch",
    .citation = "Liu, Chai, Qin & Xiao, PLC-Cache, MSST 2014 (chunks: docs/CACHE.md)",
    .keys = chunk_plc_keys,
    .n_keys = N_KEYS,
    .counters = chunk_plc_counters,
    .n_counters = N_COUNTERS,
    .create = chunk_plc_create,
    .destroy = chunk_plc_destroy,
    .lookup = chunk_plc_lookup,
    .admit = chunk_plc_admit,
    .victim = chunk_plc_victim,
    .inserted = chunk_plc_inserted,
    .removed = chunk_plc_removed,
    .memory = chunk_plc_memory,
};
