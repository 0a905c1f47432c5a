/* SPDX-License-Identifier: GPL-3.0-or-later */
/* s3fifo.c: S3-FIFO (Yang, Zhang, Qiu, Yue, Vinayak; SOSP 2023). Every miss
 * is admitted. Three FIFO queues: a small queue S (10% of C), a main queue M
 * (the rest) and a ghost queue G of ids (no data, as many as M holds). Each
 * cached container has a 2-bit frequency (0..3), +1 on a hit.
 *
 *   miss:  id in G -> leaves G, enters M; else enters S (frequency 0).
 *   full:  one victim is found by
 *          - S's oldest when |S| >= S's share (or M is empty):
 *              hit since insertion (frequency >= 1): moves to M's newest end
 *              with frequency 0 (metadata, no SSD write); look again;
 *              else: evicted, its id becomes G's newest (G drops its oldest
 *              beyond its size);
 *          - else M's oldest: frequency > 0: decremented and reinserted at
 *              M's newest end; look again; frequency 0: evicted.
 *
 * Choices the paper leaves open (docs/CACHE.md):
 *  - S's share is floor(s3fifo-small-ratio x C) (0.10, the paper's); M and
 *    G hold C minus that.
 *  - One miss frees exactly one slot: the paper's EVICTS may, after moving
 *    an S entry into a full M, evict from both queues; here the walk stops at
 *    the first eviction and M, then over its share, gives the next victim.
 *  - An S entry's frequency is cleared when it moves to M (the paper: "its
 *    access bits are cleared during the move").
 *  - S moves to M on one hit since insertion (POLICIES.md; the paper's blog
 *    figure uses the same threshold 1).
 *
 * Counters: ghost_hits (misses found in G, into M), moved_to_main (S
 * entries hit since insertion, moved to M). Saved state, version 1:
 * capacity u32, S and M (each: length u32, slots u32 oldest first), the
 * frequency of every slot (capacity bytes), G (length u32, ids u32 oldest
 * first). */
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/slot_queues.h"

#define S3FIFO_FREQ_MAX 3

enum { QS, QM };
enum { KEY_SMALL, N_KEYS };
enum { GHOST_HITS, MOVED, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues q;     /* S and M, oldest at the heads */
    uint8_t *freq;    /* per slot */
    GhostList g;
    uint32_t s_share;
    uint8_t pending;  /* queue of the container being admitted */
} S3Fifo;

static void *s3fifo_create(const CachePolicyEnv *env)
{
    S3Fifo *f = g_new0(S3Fifo, 1);
    f->env = env;
    slot_queues_init(&f->q, env->capacity);
    f->freq = g_new0(uint8_t, env->capacity ? env->capacity : 1);
    f->s_share = (uint32_t)(env->values[KEY_SMALL].number * env->capacity);
    ghost_list_init(&f->g, env->capacity - f->s_share);
    f->pending = QS;
    return f;
}

static void s3fifo_destroy(void *st)
{
    S3Fifo *f = st;
    slot_queues_free(&f->q);
    g_free(f->freq);
    ghost_list_free(&f->g);
    g_free(f);
}

static void s3fifo_hit(void *st, CacheSlot slot)
{
    S3Fifo *f = st;
    if (f->freq[slot] < S3FIFO_FREQ_MAX)
        f->freq[slot]++;
}

static CacheSlot s3fifo_find_victim(S3Fifo *f)
{
    for (;;) { /* ends: S shrinks, or an M frequency drops, at every turn */
        if (f->q.len[QS] > 0 && (f->q.len[QS] >= f->s_share || f->q.len[QM] == 0)) {
            CacheSlot s = f->q.head[QS];
            if (f->freq[s] == 0) {
                ghost_list_push(&f->g, f->env->slot_id[s]);
                return s;
            }
            f->freq[s] = 0;
            slot_queues_move_to_tail(&f->q, QM, s);
            f->env->counters[MOVED]++;
        } else {
            CacheSlot s = f->q.head[QM];
            if (f->freq[s] == 0)
                return s;
            f->freq[s]--;
            slot_queues_move_to_tail(&f->q, QM, s);
        }
    }
}

static CacheDecision s3fifo_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    S3Fifo *f = st;
    f->pending = ghost_list_remove(&f->g, id) ? QM : QS;
    if (f->pending == QM)
        f->env->counters[GHOST_HITS]++;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = s3fifo_find_victim(f);
    return CACHE_ADMIT_REPLACE;
}

static void s3fifo_inserted(void *st, CacheSlot slot)
{
    S3Fifo *f = st;
    f->freq[slot] = 0;
    slot_queues_append(&f->q, f->pending, slot);
    f->pending = QS;
}

static void s3fifo_removed(void *st, CacheSlot slot)
{
    S3Fifo *f = st;
    slot_queues_unlink(&f->q, slot);
    f->freq[slot] = 0;
}

static void s3fifo_save_state(void *st, GByteArray *out)
{
    S3Fifo *f = st;
    uint32_t cap = f->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + 4);
    le32_put(out->data + at, cap);
    slot_queues_save(&f->q, 2, out);
    g_byte_array_append(out, f->freq, cap);
    ghost_list_save(&f->g, 1, out);
}

static gboolean s3fifo_load_state(void *st, const uint8_t *blob, size_t len)
{
    S3Fifo *f = st;
    uint32_t cap = f->env->capacity;
    size_t at = 4;
    if (len < 4 || le32_get(blob) != cap || !slot_queues_load(&f->q, 2, f->env, blob, len, &at) ||
        len - at < cap)
        return FALSE;
    for (uint32_t s = 0; s < cap; s++)
        if (blob[at + s] > S3FIFO_FREQ_MAX)
            return FALSE;
    for (uint32_t s = 0; s < cap; s++)
        f->freq[s] = f->q.queue[s] != SLOT_QUEUE_NONE ? blob[at + s] : 0;
    at += cap;
    if (!ghost_list_load(&f->g, 1, blob, len, &at) || at != len)
        return FALSE;
    slot_queues_adopt(&f->q, QS, f->env);
    return TRUE;
}

static size_t s3fifo_memory(const void *st)
{
    const S3Fifo *f = st;
    return sizeof *f + f->env->capacity * (SLOT_QUEUES_BYTES_PER_SLOT + 1) + GHOST_LIST_BYTES(f->g.max);
}

static const CachePolicyKey s3fifo_keys[N_KEYS] = {
    [KEY_SMALL] = { "s3fifo-small-ratio", CACHE_KEY_REAL, 0.0, 1.0, NULL, "0.1",
                    "the small FIFO S's share of the cache (rounded down); M and the ghost G hold the rest" },
};

static const CachePolicyCounter s3fifo_counters[N_COUNTERS] = {
    [GHOST_HITS] = { "ghost_hits", "misses found in G (into M)", NULL },
    [MOVED] = { "moved_to_main", "S entries moved to M", NULL },
};

const CachePolicyOps cache_policy_s3fifo = {
    .name = "s3fifo",
    .description = "S3-FIFO: small FIFO, main FIFO with a 2-bit frequency, ghost FIFO of ids",
    .citation = "Yang, Zhang, Qiu, Yue, Vinayak: FIFO queues are all you need, SOSP 2023",
    .offline = FALSE,
    .keys = s3fifo_keys,
    .n_keys = N_KEYS,
    .counters = s3fifo_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = s3fifo_create,
    .destroy = s3fifo_destroy,
    .hit = s3fifo_hit,
    .admit = s3fifo_admit,
    .inserted = s3fifo_inserted,
    .removed = s3fifo_removed,
    .state_version = 1,
    .save_state = s3fifo_save_state,
    .load_state = s3fifo_load_state,
    /* S/M links, the frequency, and G's up to 0.9 C ids */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + sizeof(uint8_t) + (3 + 4) * sizeof(uint32_t),
    .memory = s3fifo_memory,
};
