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
 *  - S's share is floor(S3FIFO_SMALL_RATIO x C) (0.10, the paper's;
 *    `s3fifo-small-ratio` with the policy seam); M and G hold C minus that.
 *  - One miss frees exactly one slot: the paper's EVICTS may, after moving
 *    an S entry into a full M, evict from both queues; here the walk stops at
 *    the first eviction and M, then over its share, gives the next victim.
 *  - An S entry's frequency is cleared when it moves to M (the paper: "its
 *    access bits are cleared during the move").
 *  - S moves to M on one hit since insertion (POLICIES.md; the paper's blog
 *    figure uses the same threshold 1). */
#include "cache/policy.h"
#include "cache/ghost_list.h"
#include "cache/slot_queues.h"

#define S3FIFO_SMALL_RATIO 0.10
#define S3FIFO_FREQ_MAX 3

enum { QS, QM };

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
    f->s_share = (uint32_t)(S3FIFO_SMALL_RATIO * env->capacity);
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

const CachePolicyOps cache_policy_s3fifo = {
    .name = "s3fifo",
    .reset_access_on_evict = FALSE,
    .create = s3fifo_create,
    .destroy = s3fifo_destroy,
    .hit = s3fifo_hit,
    .admit = s3fifo_admit,
    .inserted = s3fifo_inserted,
    .removed = s3fifo_removed,
    .save = NULL,
    .load_slot = NULL,
    .load_done = NULL,
    /* S/M links, the frequency, and G's up to 0.9 C ids */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + sizeof(uint8_t) + (3 + 4) * sizeof(uint32_t),
};
