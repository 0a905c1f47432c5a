/* SPDX-License-Identifier: GPL-3.0-or-later */
/* learned.c: admission `learned`: the write budget spent on the misses a
 * model trained on the offline optimum's decisions values most (issue 38,
 * item 2; Baleen, FAST'24, trains on the optimum's episodes likewise).
 *
 * Features of an access, computed when it comes (before the decision),
 * each in [0, 1]:
 *   count   log2(1 + e) / 4, e its recent accesses (recent_accesses.h,
 *           this one counted; 4-bit counters: e <= 15)
 *   recency log2(1 + r) / log2(1 + W), r the accesses since its previous
 *           access (1 when none within the last W accesses)
 *   gap     the same of the interval between its two previous accesses (an
 *           estimate of its reuse distance; 1 when unknown)
 * plus a constant 1. The model is a logistic regression: p = 1 / (1 +
 * exp(-w.x)) is the probability that the optimum admits the access's miss.
 * The value of a candidate is p per byte its admission writes; the budget
 * is spent as `compete` spends it (value_share.h): the best share of the
 * candidates by value, the share the bucket's fill (write_credit.h), so
 * the bytes written stay within the budget's bound.
 *
 * Training: W = 10 x the objects the cache holds (the sketch's sample
 * size). At every halving of the sketch (a turn of its window) the rule
 * runs opt_budget_plan (the optimum opt-budget follows, coarse search) over
 * the sampled accesses of the last W: a miniature of m = min(C, 32) slots
 * (C the objects; with C > 32 an object is sampled iff mix64(key) >> 32 <
 * floor(32 / C x 2^32), SHARDS' spatial sample, as minisim's), with a
 * budget of floor(rate x R x requests in the window / b) writes (rate: a
 * request's credit, write_credit.h; the DWPD budget's mean), R =
 * m / C, b the candidates' mean bytes (counted and halved as the
 * controller counts them). Every position where the optimum's cache misses is an
 * example, labelled 1 where it admits; the weights then take 4 passes of
 * SGD (rate 0.2) over them in order, warm-started from the last weights.
 * Before the first training w = (0, 1, 0, 0): the count alone, compete's
 * order.
 *
 * Defaults fixed from this definition before any result was seen: the
 * window (the sketch's, shared with doorkeeper and compete), the retrain
 * interval (each turn of it), the miniature (minisim's 32 slots, its cost
 * bound), the features (the cheap ones the admission seam sees:
 * size enters through the per-byte value; the container's live share is
 * not visible here), the rate (1 / the number of weights: with every
 * feature in [0, 1] a step never overshoots the logistic loss's
 * curvature), 4 passes. */
#include "cache/admission/recent_accesses.h"
#include "cache/admission/value_share.h"
#include "cache/admission/write_credit.h"
#include "cache/policy/opt_budget_plan.h"

#include <math.h>

#define LEARNED_WEIGHTS 4 /* constant, count, recency, gap */
#define LEARNED_PASSES 4
#define LEARNED_RATE (1.0 / LEARNED_WEIGHTS)
#define LEARNED_MINI_SLOTS 32

typedef struct {
    uint64_t key, at; /* the access's number */
    double x[LEARNED_WEIGHTS];
} Sample;

typedef struct {
    uint64_t last, gap; /* the access's number; the interval before it (0: none) */
} Seen;

typedef struct {
    WriteCredit credit;
    RecentAccesses recent;
    ValueShare share;
    double w[LEARNED_WEIGHTS];
    uint64_t window;     /* W */
    uint64_t accesses;   /* every access so far */
    uint32_t mini;       /* the miniature's slots */
    uint64_t threshold;  /* sampled iff mix64(key) >> 32 < threshold (UINT64_MAX: all) */
    double mini_share;   /* R = the miniature's slots / C */
    double asked_bytes, asked; /* the candidates' bytes and number, halved at each turn */
    GArray *samples;     /* Sample: the sampled accesses of the last W */
    GArray *requests_at; /* uint64_t: the access number at each request of the last W accesses */
    GHashTable *seen;    /* key -> Seen, every object accessed in the last W */
    uint64_t cur_key;
    double cur_x[LEARNED_WEIGHTS];
} Learned;

static double scaled_log(uint64_t r, uint64_t window)
{
    double v = log2(1.0 + (double)r) / log2(1.0 + (double)window);
    return v > 1 ? 1 : v;
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
    k->window = k->recent.sample;
    uint64_t objects = env->objects ? env->objects : 1;
    k->mini = objects > LEARNED_MINI_SLOTS ? LEARNED_MINI_SLOTS : (uint32_t)objects;
    k->threshold = objects > LEARNED_MINI_SLOTS ? (uint64_t)((double)LEARNED_MINI_SLOTS / (double)objects * 4294967296.0)
                                                : UINT64_MAX;
    k->mini_share = (double)k->mini / (double)objects;
    k->w[1] = 1; /* before any training: the count alone */
    k->samples = g_array_new(FALSE, FALSE, sizeof(Sample));
    k->requests_at = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    k->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    return k;
}

static void learned_destroy(void *st)
{
    Learned *k = st;
    sketch_free(&k->recent);
    g_array_free(k->samples, TRUE);
    g_array_free(k->requests_at, TRUE);
    g_hash_table_destroy(k->seen);
    g_free(k);
}

static void learned_request(void *st, uint64_t time_ns)
{
    Learned *k = st;
    write_credit_request(&k->credit, time_ns);
    g_array_append_val(k->requests_at, k->accesses);
}

/* The optimum's labels over the samples, then the SGD passes. */
static void train(Learned *k)
{
    guint n = k->samples->len;
    if (n == 0)
        return;
    uint32_t *next = g_new(uint32_t, n);
    uint8_t *plan = g_new(uint8_t, n), *held = g_new0(uint8_t, n);
    GHashTable *later = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = n; i-- > 0;) {
        Sample *s = &g_array_index(k->samples, Sample, i);
        gpointer at;
        next[i] = g_hash_table_lookup_extended(later, &s->key, NULL, &at) ? GPOINTER_TO_UINT(at) : OPT_PLAN_NEVER;
        g_hash_table_insert(later, &s->key, GUINT_TO_POINTER(i));
    }
    g_hash_table_destroy(later);
    double mean_bytes = k->asked > 0 ? k->asked_bytes / k->asked : 1;
    uint64_t budget = (uint64_t)floor(k->credit.rate * k->mini_share * (double)k->requests_at->len / mean_bytes);
    OptBudgetResult r;
    opt_budget_plan(next, n, k->mini, budget, TRUE, plan, &r);
    for (guint i = 0; i < n; i++)
        if ((plan[i] & OPT_PLAN_KEEP) && next[i] != OPT_PLAN_NEVER)
            held[next[i]] = 1;
    for (unsigned pass = 0; pass < LEARNED_PASSES; pass++) {
        for (guint i = 0; i < n; i++) {
            if (held[i])
                continue; /* a hit of the optimum: no admission to learn */
            const Sample *s = &g_array_index(k->samples, Sample, i);
            double g = predict(k->w, s->x) - ((plan[i] & OPT_PLAN_ADMIT) ? 1.0 : 0.0);
            for (unsigned j = 0; j < LEARNED_WEIGHTS; j++)
                k->w[j] -= LEARNED_RATE * g * s->x[j];
        }
    }
    g_free(next);
    g_free(plan);
    g_free(held);
}

static gboolean seen_stale(gpointer key, gpointer value, gpointer user)
{
    (void)key;
    const Learned *k = user;
    return ((const Seen *)value)->last + k->window < k->accesses;
}

/* Keep what lies in the last W accesses: samples, request marks, seen. */
static void forget(Learned *k)
{
    guint keep = 0;
    for (guint i = 0; i < k->samples->len; i++) {
        Sample s = g_array_index(k->samples, Sample, i);
        if (s.at + k->window >= k->accesses)
            g_array_index(k->samples, Sample, keep++) = s;
    }
    g_array_set_size(k->samples, keep);
    keep = 0;
    for (guint i = 0; i < k->requests_at->len; i++) {
        uint64_t at = g_array_index(k->requests_at, uint64_t, i);
        if (at + k->window >= k->accesses)
            g_array_index(k->requests_at, uint64_t, keep++) = at;
    }
    g_array_set_size(k->requests_at, keep);
    g_hash_table_foreach_remove(k->seen, seen_stale, k);
}

static void learned_access(void *st, uint64_t key)
{
    Learned *k = st;
    gboolean turned = recent_accesses_add(&k->recent, key);
    k->accesses++;
    Seen *seen = g_hash_table_lookup(k->seen, &key);
    k->cur_key = key;
    k->cur_x[0] = 1;
    k->cur_x[1] = log2(1.0 + recent_accesses_estimate(&k->recent, key)) / 4;
    if (seen == NULL) {
        uint64_t *kk = g_new(uint64_t, 1 + sizeof(Seen) / sizeof(uint64_t));
        kk[0] = key;
        seen = (Seen *)(kk + 1);
        seen->gap = 0;
        k->cur_x[2] = k->cur_x[3] = 1;
        g_hash_table_insert(k->seen, kk, seen);
    } else {
        uint64_t r = k->accesses - seen->last;
        k->cur_x[2] = scaled_log(r, k->window);
        k->cur_x[3] = seen->gap ? scaled_log(seen->gap, k->window) : 1;
        seen->gap = r;
    }
    seen->last = k->accesses;
    if (k->threshold == UINT64_MAX || (sketch_mix64(key) >> 32) < k->threshold) {
        Sample s = { key, k->accesses, { 0 } };
        memcpy(s.x, k->cur_x, sizeof s.x);
        g_array_append_val(k->samples, s);
    }
    if (turned) {
        value_share_halve(&k->share);
        k->asked_bytes = floor(k->asked_bytes / 2);
        k->asked = floor(k->asked / 2);
        forget(k);
        train(k);
    }
}

static gboolean learned_admit(void *st, const AdmissionCandidate *c)
{
    Learned *k = st;
    g_assert(c->key == k->cur_key); /* the core's access came first */
    k->asked_bytes += (double)c->bytes;
    k->asked++;
    double value = predict(k->w, k->cur_x) / (double)(c->bytes ? c->bytes : 1);
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
    return sizeof(Learned) + recent_accesses_memory(&k->recent) + k->samples->len * sizeof(Sample) +
           k->requests_at->len * sizeof(uint64_t) +
           g_hash_table_size(k->seen) * (sizeof(uint64_t) + sizeof(Seen) + 4 * sizeof(void *));
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
