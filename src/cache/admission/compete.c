/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compete.c: admission `compete`: misses compete for ssd-cache-write-budget
 * by their value (issue 38), the default with a budget.
 *
 * A candidate's value is the hits it is expected to earn per byte written:
 * its recent accesses (recent_accesses.h, this access counted) over the
 * bytes its admission writes, kept as a rank (VALUE_STEPS ranks an octave).
 * The rule remembers how many candidates of each rank the recent window
 * saw (halved with the sketch, so both describe the same window) and
 * admits the best share s of them, s the fill of the budget's bucket
 * (write_credit.h) once the next request's credit is in: full, every
 * candidate; empty, none. The threshold is
 * the rank where the better candidates make up s; a candidate of exactly
 * that rank is admitted for the part of s left to its rank, spread evenly
 * over them by error diffusion (deterministic). When more is asked than the
 * budget gives, the bucket settles at the fill whose share spends the
 * budget's rate, and credit is lost only while the bucket is full, that is
 * while every candidate is admitted; a write is never allowed beyond the
 * credit, so the bytes written stay within depth + budget x requests.
 *
 * Constants, all from the definition and none tuned on a trace: the
 * bucket's depth (one cache, as the first-come bucket), share = fill (a
 * proportional controller of gain 1 whose set point is wherever the
 * budget's rate is met), the window (the sketch's, 10 x the objects the
 * cache holds). */
#include "cache/admission/recent_accesses.h"
#include "cache/admission/write_credit.h"

#include <math.h>

#define VALUE_STEPS 16      /* ranks an octave of value */
#define VALUE_LOW_OCTAVE 40 /* the lowest value ranked apart: 2^-40 hits a byte */
#define VALUE_RANKS ((VALUE_LOW_OCTAVE + 32) * VALUE_STEPS)

typedef struct {
    WriteCredit credit;
    RecentAccesses recent;
    double seen[VALUE_RANKS]; /* candidates of each rank in the window */
    double n_seen;            /* their sum */
    double carry;             /* error diffusion at the threshold's rank */
} Compete;

/* The rank of `hits` per `bytes`: 0 for no recent access, else ordered as
 * log2(hits / bytes), clamped to the ranks. */
unsigned compete_value_rank(unsigned hits, uint64_t bytes);

unsigned compete_value_rank(unsigned hits, uint64_t bytes)
{
    if (hits == 0)
        return 0;
    double octave = log2((double)hits / (double)(bytes ? bytes : 1)) + VALUE_LOW_OCTAVE;
    double rank = 1 + floor(octave * VALUE_STEPS);
    return rank < 1 ? 1 : rank > VALUE_RANKS - 1 ? VALUE_RANKS - 1 : (unsigned)rank;
}

static void *compete_create(const AdmissionEnv *env)
{
    Compete *k = g_new0(Compete, 1);
    write_credit_init(&k->credit, env);
    recent_accesses_init(&k->recent, env);
    return k;
}

static void compete_destroy(void *st)
{
    Compete *k = st;
    sketch_free(&k->recent);
    g_free(k);
}

static void compete_request(void *st)
{
    write_credit_request(&((Compete *)st)->credit);
}

static void compete_access(void *st, uint64_t key)
{
    Compete *k = st;
    if (!recent_accesses_add(&k->recent, key))
        return;
    k->n_seen = 0; /* a new window: the candidates seen count half */
    for (unsigned i = 0; i < VALUE_RANKS; i++) {
        k->seen[i] = floor(k->seen[i] / 2);
        k->n_seen += k->seen[i];
    }
}

static gboolean compete_admit(void *st, const AdmissionCandidate *c)
{
    Compete *k = st;
    unsigned rank = compete_value_rank(recent_accesses_estimate(&k->recent, c->key), c->bytes);
    k->seen[rank]++;
    k->n_seen++;
    if (!write_credit_covers(&k->credit, c->bytes))
        return FALSE;
    double want = write_credit_fill_next(&k->credit) * k->n_seen; /* the best `want` candidates */
    double better = 0;
    for (unsigned i = rank + 1; i < VALUE_RANKS && better < want; i++)
        better += k->seen[i];
    if (better >= want)
        return FALSE;
    if (better + k->seen[rank] <= want)
        return TRUE;
    k->carry += (want - better) / k->seen[rank]; /* in (0, 1) */
    if (k->carry < 1)
        return FALSE;
    k->carry -= 1;
    return TRUE;
}

static void compete_written(void *st, uint64_t bytes)
{
    write_credit_pay(&((Compete *)st)->credit, bytes);
}

static size_t compete_memory(const void *st)
{
    return sizeof(Compete) + recent_accesses_memory(&((const Compete *)st)->recent);
}

const AdmissionOps admission_compete = {
    .name = "compete",
    .description = "the write budget, by value: the recently most accessed misses per byte get the credit first",
    .spends_budget = TRUE,
    .create = compete_create,
    .destroy = compete_destroy,
    .request = compete_request,
    .access = compete_access,
    .admit = compete_admit,
    .written = compete_written,
    .memory = compete_memory,
};
