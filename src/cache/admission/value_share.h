/* SPDX-License-Identifier: GPL-3.0-or-later */
/* value_share.h: the controller the value-ranked budget rules share
 * (compete.c, learned.c): a candidate's value (hits it is expected to earn
 * per byte written) is kept as a rank, VALUE_STEPS ranks an octave; the
 * controller remembers how many candidates of each rank the recent window
 * saw (halved when the rule's window turns) and admits the best share s of
 * them, s given by the caller (the budget's bucket fill, write_credit.h).
 * The threshold is the rank where the better candidates make up s; a
 * candidate of exactly that rank is admitted for the part of s left to its
 * rank, spread evenly over them by error diffusion (deterministic).
 *
 * Only the ranks the window saw are held (issue 38's memory bound): the
 * ranks ascending and their counts, a rank dropped when halving empties it.
 * The decisions are those of a count for every rank: an absent rank counts
 * 0, and the counts are the same integers. */
#ifndef DESTOR_CACHE_VALUE_SHARE_H
#define DESTOR_CACHE_VALUE_SHARE_H

#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define VALUE_STEPS 16      /* ranks an octave of value */
#define VALUE_LOW_OCTAVE 40 /* the lowest value ranked apart: 2^-40 hits a byte */
#define VALUE_RANKS ((VALUE_LOW_OCTAVE + 32) * VALUE_STEPS)

typedef struct {
    uint16_t *rank;    /* the ranks seen, ascending */
    uint32_t *seen;    /* candidates of each in the window (> 0) */
    uint32_t len, cap;
    uint64_t n_seen;   /* their sum */
    double carry;      /* error diffusion at the threshold's rank */
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

static inline void value_share_free(ValueShare *v)
{
    g_free(v->rank);
    g_free(v->seen);
}

/* The first entry whose rank is >= rank. */
static inline uint32_t value_share_find(const ValueShare *v, unsigned rank)
{
    uint32_t lo = 0, hi = v->len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->rank[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A new window: the candidates seen count half (rounded down). */
static inline void value_share_halve(ValueShare *v)
{
    uint32_t keep = 0;
    v->n_seen = 0;
    for (uint32_t i = 0; i < v->len; i++)
        if (v->seen[i] / 2 > 0) {
            v->rank[keep] = v->rank[i];
            v->seen[keep] = v->seen[i] / 2;
            v->n_seen += v->seen[keep++];
        }
    v->len = keep;
}

/* Count a candidate of `rank`. */
static inline void value_share_see(ValueShare *v, unsigned rank)
{
    g_assert(rank < VALUE_RANKS);
    uint32_t i = value_share_find(v, rank);
    if (i == v->len || v->rank[i] != rank) {
        if (v->len == v->cap) {
            v->cap += 8; /* ranks come seldom: no more slack than this */
            v->rank = g_renew(uint16_t, v->rank, v->cap);
            v->seen = g_renew(uint32_t, v->seen, v->cap);
        }
        memmove(v->rank + i + 1, v->rank + i, (v->len - i) * sizeof *v->rank);
        memmove(v->seen + i + 1, v->seen + i, (v->len - i) * sizeof *v->seen);
        v->rank[i] = (uint16_t)rank;
        v->seen[i] = 0;
        v->len++;
    }
    g_assert(v->seen[i] < UINT32_MAX);
    v->seen[i]++;
    v->n_seen++;
}

/* TRUE: a candidate of `rank` is among the best `share` of those seen. */
static inline gboolean value_share_admit(ValueShare *v, unsigned rank, double share)
{
    double want = share * (double)v->n_seen; /* the best `want` candidates */
    double better = 0;
    uint32_t at = value_share_find(v, rank);
    gboolean held = at < v->len && v->rank[at] == rank;
    for (uint32_t i = at + (held ? 1 : 0); i < v->len && better < want; i++)
        better += v->seen[i];
    if (better >= want)
        return FALSE;
    double mine = held ? v->seen[at] : 0;
    if (better + mine <= want)
        return TRUE;
    v->carry += (want - better) / mine; /* in (0, 1) */
    if (v->carry < 1)
        return FALSE;
    v->carry -= 1;
    return TRUE;
}

/* Bytes the controller holds beyond its struct. */
static inline size_t value_share_memory(const ValueShare *v)
{
    return (size_t)v->cap * (sizeof(uint16_t) + sizeof(uint32_t));
}

#endif
