/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_tinylfu.c: TinyLFU admission (Einziger, Friedman & Manes, ACM TOS
 * 2017) at chunk granularity, the write-aware admission of the container
 * policies carried over to chunks: every chunk access, hit or miss, is
 * added to the frequency sketch (frequency_sketch.h, keyed by the chunk
 * identity folded to 32 bits) first. A missed chunk that fits in the free
 * space is admitted; otherwise it is admitted only if its estimate exceeds
 * that of the least recently used cached chunk (ties keep the cached one),
 * and then least recently used chunks leave until it fits; else it is
 * refused and costs no SSD write (counted in refused_estimate).
 *
 * Choices (docs/CACHE.md): the main cache is one LRU (the container
 * tinylfu's SLRU segments are counted in slots, which variable-size chunks
 * do not have); a newcomer is compared with the first victim only; the
 * sketch is sized for, and aged every tinylfu-chunk-sample-factor (10, the
 * paper's example) x, the chunks the cache holds at the store's average
 * chunk size.
 *
 * When the chunk log reclaims its oldest segment (ssd-cache-segment-reclaim
 * reinsert), TinyLFU's own rule decides between the chunk that leaves and
 * the one that comes: a chunk of the reclaimed segment is kept when its
 * estimate is at least the admission candidate's (the miss whose put made
 * the log reclaim; ties keep the cached chunk, as in admission). From the
 * first reclamation on (after a restart, the next one) the cache is full:
 * the log never frees a segment but by reclaiming it, though the bytes it
 * holds stay below the policy's capacity (segments whole, the open
 * segment's home, headers and tables), so from then on every miss is
 * compared with the least recently used chunk before it is admitted, as
 * when the capacity is reached. */
#include "cache/policy/chunk_policy.h"
#include "cache/policy/frequency_sketch.h"
#include "cache/structures/index_list.h"

enum { KEY_SAMPLE };
enum { REFUSED };

typedef struct {
    IndexLinks links;
    IndexList order;       /* least recently used at the head */
    uint64_t *slot_chunk;  /* per slot: the chunk identity */
    uint32_t *slot_length;
    uint32_t slot_room;
    uint64_t used, capacity;
    uint64_t candidate;    /* the last miss asked about (admit): reinsert's rival */
    gboolean log_full;     /* the log has reclaimed a segment (keep was asked) */
    FrequencySketch sketch;
    uint64_t *counters;
} ChunkTinyLfu;

static const CachePolicyKey chunk_tinylfu_keys[] = {
    { "tinylfu-chunk-sample-factor", CACHE_KEY_UINT, 1, 1000, NULL, "10",
      "chunk granularity: the sketch halves its counters every this many x the chunks the cache holds "
      "(at the average chunk size) accesses" },
};

static const CachePolicyCounter chunk_tinylfu_counters[] = {
    { "refused_estimate", "misses refused: estimate not above the victim's", NULL },
};

static ContainerId sketch_key(uint64_t chunk)
{
    return (ContainerId)(chunk ^ (chunk >> 32));
}

static void *chunk_tinylfu_create(const ChunkPolicyEnv *env)
{
    ChunkTinyLfu *t = g_new0(ChunkTinyLfu, 1);
    uint64_t chunks = env->capacity_bytes / (env->avg_chunk_size ? env->avg_chunk_size : 1);
    uint32_t n = chunks < 1 ? 1 : chunks > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)chunks;
    index_list_init(&t->order);
    t->capacity = env->capacity_bytes;
    t->counters = env->counters;
    sketch_init(&t->sketch, n, (uint64_t)env->values[KEY_SAMPLE].number * n);
    return t;
}

static void chunk_tinylfu_destroy(void *st)
{
    ChunkTinyLfu *t = st;
    index_links_free(&t->links);
    sketch_free(&t->sketch);
    g_free(t->slot_chunk);
    g_free(t->slot_length);
    g_free(t);
}

static gboolean chunk_tinylfu_lookup(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkTinyLfu *t = st;
    sketch_add(&t->sketch, sketch_key(a->chunk));
    if (slot == CHUNK_NO_SLOT)
        return FALSE;
    index_list_to_tail(&t->links, &t->order, slot);
    return TRUE;
}

static gboolean chunk_tinylfu_admit(void *st, const ChunkAccess *a)
{
    ChunkTinyLfu *t = st;
    t->candidate = a->chunk;
    if ((!t->log_full && t->used + a->length <= t->capacity) || t->order.len == 0)
        return TRUE;
    unsigned mine = sketch_estimate(&t->sketch, sketch_key(a->chunk));
    unsigned theirs = sketch_estimate(&t->sketch, sketch_key(t->slot_chunk[t->order.head]));
    if (mine > theirs)
        return TRUE;
    t->counters[REFUSED]++;
    return FALSE;
}

static ChunkSlot chunk_tinylfu_victim(void *st)
{
    return ((ChunkTinyLfu *)st)->order.head;
}

static void chunk_tinylfu_inserted(void *st, ChunkSlot slot, const ChunkAccess *a)
{
    ChunkTinyLfu *t = st;
    if (slot >= t->slot_room) {
        uint32_t n = t->slot_room ? t->slot_room : 256;
        while (n <= slot)
            n *= 2;
        t->slot_chunk = g_renew(uint64_t, t->slot_chunk, n);
        t->slot_length = g_renew(uint32_t, t->slot_length, n);
        t->slot_room = n;
    }
    t->slot_chunk[slot] = a->chunk;
    t->slot_length[slot] = a->length;
    t->used += a->length;
    index_list_append(&t->links, &t->order, slot);
}

static void chunk_tinylfu_removed(void *st, ChunkSlot slot)
{
    ChunkTinyLfu *t = st;
    t->used -= t->slot_length[slot];
    index_list_unlink(&t->links, &t->order, slot);
}

/* Asked only inside the put of an admitted miss (the candidate). */
static gboolean chunk_tinylfu_keep(void *st, ChunkSlot slot)
{
    ChunkTinyLfu *t = st;
    g_assert(slot < t->slot_room);
    t->log_full = TRUE;
    return sketch_estimate(&t->sketch, sketch_key(t->slot_chunk[slot])) >=
           sketch_estimate(&t->sketch, sketch_key(t->candidate));
}

static size_t chunk_tinylfu_memory(const void *st)
{
    const ChunkTinyLfu *t = st;
    return sizeof *t + index_links_bytes(&t->links) + (size_t)t->slot_room * (sizeof(uint64_t) + sizeof(uint32_t)) +
           (size_t)SKETCH_ROWS * t->sketch.width / 2;
}

const ChunkPolicyOps chunk_policy_tinylfu = {
    .name = "tinylfu",
    .description = "TinyLFU admission over an LRU of unique chunks: a miss replaces the least recently used "
                   "chunk only if the sketch counts it more often",
    .citation = "Einziger, Friedman & Manes, TinyLFU, ACM TOS 2017 (chunks: docs/CACHE.md)",
    .keys = chunk_tinylfu_keys,
    .n_keys = G_N_ELEMENTS(chunk_tinylfu_keys),
    .counters = chunk_tinylfu_counters,
    .n_counters = G_N_ELEMENTS(chunk_tinylfu_counters),
    .create = chunk_tinylfu_create,
    .destroy = chunk_tinylfu_destroy,
    .lookup = chunk_tinylfu_lookup,
    .admit = chunk_tinylfu_admit,
    .victim = chunk_tinylfu_victim,
    .inserted = chunk_tinylfu_inserted,
    .removed = chunk_tinylfu_removed,
    .keep = chunk_tinylfu_keep,
    .memory = chunk_tinylfu_memory,
};
