/* SPDX-License-Identifier: GPL-3.0-or-later */
/* learned.c: admission `learned`: the write budget spent on the misses a
 * model trained on the offline optimum's decisions values most (issue 38,
 * item 2; Baleen, FAST'24, trains on the optimum's episodes likewise).
 *
 * Time is kept in epochs of E = ceil(W / 16) accesses (W below), epoch
 * floor(a / E) for the a-th access. Features of an access, computed when
 * it comes (before the decision), each in [0, 1]:
 *   count   log2(1 + e) / 4, e its recent accesses (recent_accesses.h,
 *           this one counted; 4-bit counters: e <= 15)
 *   recency scaled(a E), a the epochs since its previous access as the
 *           last-seen table holds it (below); 1 when it holds none
 *   gap     scaled(g E), g what recency's a was at its previous access (an
 *           estimate of its reuse distance); 1 when unknown
 * scaled(r) = min(1, log2(1 + r) / log2(1 + W)); plus a constant 1. The
 * model is a logistic regression: p = 1 / (1 + exp(-w.x)) is the
 * probability that the optimum admits the access's miss. The value of a
 * candidate is p per byte its admission writes; the budget is spent as
 * `compete` spends it (value_share.h): the best share of the candidates by
 * value, the share the bucket's fill (write_credit.h), so the bytes
 * written stay within the budget's bound.
 *
 * The last-seen table (a sketch of the recent objects, not a record per
 * object): T = 4 x the sketch's width cells of 16 bits (at least 64), each
 * a 6-bit tag (1..63; 0: empty), the epoch of the last access mod 32 and
 * that access's a (0..16; 31: none). An object may sit in two cells,
 * mix64(key) mod T and mix64(key + 0x9E3779B97F4A7C15) mod T, tag
 * 1 + (mix64(key) >> 32) mod 63; it is found when one of them holds its
 * tag with a <= 16 (about W), and its cell is then rewritten; an object not
 * found takes the first of its cells that is empty, else the one of the
 * larger a (the first on a tie). At each turn of the window every cell of
 * a > 16 is emptied, so a stays below 32 and the epoch's wrap is never
 * ambiguous. An object whose cells others took, or another object of its
 * tag in one of its cells, is what the table gives away against a record
 * per object.
 *
 * Training: W = 10 x the objects the cache holds (the sketch's sample
 * size). At every halving of the sketch (a turn of its window, every W/2
 * accesses) the rule runs opt_budget_plan (the optimum opt-budget follows,
 * coarse search) over the sampled accesses since the turn before the last
 * (about the last W): a miniature of m = min(C, 32, max(1, floor(N / 32)))
 * slots (C the objects, N the store's containers: AdmissionEnv.containers,
 * no such term when 0; with C > m an object is sampled iff mix64(key) >> 32
 * < floor(m / C x 2^32), SHARDS' spatial sample, as minisim's), with a budget of
 * floor(rate x R x the requests of those accesses / b) writes (rate: a
 * request's credit, write_credit.h; the DWPD budget's mean), R = m / C,
 * b the candidates' mean bytes (counted and halved as the controller counts
 * them). A sample is 32 bits: the low 16 bits of mix64(key) (objects
 * alike in them are one object to the miniature) and its features' levels
 * (e, a, g). Every position where the optimum's cache misses is an
 * example, labelled 1 where it admits; the weights then take 4 passes of
 * SGD (rate 1/4) over them in order, warm-started from the last weights;
 * then the samples before the last turn are dropped. Before the first
 * training w = (0, 1, 0, 0): the count alone, compete's order.
 *
 * Defaults fixed from this definition before any result was seen: the
 * window (the sketch's, shared with doorkeeper and compete), the retrain
 * interval (each turn of it), the miniature (minisim's 32 slots, its cost
 * bound), the features (the cheap ones the admission seam sees:
 * size enters through the per-byte value; the container's live share is
 * not visible here), the rate (1 / the number of weights: with every
 * feature in [0, 1] a step never overshoots the logistic loss's
 * curvature), 4 passes. The compaction (issue 38: at most 8 bytes a stored
 * container) fixed E (16 epochs a window: a's 5 bits with room for the
 * half window between sweeps), the table's size (4 cells a sketch column:
 * from the cache's size, as the sketch) and its two choices. The
 * miniature's N / 32 (issue 38's bound at small stores, fixed before any
 * hit ratio was run): the samples, about 10 m a window and 15 m at their
 * peak (the second turn's 1.5 W) when the sampled objects take their share
 * of the accesses, 4 bytes each, take 60 m <= 2 bytes a stored container,
 * a quarter of the bound; the sketch and the table at most 20 C (4 bytes a
 * stored container at a 20% cache), the struct and the ranks the rest.
 * N >= 1,024 keeps minisim's 32 slots. */
#include "cache/admission/last_seen.h"
#include "cache/admission/recent_accesses.h"
#include "cache/admission/value_share.h"
#include "cache/admission/write_credit.h"
#include "cache/policy/opt_budget_plan.h"

#include <math.h>

#define LEARNED_WEIGHTS 4 /* constant, count, recency, gap */
#define LEARNED_PASSES 4
#define LEARNED_RATE (1.0 / LEARNED_WEIGHTS)
#define LEARNED_MINI_SLOTS 32
#define LEARNED_CELLS_PER_COLUMN 4
#define LEARNED_CONTAINERS_A_SLOT 32 /* the miniature's slots at most N / this */

/* A sample's features, as levels: e << 10 | a << 5 | g; a sample: 16 bits
 * of its key's hash, then its levels. */
#define LEVELS(e, a, g) ((uint16_t)((e) << 10 | (a) << 5 | (g)))
#define SAMPLE(key, levels) ((uint32_t)(sketch_mix64(key) & 0xffffu) << 16 | (levels))

typedef struct {
    WriteCredit credit;
    RecentAccesses recent;
    ValueShare share;
    LastSeen seen;
    double w[LEARNED_WEIGHTS];
    uint64_t epoch_len;  /* E (W is recent.sample) */
    uint64_t accesses;   /* every access so far */
    uint32_t mini;       /* the miniature's slots */
    uint64_t threshold;  /* sampled iff mix64(key) >> 32 < threshold (UINT64_MAX: all) */
    double mini_share;   /* R = the miniature's slots / C */
    double asked_bytes, asked; /* the candidates' bytes and number, halved at each turn */
    uint32_t *sample;    /* the sampled accesses since the turn before the last: SAMPLE(key, levels) */
    uint32_t samples, samples_cap, samples_before; /* held; allocated; of them before the last turn */
    uint64_t requests_before, requests_since; /* requests before the last turn (since the one before), since it */
    uint64_t cur_key;
    uint16_t cur_levels; /* the current access's features, as levels */
} Learned;

static double scaled_log(uint64_t r, uint64_t window)
{
    double v = log2(1.0 + (double)r) / log2(1.0 + (double)window);
    return v > 1 ? 1 : v;
}

static void features(const Learned *k, uint16_t levels, double *x)
{
    unsigned e = levels >> 10, a = (levels >> 5) & 31u, g = levels & 31u;
    x[0] = 1;
    x[1] = log2(1.0 + e) / 4;
    x[2] = a == LAST_SEEN_NONE ? 1 : scaled_log(a * k->epoch_len, k->recent.sample);
    x[3] = g == LAST_SEEN_NONE ? 1 : scaled_log(g * k->epoch_len, k->recent.sample);
}

static double predict(const double *w, const double *x)
{
    double z = 0;
    for (unsigned j = 0; j < LEARNED_WEIGHTS; j++)
        z += w[j] * x[j];
    return 1.0 / (1.0 + exp(-z));
}

static void *learned_create(const AdmissionEnv *env)
{
    Learned *k = g_new0(Learned, 1);
    write_credit_init(&k->credit, env);
    recent_accesses_init(&k->recent, env);
    k->epoch_len = (k->recent.sample + LAST_SEEN_WINDOW - 1) / LAST_SEEN_WINDOW;
    last_seen_init(&k->seen, LEARNED_CELLS_PER_COLUMN * k->recent.width);
    uint64_t objects = env->objects ? env->objects : 1;
    uint64_t mini = objects < LEARNED_MINI_SLOTS ? objects : LEARNED_MINI_SLOTS;
    if (env->containers > 0) {
        uint64_t most = env->containers / LEARNED_CONTAINERS_A_SLOT;
        most = most ? most : 1;
        mini = mini < most ? mini : most;
    }
    k->mini = (uint32_t)mini;
    k->threshold = objects > mini ? (uint64_t)((double)mini / (double)objects * 4294967296.0) : UINT64_MAX;
    k->mini_share = (double)k->mini / (double)objects;
    k->w[1] = 1; /* before any training: the count alone */
    return k;
}

static void learned_destroy(void *st)
{
    Learned *k = st;
    sketch_free(&k->recent);
    value_share_free(&k->share);
    last_seen_free(&k->seen);
    g_free(k->sample);
    g_free(k);
}

static void learned_request(void *st, uint64_t time_ns)
{
    Learned *k = st;
    write_credit_request(&k->credit, time_ns);
    k->requests_since++;
}

/* The optimum's labels over the samples, then the SGD passes. */
static void train(Learned *k)
{
    uint32_t n = k->samples;
    if (n == 0)
        return;
    uint32_t *next = g_new(uint32_t, n);
    uint8_t *plan = g_new(uint8_t, n), *held = g_new0(uint8_t, n);
    GHashTable *later = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (uint32_t i = n; i-- > 0;) {
        gpointer key = GUINT_TO_POINTER(k->sample[i] >> 16), at;
        next[i] = g_hash_table_lookup_extended(later, key, NULL, &at) ? GPOINTER_TO_UINT(at) : OPT_PLAN_NEVER;
        g_hash_table_insert(later, key, GUINT_TO_POINTER(i));
    }
    g_hash_table_destroy(later);
    double mean_bytes = k->asked > 0 ? k->asked_bytes / k->asked : 1;
    double requests = (double)(k->requests_before + k->requests_since);
    uint64_t budget = (uint64_t)floor(k->credit.rate * k->mini_share * requests / mean_bytes);
    OptBudgetResult r;
    opt_budget_plan(next, n, k->mini, budget, TRUE, plan, &r);
    for (uint32_t i = 0; i < n; i++)
        if ((plan[i] & OPT_PLAN_KEEP) && next[i] != OPT_PLAN_NEVER)
            held[next[i]] = 1;
    for (unsigned pass = 0; pass < LEARNED_PASSES; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            if (held[i])
                continue; /* a hit of the optimum: no admission to learn */
            double x[LEARNED_WEIGHTS];
            features(k, (uint16_t)k->sample[i], x);
            double g = predict(k->w, x) - ((plan[i] & OPT_PLAN_ADMIT) ? 1.0 : 0.0);
            for (unsigned j = 0; j < LEARNED_WEIGHTS; j++)
                k->w[j] -= LEARNED_RATE * g * x[j];
        }
    }
    g_free(next);
    g_free(plan);
    g_free(held);
}

/* A turn: train on the samples of the last two turns' accesses, then keep
 * only those since this turn's start (the next window's first half). */
static void turn(Learned *k)
{
    value_share_halve(&k->share);
    k->asked_bytes = floor(k->asked_bytes / 2);
    k->asked = floor(k->asked / 2);
    last_seen_sweep(&k->seen, k->accesses / k->epoch_len);
    train(k);
    uint32_t drop = k->samples_before;
    g_assert(drop <= k->samples);
    memmove(k->sample, k->sample + drop, (k->samples - drop) * sizeof *k->sample);
    k->samples -= drop;
    k->samples_before = k->samples;
    k->requests_before = k->requests_since;
    k->requests_since = 0;
}

static void sample(Learned *k, uint64_t key, uint16_t levels)
{
    if (k->samples == k->samples_cap) {
        k->samples_cap += k->samples_cap / 8 + 16;
        k->sample = g_renew(uint32_t, k->sample, k->samples_cap);
    }
    k->sample[k->samples++] = SAMPLE(key, levels);
}

static void learned_access(void *st, uint64_t key)
{
    Learned *k = st;
    gboolean turned = recent_accesses_add(&k->recent, key);
    k->accesses++;
    unsigned a, g, e = recent_accesses_estimate(&k->recent, key);
    last_seen_access(&k->seen, key, k->accesses / k->epoch_len, &a, &g);
    g_assert(e <= SKETCH_COUNTER_MAX && (a <= LAST_SEEN_WINDOW || a == LAST_SEEN_NONE) &&
             (g <= LAST_SEEN_WINDOW || g == LAST_SEEN_NONE)); /* each fits its bits */
    uint16_t levels = LEVELS(e, a, g);
    k->cur_key = key;
    k->cur_levels = levels;
    if (k->threshold == UINT64_MAX || (sketch_mix64(key) >> 32) < k->threshold)
        sample(k, key, levels);
    if (turned)
        turn(k);
}

static gboolean learned_admit(void *st, const AdmissionCandidate *c)
{
    Learned *k = st;
    g_assert(c->key == k->cur_key); /* the core's access came first */
    k->asked_bytes += (double)c->bytes;
    k->asked++;
    double x[LEARNED_WEIGHTS];
    features(k, k->cur_levels, x);
    double value = predict(k->w, x) / (double)(c->bytes ? c->bytes : 1);
    unsigned rank = value_rank(value);
    value_share_see(&k->share, rank);
    return write_credit_covers(&k->credit, c->bytes) &&
           value_share_admit(&k->share, rank, write_credit_fill_next(&k->credit));
}

static void learned_written(void *st, uint64_t bytes)
{
    write_credit_pay(&((Learned *)st)->credit, bytes);
}

static void learned_rewritten(void *st, uint64_t bytes)
{
    write_credit_charge(&((Learned *)st)->credit, bytes);
}

static size_t learned_memory(const void *st)
{
    const Learned *k = st;
    return sizeof(Learned) + recent_accesses_memory(&k->recent) + value_share_memory(&k->share) +
           last_seen_memory(&k->seen) + (size_t)k->samples_cap * sizeof(uint32_t);
}

const AdmissionOps admission_learned = {
    .name = "learned",
    .description = "the write budget, by a value learned online from the offline optimum's decisions over the recent window",
    .spends_budget = TRUE,
    .create = learned_create,
    .destroy = learned_destroy,
    .request = learned_request,
    .access = learned_access,
    .admit = learned_admit,
    .written = learned_written,
    .rewritten = learned_rewritten,
    .memory = learned_memory,
};
