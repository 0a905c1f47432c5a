/* SPDX-License-Identifier: GPL-3.0-or-later */
/* value_share.h: the controller the value-ranked budget rules share
 * (compete.c, learned.c): a candidate's value (hits it is expected to earn
 * per byte written) is kept as a rank, VALUE_STEPS ranks an octave; the
 * controller remembers how many candidates of each rank the recent window
 * saw (halved when the rule's window turns) and admits the best share s of
 * them, s given by the caller (the budget's bucket fill, write_credit.h).
 * The threshold is the rank where the better candidates make up s; a
 * candidate of exactly that rank is admitted for the part of s left to its
 * rank, spread evenly over them by error diffusion (deterministic). */
#ifndef DESTOR_CACHE_VALUE_SHARE_H
#define DESTOR_CACHE_VALUE_SHARE_H

#include <glib.h>
#include <math.h>

#define VALUE_STEPS 16      /* ranks an octave of value */
#define VALUE_LOW_OCTAVE 40 /* the lowest value ranked apart: 2^-40 hits a byte */
#define VALUE_RANKS ((VALUE_LOW_OCTAVE + 32) * VALUE_STEPS)

typedef struct {
    double seen[VALUE_RANKS]; /* candidates of each rank in the window */
    double n_seen;            /* their sum */
    double carry;             /* error diffusion at the threshold's rank */
} ValueShare;

/* The rank of value `ratio` (hits per byte): 0 for no value, else ordered
 * as log2(ratio), clamped to the ranks. */
static inline unsigned value_rank(double ratio)
{
    if (!(ratio > 0))
        return 0;
    double octave = log2(ratio) + VALUE_LOW_OCTAVE;
    double rank = 1 + floor(octave * VALUE_STEPS);
    return rank < 1 ? 1 : rank > VALUE_RANKS - 1 ? VALUE_RANKS - 1 : (unsigned)rank;
}

/* A new window: the candidates seen count half. */
static inline void value_share_halve(ValueShare *v)
{
    v->n_seen = 0;
    for (unsigned i = 0; i < VALUE_RANKS; i++) {
        v->seen[i] = floor(v->seen[i] / 2);
        v->n_seen += v->seen[i];
    }
}

/* Count a candidate of `rank`. */
static inline void value_share_see(ValueShare *v, unsigned rank)
{
    v->seen[rank]++;
    v->n_seen++;
}

/* TRUE: a candidate of `rank` is among the best `share` of those seen. */
static inline gboolean value_share_admit(ValueShare *v, unsigned rank, double share)
{
    double want = share * v->n_seen; /* the best `want` candidates */
    double better = 0;
    for (unsigned i = rank + 1; i < VALUE_RANKS && better < want; i++)
        better += v->seen[i];
    if (better >= want)
        return FALSE;
    if (better + v->seen[rank] <= want)
        return TRUE;
    v->carry += (want - better) / v->seen[rank]; /* in (0, 1) */
    if (v->carry < 1)
        return FALSE;
    v->carry -= 1;
    return TRUE;
}

#endif
