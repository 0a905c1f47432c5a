/* SPDX-License-Identifier: GPL-3.0-or-later */
/* write_credit.h: the write budget's bucket of credit, shared by the rules
 * that spend ssd-cache-write-budget (bucket.c, compete.c, learned.c). It
 * is as deep as the cache (one cache's worth of bytes), full at open, gains
 * the budget at every request (never past its depth), and pays each write;
 * a write is allowed only while the credit covers the candidate's bytes,
 * so over any run the bytes written stay within depth + budget x requests.
 * The layout's own rewrites (the chunk log's cleaner, reinsert's keeps) are charged too, when
 * they happen: they may leave the credit below zero, a debt no admission
 * is allowed under, so admissions and rewrites together stay within depth
 * + budget x requests + the last charge. */
#ifndef DESTOR_CACHE_WRITE_CREDIT_H
#define DESTOR_CACHE_WRITE_CREDIT_H

#include "cache/admission/admission.h"

typedef struct {
    double credit; /* bytes the budget allows now, at most depth (below 0: a rewrite's debt) */
    double rate;   /* gained per request */
    double depth;
} WriteCredit;

static inline void write_credit_init(WriteCredit *w, const AdmissionEnv *env)
{
    g_assert(env->budget > 0 && env->depth >= 0); /* 0: a cache of no slot */
    w->rate = env->budget;
    w->depth = env->depth;
    w->credit = env->depth;
}

static inline void write_credit_request(WriteCredit *w)
{
    w->credit += w->rate;
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
