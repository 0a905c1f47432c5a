/* SPDX-License-Identifier: GPL-3.0-or-later */
/* minisim.c: minisim, an adaptive, write-aware policy of our own that
 * chooses between two whole candidate policies by miniature simulation
 * (Waldspurger et al., "Cache Modeling and Optimization using Miniature
 * Simulations", USENIX ATC 2017; the sample is SHARDS' spatial one, by a
 * hash of the container id). adapt's experts only chose the victim and
 * their ghost returns were nearly equal, so its victim alternated between
 * LRU's and LFU's; here each candidate runs whole (eviction and admission)
 * on a scaled-down cache, its score counts hits and SSD writes, and the
 * real cache follows the candidate that scores best over a recent window.
 *
 * The two candidates (version 2; version 1's were sigpop's rule and LARC's,
 * docs/EXPERIMENTS.md "Robustness, second attempt"):
 *   F  frequency, wlfu's rule (wlfu_rule.h, the code wlfu.c runs): a miss
 *      takes a free slot; else, with a its count and b the lowest count of
 *      a cached container (the least recently accessed among equals), it
 *      replaces that container iff a > b, or a == b and its id is among
 *      the misses F refused lately (a ghost list of max(1, floor(g C))
 *      ids, g = minisim-ghost-share, which it then leaves); a refused miss
 *      joins that list as the newest. The counts are the core's, aged by
 *      halving every 16 x n_containers accesses (wlfu's default).
 *   R  recency, LRU admitting every miss: the victim is the least recently
 *      accessed container. It refuses nothing; its writes are held down by
 *      the score's write price, not by an admission test (LARC's ghost-hit
 *      admission, version 1's R, refused the first miss of exactly the
 *      containers re-read soon).
 *
 * Sampling: m = minisim-mini-slots. With C <= m every container is
 * sampled and each mini cache has C slots; else a container is sampled
 * iff mix64(id) >> 32 < T, T = floor(m / C x 2^32), and each mini cache
 * has m slots (capacity C x R, R = m / C). On each access of a sampled
 * container, before the real decision, both mini caches take it (the
 * sampled accesses are their only input; their ghost list keeps
 * max(1, floor(g x m')) ids, m' their slots, is F's) and each scores +1 for a hit
 * and -p for an admission (an SSD write), p = minisim-write-price. With
 * d = the access's score of R minus F's, D = D (1 - 1/W) + d, W =
 * minisim-window x m' sampled accesses; the real cache follows R while
 * D > 0, F while D < 0, and keeps its rule at D = 0 (F at the start).
 *
 * The real cache: one heap over the slots ordered by the rule followed
 * (F: count recorded at the last access or aging, then last-access tick;
 * R: last-access tick), rebuilt when the rule changes or the counts age.
 * Its ghost list of refused misses (floor(g C) ids, at least 1) is F's:
 * every miss found in it leaves it under either rule, and every miss F
 * refuses joins it.
 *
 * Defaults, fixed from the definition before any workload was run (version
 * 1's commit said so; version 2 keeps them, and its commit says so, before
 * it was run on any workload; docs/CACHE.md): p = 1, a write and a hit each
 * being one container transfer (adapt's theta argument); g = 0.5, half of
 * ARC's C ghosts, as wlfu's; m = 32, fixed-size SHARDS, the largest power
 * of two that keeps the policy within 8 bytes per stored container at
 * caches of 20% and 10% of every store of 1,000 containers or more (20
 * bytes a slot, 10.5 to 14.5 for the ghost list, under 1 KiB for the mini
 * caches: at most 7.8 B per container); W = 8 mini-cache capacities of
 * sampled accesses, eight turnovers of a mini cache. F's age window is
 * wlfu's default.
 *
 * Counters: switches, misses_by_recency, admitted_tie_ghost,
 * refused_not_above, sampled_accesses. Saved state, version 2 (version 1's
 * layout, read with version 2's rules; a version-1 blob is not loaded): capacity u32, n_containers u32, the rule u8 (0 F, 1
 * R), the clock u64, D (IEEE double bits u64), the mini clock u64, the mini
 * slots u32; per slot its recorded count u32 and tick u64 (0 for a free
 * slot); the ghost list (length u32, ids u32 oldest first); mini F and
 * mini R (each: length u32, then id u32 and tick u64 per entry, in array
 * order); the mini ghost list (length u32, ids u32 oldest first). */
#include "cache/policies/container/count_order.h"
#include "cache/policies/container/wlfu_rule.h"
#include "cache/policy/frequency_sketch.h"
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "util/le.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum { KEY_MINI_SLOTS, KEY_WINDOW, KEY_WRITE_PRICE, KEY_GHOST_SHARE, N_KEYS };
enum {
    SWITCHES,
    MISSES_BY_RECENCY,
    ADMITTED_TIE_GHOST,
    REFUSED_NOT_ABOVE,
    SAMPLED_ACCESSES,
    N_COUNTERS
};
enum { RULE_FREQUENCY, RULE_RECENCY };

/* A mini cache: unordered arrays scanned linearly (at most m entries). */
typedef struct {
    uint32_t cap, len;
    ContainerId *id;
    uint64_t *tick;
} Mini;

/* The mini ghost list: ids oldest first. */
typedef struct {
    uint32_t max, len;
    ContainerId *id;
} MiniGhost;

typedef struct {
    CountOrder order;     /* first (count_order's ops). The real cache:
                             (count recorded, tick of the last access), by
                             tick alone under the recency rule; the top is
                             the victim of the rule followed */
    const CachePolicyEnv *env;
    GhostList ghost;      /* real cache: refused misses */
    gboolean sample_all;
    uint64_t threshold;   /* T */
    double price, decay, d;
    uint64_t mini_clock;  /* sampled accesses */
    Mini mini_f, mini_r;
    MiniGhost mini_ghost; /* mini F's refused misses */
} Minisim;
G_STATIC_ASSERT(offsetof(Minisim, order) == 0);

/* The rule followed now. */
static int rule_of(const Minisim *s)
{
    return s->order.by_stamp ? RULE_RECENCY : RULE_FREQUENCY;
}

static uint32_t share_of(double share, uint32_t n)
{
    uint32_t m = (uint32_t)floor(share * (double)n);
    return m ? m : 1;
}

static void mini_init(Mini *m, uint32_t cap)
{
    m->cap = cap;
    m->len = 0;
    m->id = g_new(ContainerId, cap);
    m->tick = g_new(uint64_t, cap);
}

static void mini_free(Mini *m)
{
    g_free(m->id);
    g_free(m->tick);
}

static void *minisim_create(const CachePolicyEnv *env)
{
    Minisim *s = g_new0(Minisim, 1);
    uint32_t cap = env->capacity ? env->capacity : 1;
    uint32_t m = (uint32_t)env->values[KEY_MINI_SLOTS].number;
    double g = env->values[KEY_GHOST_SHARE].number;
    s->env = env;
    count_order_init(&s->order, env, WLFU_AGE_WINDOW_DEFAULT);
    ghost_list_init(&s->ghost, share_of(g, env->capacity));
    s->sample_all = cap <= m;
    s->threshold = s->sample_all ? 0 : (uint64_t)floor((double)m / (double)cap * 4294967296.0);
    uint32_t mini_cap = s->sample_all ? cap : m;
    mini_init(&s->mini_f, mini_cap);
    mini_init(&s->mini_r, mini_cap);
    s->mini_ghost.max = share_of(g, mini_cap);
    s->mini_ghost.id = g_new(ContainerId, s->mini_ghost.max);
    s->price = env->values[KEY_WRITE_PRICE].number;
    s->decay = 1.0 - 1.0 / (env->values[KEY_WINDOW].number * (double)mini_cap);
    return s;
}

static void minisim_destroy(void *st)
{
    Minisim *s = st;
    count_order_free(&s->order);
    ghost_list_free(&s->ghost);
    mini_free(&s->mini_f);
    mini_free(&s->mini_r);
    g_free(s->mini_ghost.id);
    g_free(s);
}

static void minisim_counts_aged(void *st)
{
    count_order_aged(&((Minisim *)st)->order);
}

/* ---- the miniature simulations ---- */

static int64_t mini_find(const Mini *m, ContainerId id)
{
    for (uint32_t i = 0; i < m->len; i++)
        if (m->id[i] == id)
            return i;
    return -1;
}

/* F's victim: lowest count now, least recent among equals. */
static uint32_t mini_victim_f(const Minisim *s, const Mini *m)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < m->len; i++)
        if (count_order_before(cache_policy_env_count(s->env, m->id[i]), m->tick[i],
                             cache_policy_env_count(s->env, m->id[best]), m->tick[best]))
            best = i;
    return best;
}

static uint32_t mini_victim_r(const Mini *m)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < m->len; i++)
        if (m->tick[i] < m->tick[best])
            best = i;
    return best;
}

/* Put id in (at index `at`, or appended when at == len). */
static void mini_put(Mini *m, uint32_t at, ContainerId id, uint64_t tick)
{
    g_assert(at <= m->len && at < m->cap);
    if (at == m->len)
        m->len++;
    m->id[at] = id;
    m->tick[at] = tick;
}

static gboolean mini_ghost_take(MiniGhost *g, ContainerId id)
{
    for (uint32_t i = 0; i < g->len; i++)
        if (g->id[i] == id) {
            memmove(g->id + i, g->id + i + 1, (g->len - i - 1) * sizeof *g->id);
            g->len--;
            return TRUE;
        }
    return FALSE;
}

static void mini_ghost_push(MiniGhost *g, ContainerId id)
{
    if (g->len == g->max) {
        memmove(g->id, g->id + 1, (g->len - 1) * sizeof *g->id);
        g->len--;
    }
    g->id[g->len++] = id;
}

/* One access of id to mini F; its score. */
static double mini_step_f(Minisim *s, ContainerId id)
{
    Mini *m = &s->mini_f;
    int64_t at = mini_find(m, id);
    if (at >= 0) {
        m->tick[at] = s->mini_clock;
        return 1.0;
    }
    gboolean ghost_hit = mini_ghost_take(&s->mini_ghost, id);
    if (m->len < m->cap) {
        mini_put(m, m->len, id, s->mini_clock);
        return -s->price;
    }
    uint32_t v = mini_victim_f(s, m);
    if (!wlfu_rule_admits(cache_policy_env_count(s->env, id), cache_policy_env_count(s->env, m->id[v]), ghost_hit)) {
        mini_ghost_push(&s->mini_ghost, id);
        return 0.0;
    }
    mini_put(m, v, id, s->mini_clock);
    return -s->price;
}

/* One access of id to mini R; its score. */
static double mini_step_r(Minisim *s, ContainerId id)
{
    Mini *m = &s->mini_r;
    int64_t at = mini_find(m, id);
    if (at >= 0) {
        m->tick[at] = s->mini_clock;
        return 1.0;
    }
    mini_put(m, m->len < m->cap ? m->len : mini_victim_r(m), id, s->mini_clock);
    return -s->price;
}

static gboolean sampled(const Minisim *s, ContainerId id)
{
    return s->sample_all || (sketch_mix64(id) >> 32) < s->threshold;
}

/* Both mini caches take an access of id (if sampled); the real cache's
 * rule follows the sign of D. */
static void simulate(Minisim *s, ContainerId id)
{
    if (!sampled(s, id))
        return;
    s->env->counters[SAMPLED_ACCESSES]++;
    s->mini_clock++;
    double df = mini_step_f(s, id);
    double dr = mini_step_r(s, id);
    s->d = s->d * s->decay + (dr - df);
    int rule = s->d > 0 ? RULE_RECENCY : s->d < 0 ? RULE_FREQUENCY : rule_of(s);
    if (rule != rule_of(s)) {
        count_order_by_stamp(&s->order, rule == RULE_RECENCY);
        s->env->counters[SWITCHES]++;
    }
}

/* ---- the real cache ---- */

static void minisim_hit(void *st, CacheSlot slot)
{
    Minisim *s = st;
    simulate(s, s->env->slot_id[slot]);
    count_order_hit(&s->order, slot); /* count and tick only grow: later in either order */
}

static CacheDecision minisim_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Minisim *s = st;
    simulate(s, id);
    gboolean ghost_hit = ghost_list_remove(&s->ghost, id);
    s->env->counters[MISSES_BY_RECENCY] += rule_of(s) == RULE_RECENCY;
    if (!full)
        return CACHE_ADMIT_FREE;
    CacheSlot v = count_order_victim(&s->order);
    if (rule_of(s) == RULE_FREQUENCY) {
        uint32_t a = cache_policy_env_count(s->env, id);
        if (!wlfu_rule_admits(a, s->order.key[v], ghost_hit)) {
            ghost_list_push(&s->ghost, id);
            s->env->counters[REFUSED_NOT_ABOVE]++;
            return CACHE_REFUSE;
        }
        s->env->counters[ADMITTED_TIE_GHOST] += a == s->order.key[v];
    }
    *victim = v;
    return CACHE_ADMIT_REPLACE;
}

/* ---- saved state (layout at the top) ---- */

#define STATE_HEAD 37

static void mini_save(const Mini *m, GByteArray *out)
{
    guint at = out->len;
    g_byte_array_set_size(out, at + 4 + 12 * (guint)m->len);
    uint8_t *b = out->data + at;
    le32_put(b, m->len);
    for (uint32_t i = 0; i < m->len; i++) {
        le32_put(b + 4 + 12 * i, m->id[i]);
        le64_put(b + 8 + 12 * i, m->tick[i]);
    }
}

static void minisim_save_state(void *st, GByteArray *out)
{
    Minisim *s = st;
    uint32_t cap = s->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + STATE_HEAD + COUNT_ORDER_RECORD * (guint)cap);
    uint8_t *b = out->data + at;
    le32_put(b, cap);
    le32_put(b + 4, s->env->n_containers);
    b[8] = (uint8_t)rule_of(s);
    le64_put(b + 9, s->order.clock);
    le64_put_double(b + 17, s->d);
    le64_put(b + 25, s->mini_clock);
    le32_put(b + 33, s->mini_f.cap);
    count_order_save(&s->order, b + STATE_HEAD);
    ghost_list_save(&s->ghost, 1, out);
    mini_save(&s->mini_f, out);
    mini_save(&s->mini_r, out);
    at = out->len;
    g_byte_array_set_size(out, at + 4 + 4 * (guint)s->mini_ghost.len);
    le32_put(out->data + at, s->mini_ghost.len);
    for (uint32_t i = 0; i < s->mini_ghost.len; i++)
        le32_put(out->data + at + 4 + 4 * i, s->mini_ghost.id[i]);
}

/* A mini cache at blob[*at]: at most its slots, ids of the store, distinct,
 * ticks 1 .. the mini clock. */
static gboolean mini_load(const Minisim *s, Mini *m, const uint8_t *blob, size_t len, size_t *at)
{
    if (len - *at < 4)
        return FALSE;
    uint32_t n = le32_get(blob + *at);
    *at += 4;
    if (n > m->cap || (len - *at) / 12 < n)
        return FALSE;
    for (uint32_t i = 0; i < n; i++, *at += 12) {
        ContainerId id = le32_get(blob + *at);
        uint64_t tick = le64_get(blob + *at + 4);
        if (id >= s->env->n_containers || mini_find(m, id) >= 0 || tick == 0 || tick > s->mini_clock)
            return FALSE;
        mini_put(m, m->len, id, tick);
    }
    return TRUE;
}

static gboolean mini_ghost_load(const Minisim *s, MiniGhost *g, const uint8_t *blob, size_t len, size_t *at)
{
    if (len - *at < 4)
        return FALSE;
    uint32_t n = le32_get(blob + *at);
    *at += 4;
    if (n > g->max || (len - *at) / 4 != n)
        return FALSE;
    for (uint32_t i = 0; i < n; i++, *at += 4) {
        ContainerId id = le32_get(blob + *at);
        for (uint32_t j = 0; j < g->len; j++)
            if (g->id[j] == id)
                return FALSE;
        if (id >= s->env->n_containers)
            return FALSE;
        g->id[g->len++] = id;
    }
    return TRUE;
}

/* The blob must describe this cache (capacity, store size, mini slots)
 * exactly. A restored slot the blob saved as free joins as a fresh
 * insertion; a saved slot that was not restored is ignored; a recorded
 * count above the container's (with exact counts: other than it) or a
 * tick above the clock is refused. */
static gboolean minisim_load_state(void *st, const uint8_t *blob, size_t len)
{
    Minisim *s = st;
    const CachePolicyEnv *env = s->env;
    size_t at = STATE_HEAD + (size_t)COUNT_ORDER_RECORD * env->capacity;
    if (len < at || le32_get(blob) != env->capacity || le32_get(blob + 4) != env->n_containers || blob[8] > 1 ||
        le32_get(blob + 33) != s->mini_f.cap)
        return FALSE;
    double d = le64_get_double(blob + 17);
    if (!isfinite(d) || (d > 0 && blob[8] != RULE_RECENCY) || (d < 0 && blob[8] != RULE_FREQUENCY))
        return FALSE;
    s->order.by_stamp = blob[8] == RULE_RECENCY;
    s->d = d;
    s->mini_clock = le64_get(blob + 25);
    return count_order_load(&s->order, blob + STATE_HEAD, le64_get(blob + 9)) &&
           ghost_list_load(&s->ghost, 1, blob, len, &at) && mini_load(s, &s->mini_f, blob, len, &at) &&
           mini_load(s, &s->mini_r, blob, len, &at) && mini_ghost_load(s, &s->mini_ghost, blob, len, &at) &&
           at == len;
}

static size_t minisim_memory(const void *st)
{
    const Minisim *s = st;
    return sizeof *s + (size_t)s->env->capacity * COUNT_ORDER_BYTES_PER_SLOT + GHOST_LIST_BYTES(s->ghost.max) +
           2 * (size_t)s->mini_f.cap * (sizeof(ContainerId) + sizeof(uint64_t)) +
           (size_t)s->mini_ghost.max * sizeof(ContainerId);
}

static const CachePolicyKey minisim_keys[N_KEYS] = {
    [KEY_MINI_SLOTS] = { "minisim-mini-slots", CACHE_KEY_UINT, 1, 1 << 20, NULL, "32",
                         "slots of each miniature cache; containers sampled at this / the capacity (all if fewer)" },
    [KEY_WINDOW] = { "minisim-window", CACHE_KEY_REAL, 1, 1000000, NULL, "8",
                     "the candidates' scores decay with a window of this x the mini slots sampled accesses" },
    [KEY_WRITE_PRICE] = { "minisim-write-price", CACHE_KEY_REAL, 0, 1000, NULL, "1",
                          "a candidate scores +1 a hit and minus this a write (admission)" },
    [KEY_GHOST_SHARE] = { "minisim-ghost-share", CACHE_KEY_REAL, 0, 4, NULL, "0.5",
                          "the frequency rule's list of refused misses keeps this x the capacity (at least 1)" },
};

static const CachePolicyCounter minisim_counters[N_COUNTERS] = {
    [SWITCHES] = { "switches", "switches of the rule followed", NULL },
    [MISSES_BY_RECENCY] = { "misses_by_recency", "misses decided by the recency rule", NULL },
    [ADMITTED_TIE_GHOST] = { "admitted_tie_ghost",
                             "admitted: as frequent as the victim and refused lately (frequency rule)", NULL },
    [REFUSED_NOT_ABOVE] = { "refused_not_above", "refused: not above the victim's frequency (frequency rule)",
                            NULL },
    [SAMPLED_ACCESSES] = { "sampled_accesses", "accesses simulated by the mini caches", NULL },
};

const CachePolicyOps cache_policy_minisim = {
    .name = "minisim",
    .description = "adaptive and write-aware: follows wlfu's frequency rule or LRU, whichever scores more hits "
                   "less writes in miniature simulation",
    .citation = "ours, after Waldspurger et al. (miniature simulations, USENIX ATC 2017) and wlfu",
    .offline = FALSE,
    .keys = minisim_keys,
    .n_keys = N_KEYS,
    .counters = minisim_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = minisim_create,
    .destroy = minisim_destroy,
    .hit = minisim_hit,
    .admit = minisim_admit,
    .inserted = count_order_inserted_op,
    .removed = count_order_removed_op,
    .count_age_window = count_order_age_window_op,
    .counts_aged = minisim_counts_aged,
    .state_version = 2,
    .save_state = minisim_save_state,
    .load_state = minisim_load_state,
    .bytes_per_slot = COUNT_ORDER_BYTES_PER_SLOT,
    .memory = minisim_memory,
};
