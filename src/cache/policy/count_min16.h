/* SPDX-License-Identifier: GPL-3.0-or-later */
/* count_min16.h: the cache's lean access counts (`cache-counters sketch`,
 * access_counts.h): a count-min sketch of 16-bit saturating counters with
 * conservative update, aged by halving. It stands in for an exact count per
 * container of the store in at most 4 bytes a container. (TinyLFU's sketch,
 * frequency_sketch.h, counts only to 15 and is sized by the cache, so it
 * cannot tell containers apart over a whole store; only its mixer is shared.)
 *
 * Exactly (docs/CACHE.md):
 *   width    = the largest power of two <= n_containers, at least 64
 *   rows     = 2, each of `width` uint16 counters (4 x width bytes in all)
 *   row r    = mix64(id XOR seed_r) mod width, mix64 the splitmix64
 *              finaliser of frequency_sketch.h, seed_0 = 0x243F6A8885A308D3,
 *              seed_1 = 0x13198A2E03707344 (hex digits of pi)
 *   add      = m = min of the 2 counters; if m < 65535 each counter equal
 *              to m becomes m + 1; returns the estimate afterwards
 *   estimate = min of the 2 counters: never below the true count of adds
 *              since the last halving (counts saturate at 65535)
 *   halve    = every counter = floor(counter / 2); an estimate e becomes
 *              floor(e / 2), as floor is monotone
 *   raise(v) = each of the 2 counters = max(counter, min(v, 65535)): the
 *              estimate is then at least v (a count taken in whole)
 *   clear    = each of the 2 counters minus the estimate: the estimate
 *              becomes 0 (a counter shared with another container loses as
 *              much, so that one's estimate may fall below its count). */
#ifndef DESTOR_CACHE_COUNT_MIN16_H
#define DESTOR_CACHE_COUNT_MIN16_H

#include "cache/policy/frequency_sketch.h"

#include <glib.h>
#include <stdint.h>

#define COUNT_MIN16_ROWS 2
#define COUNT_MIN16_MAX UINT16_MAX
#define COUNT_MIN16_MIN_WIDTH 64

static const uint64_t count_min16_seed[COUNT_MIN16_ROWS] = { 0x243F6A8885A308D3ull, 0x13198A2E03707344ull };

typedef struct {
    uint16_t *c;    /* COUNT_MIN16_ROWS x width counters, row after row */
    uint32_t width; /* a power of two */
} CountMin16;

static inline uint32_t count_min16_width(uint32_t n_containers)
{
    uint32_t w = COUNT_MIN16_MIN_WIDTH;
    while (w <= n_containers / 2)
        w <<= 1;
    return w;
}

/* Counters in all rows, and their bytes. */
static inline size_t count_min16_cells(const CountMin16 *k)
{
    return (size_t)COUNT_MIN16_ROWS * k->width;
}

static inline size_t count_min16_bytes(const CountMin16 *k)
{
    return count_min16_cells(k) * sizeof(uint16_t);
}

static inline void count_min16_init(CountMin16 *k, uint32_t n_containers)
{
    k->width = count_min16_width(n_containers);
    k->c = g_new0(uint16_t, count_min16_cells(k));
}

static inline void count_min16_free(CountMin16 *k)
{
    g_free(k->c);
    k->c = NULL;
}

/* Index (over both rows) of id's counter in row r. */
static inline size_t count_min16_index(const CountMin16 *k, ContainerId id, unsigned r)
{
    uint64_t h = sketch_mix64((uint64_t)id ^ count_min16_seed[r]);
    return (size_t)r * k->width + (size_t)(h & (k->width - 1));
}

static inline uint32_t count_min16_estimate(const CountMin16 *k, ContainerId id)
{
    uint16_t a = k->c[count_min16_index(k, id, 0)], b = k->c[count_min16_index(k, id, 1)];
    return a < b ? a : b;
}

static inline uint32_t count_min16_add(CountMin16 *k, ContainerId id)
{
    size_t i0 = count_min16_index(k, id, 0), i1 = count_min16_index(k, id, 1);
    uint16_t m = k->c[i0] < k->c[i1] ? k->c[i0] : k->c[i1];
    if (m == COUNT_MIN16_MAX)
        return m;
    if (k->c[i0] == m)
        k->c[i0]++;
    if (k->c[i1] == m)
        k->c[i1]++;
    return (uint32_t)m + 1;
}

static inline void count_min16_raise(CountMin16 *k, ContainerId id, uint32_t v)
{
    uint16_t m = v > COUNT_MIN16_MAX ? COUNT_MIN16_MAX : (uint16_t)v;
    for (unsigned r = 0; r < COUNT_MIN16_ROWS; r++) {
        uint16_t *c = &k->c[count_min16_index(k, id, r)];
        if (*c < m)
            *c = m;
    }
}

static inline void count_min16_clear(CountMin16 *k, ContainerId id)
{
    uint16_t e = (uint16_t)count_min16_estimate(k, id);
    for (unsigned r = 0; r < COUNT_MIN16_ROWS; r++)
        k->c[count_min16_index(k, id, r)] -= e;
}

static inline void count_min16_halve(CountMin16 *k)
{
    size_t n = count_min16_cells(k);
    for (size_t i = 0; i < n; i++)
        k->c[i] >>= 1;
}

#endif
