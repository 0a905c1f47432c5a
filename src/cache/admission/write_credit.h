/* SPDX-License-Identifier: GPL-3.0-or-later */
/* write_credit.h: the write budget's bucket of credit, shared by the rules
 * that spend it (bucket.c, compete.c, learned.c). It is as deep as the
 * cache (one cache's worth of bytes), full at open, gains credit at every
 * request (never past its depth), and pays each write; a write is allowed
 * only while the credit covers the candidate's bytes.
 *
 * The credit a request brings: ssd-cache-write-budget's bytes, or with
 * ssd-cache-write-budget-dwpd (a timed trace) DWPD x depth x the seconds
 * since the previous request / 86400 (the first request brings none). So
 * over any run the bytes written stay within depth + budget x requests, or
 * depth + DWPD x depth x the trace's days. `rate` is the credit a request
 * brings: the budget, or for DWPD the mean over the requests after the
 * first so far (0 before the second), what the controllers that look ahead
 * (compete's fill, learned's window budget) expect of the next requests.
 * With times evenly spaced so that one interval brings exactly the
 * per-request budget, both kinds make the same credit and the same rate.
 *
 * The layout's own rewrites (the chunk log's cleaner, reinsert's keeps) are charged too, when
 * they happen: they may leave the credit below zero, a debt no admission
 * is allowed under, so admissions and rewrites together stay within the
 * bounds above + the last charge. */
#ifndef DESTOR_CACHE_WRITE_CREDIT_H
#define DESTOR_CACHE_WRITE_CREDIT_H

#include "cache/admission/admission.h"

#define WRITE_CREDIT_NS_PER_DAY 86400e9

typedef struct {
    double credit;  /* bytes the budget allows now, at most depth (below 0: a rewrite's debt) */
    double rate;    /* a request's credit: the budget, or DWPD's mean so far */
    double depth;
    double per_day; /* DWPD x depth: bytes a day of the trace's time (0: per request) */
    double gained;  /* DWPD: the credit the requests after the first brought */
    uint64_t intervals; /* DWPD: those requests */
    uint64_t last_ns;   /* DWPD: the previous request's time */
    gboolean started;   /* DWPD: a request was seen */
} WriteCredit;

static inline void write_credit_init(WriteCredit *w, const AdmissionEnv *env)
{
    g_assert(admission_env_budgeted(env) && env->depth >= 0); /* 0: a cache of no slot */
    *w = (WriteCredit){ .rate = env->budget, .depth = env->depth, .credit = env->depth };
    if (env->dwpd > 0) {
        w->rate = 0;
        w->per_day = env->dwpd * env->depth;
    }
}

/* The credit of a DWPD budget for `ns` nanoseconds of the trace. */
static inline double write_credit_for_time(double per_day, uint64_t ns)
{
    return per_day * (double)ns / WRITE_CREDIT_NS_PER_DAY;
}

/* A request begins at `time_ns` (ignored by a per-request budget; a DWPD
 * budget's times never go back: the trace's reader checked them). */
static inline void write_credit_request(WriteCredit *w, uint64_t time_ns)
{
    double gain = w->rate;
    if (w->per_day > 0) {
        g_assert(!w->started || time_ns >= w->last_ns);
        gain = 0;
        if (w->started) {
            gain = write_credit_for_time(w->per_day, time_ns - w->last_ns);
            w->gained += gain;
            w->intervals++;
            w->rate = w->gained / (double)w->intervals;
        }
        w->started = TRUE;
        w->last_ns = time_ns;
    }
    w->credit += gain;
    if (w->credit > w->depth)
        w->credit = w->depth;
}

static inline gboolean write_credit_covers(const WriteCredit *w, uint64_t bytes)
{
    return w->credit >= (double)bytes;
}

/* The share of the depth the credit will hold once the next request's
 * credit is in, in [0, 1] (0 for a bucket of no depth): credit the next
 * refill would lose counts as full. */
static inline double write_credit_fill_next(const WriteCredit *w)
{
    double next = w->credit + w->rate;
    return w->depth <= 0 || next <= 0 ? 0.0 : next >= w->depth ? 1.0 : next / w->depth;
}

static inline void write_credit_pay(WriteCredit *w, uint64_t bytes)
{
    w->credit -= (double)bytes;
    g_assert(w->credit >= 0); /* the core writes no more than a covered candidate's bytes */
}

/* The layout rewrote `bytes` on its own: paid even beyond the credit. */
static inline void write_credit_charge(WriteCredit *w, uint64_t bytes)
{
    w->credit -= (double)bytes;
}

#endif
