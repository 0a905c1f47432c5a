/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compete.c: admission `compete`: misses compete for ssd-cache-write-budget
 * by their value (issue 38), the default with a budget.
 *
 * A candidate's value is the hits it is expected to earn per byte written:
 * its recent accesses (recent_accesses.h, this access counted) over the
 * bytes its admission writes, kept as a rank (VALUE_STEPS ranks an octave).
 * The rule remembers how many candidates of each rank the recent window
 * saw (halved with the sketch, so both describe the same window) and
 * admits the best share s of them (value_share.h), s the fill of the
 * budget's bucket (write_credit.h) once the next request's credit is in:
 * full, every candidate; empty, none. When more is asked than the
 * budget gives, the bucket settles at the fill whose share spends the
 * budget's rate, and credit is lost only while the bucket is full, that is
 * while every candidate is admitted; a write is never allowed beyond the
 * credit, so the bytes written stay within the budget's bound (write_credit.h).
 *
 * Constants, all from the definition and none tuned on a trace: the
 * bucket's depth (one cache, as the first-come bucket), share = fill (a
 * proportional controller of gain 1 whose set point is wherever the
 * budget's rate is met), the window (the sketch's, 10 x the objects the
 * cache holds). */
#include "cache/admission/recent_accesses.h"
#include "cache/admission/value_share.h"
#include "cache/admission/write_credit.h"

typedef struct {
    WriteCredit credit;
    RecentAccesses recent;
    ValueShare share;
} Compete;

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
    value_share_free(&k->share);
    g_free(k);
}

static void compete_request(void *st, uint64_t time_ns)
{
    write_credit_request(&((Compete *)st)->credit, time_ns);
}

static void compete_access(void *st, uint64_t key)
{
    Compete *k = st;
    if (recent_accesses_add(&k->recent, key))
        value_share_halve(&k->share);
}

static gboolean compete_admit(void *st, const AdmissionCandidate *c)
{
    Compete *k = st;
    uint64_t bytes = c->bytes ? c->bytes : 1;
    unsigned rank = value_rank((double)recent_accesses_estimate(&k->recent, c->key) / (double)bytes);
    value_share_see(&k->share, rank);
    return write_credit_covers(&k->credit, c->bytes) &&
           value_share_admit(&k->share, rank, write_credit_fill_next(&k->credit));
}

static void compete_written(void *st, uint64_t bytes)
{
    write_credit_pay(&((Compete *)st)->credit, bytes);
}

static void compete_rewritten(void *st, uint64_t bytes)
{
    write_credit_charge(&((Compete *)st)->credit, bytes);
}

static size_t compete_memory(const void *st)
{
    const Compete *k = st;
    return sizeof(Compete) + recent_accesses_memory(&k->recent) + value_share_memory(&k->share);
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
    .rewritten = compete_rewritten,
    .memory = compete_memory,
};
