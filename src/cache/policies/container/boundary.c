/* SPDX-License-Identifier: GPL-3.0-or-later */
/* boundary.c: policy `boundary`, an eviction trained online on the offline
 * optimum's own eviction labels (issue 38; LRB, Song et al., NSDI'20:
 * learn the Belady boundary). Definition, fixed before any run:
 * docs/ADMISSION.md, "Policy boundary".
 *
 * Every miss that reaches it is admitted (an admission rule in front
 * decides the writes). Clock: every access the core counts (accessed()),
 * refused misses too. Window W = 10 C accesses (C slots: the sketch's
 * window of doorkeeper/compete/learned); a log of the last W accesses
 * (container, feature byte). Features of an access: the gap since the
 * container's previous access (half-octave buckets from C/8, 15 buckets,
 * plus "none"), its access count (the core's, halved every W: 1, 2-3,
 * 4-7, 8+). A resident is described by the features of its latest access
 * and its age (accesses since; half-octave buckets from C/8, the last one
 * from 4C up).
 *
 * Training, every W/2 accesses once the log is full: Belady's MIN with
 * bypass runs over the log with C slots from empty; each access of the
 * log's older half is labelled 1 when MIN's next access to its container
 * is a hit (MIN held it to its reuse), 0 otherwise (not reused in the log,
 * or dropped). It counts as an example in the cell (age bucket k, its
 * features) for every age bucket k whose lower bound a_k (at least 1) is
 * below the distance to its next access: "unreused at age a_k, does the
 * optimum keep it?". Every access of that half has at least W/2 = 5C
 * accesses of future in the log, more than the top bucket's 4C, so every
 * example's survival is known. Each turn first halves every cell.
 *
 * Eviction: the resident of the lowest (positives + 1) / (examples + 2) in
 * its cell; ties to the larger age, then the lower slot. Before the first
 * training every cell is 1/2: LRU. */
#include "cache/policy/policy.h"

#include <stdlib.h>
#include <string.h>

#define AGE_BUCKETS 11  /* 0..10: lower bounds a_k = T_k, T_10 = 4C */
#define GAP_BUCKETS 16  /* 0..14 by T_1..T_14, 15: no earlier access */
#define GAP_NONE 15
#define COUNT_BUCKETS 4
#define FEATS (GAP_BUCKETS * COUNT_BUCKETS)
#define CELLS (AGE_BUCKETS * FEATS)
#define NO_NEXT UINT32_MAX

typedef struct {
    const CachePolicyEnv *env;
    uint32_t C;
    uint64_t window;           /* W = 10 C */
    uint64_t thr[GAP_BUCKETS]; /* T_1..T_14 (thr[0] unused) */
    uint64_t now;              /* accesses counted */
    uint32_t *last;            /* n_containers: time of the latest access, 0 none */
    uint8_t cur_feat;          /* the current access's feature byte */
    uint32_t *t_slot;          /* per slot: time of its latest access */
    uint8_t *f_slot;           /* per slot: the feature byte then */
    uint32_t *log_id;          /* ring of W: the access at time t at (t - 1) % W */
    uint8_t *log_feat;
    uint32_t pos[CELLS], tot[CELLS];
    /* training scratch, W entries each (C for res) */
    uint64_t *order;
    uint32_t *next, *prev, *res;
    uint8_t *label, *held;
} Boundary;

/* T_k = C x 2^(k/2) / 8, in integers (181/128 for the half octave). */
static uint64_t threshold(uint32_t C, unsigned k)
{
    return ((uint64_t)C << (k >> 1)) * ((k & 1) ? 181 : 128) / 1024;
}

/* How many of T_1..T_kmax are <= x. */
static unsigned bucket(const Boundary *b, uint64_t x, unsigned kmax)
{
    unsigned k = 0;
    while (k < kmax && b->thr[k + 1] <= x)
        k++;
    return k;
}

static uint64_t age_lower(const Boundary *b, unsigned k)
{
    uint64_t a = k == 0 ? 1 : b->thr[k];
    return a ? a : 1;
}

static void *boundary_create(const CachePolicyEnv *env)
{
    Boundary *b = g_new0(Boundary, 1);
    b->env = env;
    b->C = env->capacity ? env->capacity : 1;
    b->window = 10 * (uint64_t)b->C;
    for (unsigned k = 1; k < GAP_BUCKETS; k++)
        b->thr[k] = threshold(b->C, k);
    g_assert(b->thr[AGE_BUCKETS - 1] < b->window / 2);
    b->last = g_new0(uint32_t, env->n_containers ? env->n_containers : 1);
    b->cur_feat = GAP_NONE << 2;
    b->t_slot = g_new0(uint32_t, b->C);
    b->f_slot = g_new0(uint8_t, b->C);
    b->log_id = g_new0(uint32_t, b->window);
    b->log_feat = g_new0(uint8_t, b->window);
    b->order = g_new0(uint64_t, b->window);
    b->next = g_new0(uint32_t, b->window);
    b->prev = g_new0(uint32_t, b->window);
    b->res = g_new0(uint32_t, b->C);
    b->label = g_new0(uint8_t, b->window);
    b->held = g_new0(uint8_t, b->window);
    return b;
}

static void boundary_destroy(void *st)
{
    Boundary *b = st;
    g_free(b->last);
    g_free(b->t_slot);
    g_free(b->f_slot);
    g_free(b->log_id);
    g_free(b->log_feat);
    g_free(b->order);
    g_free(b->next);
    g_free(b->prev);
    g_free(b->res);
    g_free(b->label);
    g_free(b->held);
    g_free(b);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
    return a < c ? -1 : a > c;
}

/* The log's position j (0 the oldest) holds the access at time now - W + 1 + j. */
static uint32_t log_at(const Boundary *b, uint64_t j)
{
    return b->log_id[(b->now + j) % b->window];
}

/* MIN with bypass over the log, C slots from empty: label[j] = 1 when
 * MIN holds access j's container to its next access in the log. */
static void run_min(Boundary *b)
{
    uint32_t W = (uint32_t)b->window;
    for (uint32_t j = 0; j < W; j++)
        b->order[j] = ((uint64_t)log_at(b, j) << 32) | j;
    qsort(b->order, W, sizeof *b->order, cmp_u64);
    for (uint32_t m = 0; m < W; m++) {
        uint32_t j = (uint32_t)b->order[m];
        gboolean same_next = m + 1 < W && (b->order[m + 1] >> 32) == (b->order[m] >> 32);
        gboolean same_prev = m > 0 && (b->order[m - 1] >> 32) == (b->order[m] >> 32);
        b->next[j] = same_next ? (uint32_t)b->order[m + 1] : NO_NEXT;
        b->prev[j] = same_prev ? (uint32_t)b->order[m - 1] : NO_NEXT;
    }
    memset(b->label, 0, W);
    memset(b->held, 0, W);
    uint32_t n = 0;
    for (uint32_t j = 0; j < W; j++) {
        uint32_t p = b->prev[j];
        if (p != NO_NEXT && b->held[p]) { /* a hit: p's entry becomes j's */
            b->label[p] = 1;
            b->held[p] = 0;
            for (uint32_t r = 0; r < n; r++)
                if (b->res[r] == p) {
                    b->res[r] = j;
                    break;
                }
            b->held[j] = 1;
            continue;
        }
        if (n < b->C) {
            b->res[n++] = j;
            b->held[j] = 1;
            continue;
        }
        uint32_t far = 0; /* the resident reused last (none: NO_NEXT), the lowest index among equals */
        for (uint32_t r = 1; r < n; r++)
            if (b->next[b->res[r]] > b->next[b->res[far]])
                far = r;
        if (b->next[j] >= b->next[b->res[far]])
            continue; /* bypassed */
        b->held[b->res[far]] = 0;
        b->res[far] = j;
        b->held[j] = 1;
    }
}

static void train(Boundary *b)
{
    for (unsigned c = 0; c < CELLS; c++) {
        b->pos[c] >>= 1;
        b->tot[c] >>= 1;
    }
    run_min(b);
    uint32_t half = (uint32_t)(b->window / 2);
    for (uint32_t i = 0; i < half; i++) {
        uint64_t d = b->next[i] == NO_NEXT ? UINT64_MAX : b->next[i] - i;
        uint8_t f = b->log_feat[(b->now + i) % b->window];
        for (unsigned k = 0; k < AGE_BUCKETS && age_lower(b, k) < d; k++) {
            unsigned c = k * FEATS + f;
            b->tot[c]++;
            b->pos[c] += b->label[i];
            g_assert(b->tot[c] < (1u << 31));
        }
    }
}

static unsigned count_bucket(uint32_t n)
{
    return n < 2 ? 0 : n < 4 ? 1 : n < 8 ? 2 : 3;
}

static void boundary_accessed(void *st, ContainerId id)
{
    Boundary *b = st;
    g_assert(id < b->env->n_containers && b->now < UINT32_MAX);
    b->now++;
    unsigned g = b->last[id] ? bucket(b, b->now - b->last[id], GAP_BUCKETS - 2) : GAP_NONE;
    b->last[id] = (uint32_t)b->now;
    b->cur_feat = (uint8_t)(g << 2 | count_bucket(cache_policy_env_count(b->env, id)));
    uint64_t i = (b->now - 1) % b->window;
    b->log_id[i] = id;
    b->log_feat[i] = b->cur_feat;
    if (b->now >= b->window && b->now % (b->window / 2) == 0)
        train(b);
}

static void boundary_touch(void *st, CacheSlot slot)
{
    Boundary *b = st;
    g_assert(slot < b->C);
    b->t_slot[slot] = (uint32_t)b->now;
    b->f_slot[slot] = b->cur_feat;
}

static CacheDecision boundary_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Boundary *b = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    CacheSlot best = CACHE_NO_SLOT;
    uint64_t best_p = 0, best_t = 0, best_age = 0;
    for (CacheSlot s = 0; s < b->env->capacity; s++) {
        if (!cache_policy_env_occupied(b->env, s))
            continue;
        uint64_t age = b->now - b->t_slot[s];
        unsigned c = bucket(b, age, AGE_BUCKETS - 1) * FEATS + b->f_slot[s];
        uint64_t p = b->pos[c] + 1, t = b->tot[c] + 2;
        /* p / t < best_p / best_t, exactly */
        if (best == CACHE_NO_SLOT || p * best_t < best_p * t || (p * best_t == best_p * t && age > best_age)) {
            best = s;
            best_p = p;
            best_t = t;
            best_age = age;
        }
    }
    g_assert(best != CACHE_NO_SLOT);
    *victim = best;
    return CACHE_ADMIT_REPLACE;
}

static void boundary_removed(void *st, CacheSlot slot)
{
    (void)st;
    (void)slot; /* the slot's time and features are rewritten when it is filled */
}

/* The core halves every access count each W accesses (the count feature's window). */
static uint64_t boundary_age_window(void *st)
{
    return ((Boundary *)st)->window;
}

static size_t boundary_memory(const void *st)
{
    const Boundary *b = st;
    return sizeof *b + 4 * (size_t)b->env->n_containers + 5 * (size_t)b->C + 4 * (size_t)b->C +
           (4 + 1 + 8 + 4 + 4 + 1 + 1) * (size_t)b->window;
}

const CachePolicyOps cache_policy_boundary = {
    .name = "boundary",
    .description = "admit every miss, evict the resident least likely kept by Belady's MIN, learned online",
    .citation = "ours (issue 38); LRB's Belady boundary (Song et al., NSDI'20), labels from MIN over the window",
    .create = boundary_create,
    .destroy = boundary_destroy,
    .count_age_window = boundary_age_window,
    .accessed = boundary_accessed,
    .hit = boundary_touch,
    .admit = boundary_admit,
    .inserted = boundary_touch,
    .removed = boundary_removed,
    .bytes_per_slot = 9,
    .memory = boundary_memory,
};
