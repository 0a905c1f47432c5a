/* SPDX-License-Identifier: GPL-3.0-or-later */
/* last_seen.h: `learned`'s sketch of when recent objects were last
 * accessed, in epochs, and the epochs between their two last accesses: T
 * cells of 16 bits (T a power of two), two choices an object, a 6-bit tag.
 * The exact rule is in learned.c's header (its reference model,
 * tests/policy_ref/admission_reference.py, follows that text). */
#ifndef DESTOR_CACHE_LAST_SEEN_H
#define DESTOR_CACHE_LAST_SEEN_H

#include "cache/policy/frequency_sketch.h"

#include <glib.h>
#include <stdint.h>

#define LAST_SEEN_WINDOW 16u /* epochs in the window: a found object's a is at most this */
#define LAST_SEEN_NONE 31u   /* a or g unknown */
#define LAST_SEEN_WRAP 32u   /* the epoch is kept mod this */

typedef struct {
    uint16_t *cells; /* tag << 10 | epoch mod 32 << 5 | g; 0: empty */
    uint32_t mask;   /* T - 1 */
} LastSeen;

static inline void last_seen_init(LastSeen *t, uint32_t cells)
{
    g_assert(cells >= 64 && (cells & (cells - 1)) == 0);
    t->cells = g_new0(uint16_t, cells);
    t->mask = cells - 1;
}

static inline void last_seen_free(LastSeen *t)
{
    g_free(t->cells);
}

static inline unsigned last_seen_age(uint16_t cell, uint64_t epoch)
{
    return (unsigned)((epoch - ((cell >> 5) & 31u)) % LAST_SEEN_WRAP);
}

/* One access of `key` in `epoch`: *a and *g receive the epochs since its
 * last access and its gap then (LAST_SEEN_NONE: not found / unknown); its
 * cell then holds this access. */
static inline void last_seen_access(LastSeen *t, uint64_t key, uint64_t epoch, unsigned *a, unsigned *g)
{
    uint64_t h = sketch_mix64(key);
    uint32_t at[2] = { (uint32_t)(h & t->mask),
                       (uint32_t)(sketch_mix64(key + 0x9E3779B97F4A7C15ull) & t->mask) };
    unsigned tag = 1 + (unsigned)((h >> 32) % 63);
    *a = *g = LAST_SEEN_NONE;
    int pick = -1;
    for (int i = 0; i < 2 && pick < 0; i++) {
        uint16_t c = t->cells[at[i]];
        if (c != 0 && (c >> 10) == tag && last_seen_age(c, epoch) <= LAST_SEEN_WINDOW) {
            *a = last_seen_age(c, epoch);
            *g = c & 31u;
            pick = i;
        }
    }
    if (pick < 0) /* the first empty cell, else the older (the first on a tie) */
        pick = t->cells[at[0]] == 0 ? 0
             : t->cells[at[1]] == 0 ? 1
             : last_seen_age(t->cells[at[1]], epoch) > last_seen_age(t->cells[at[0]], epoch) ? 1 : 0;
    t->cells[at[pick]] = (uint16_t)(tag << 10 | (unsigned)(epoch % LAST_SEEN_WRAP) << 5 | *a);
}

/* A turn of the window: cells older than the window are emptied. */
static inline void last_seen_sweep(LastSeen *t, uint64_t epoch)
{
    for (uint32_t i = 0; i <= t->mask; i++)
        if (t->cells[i] && last_seen_age(t->cells[i], epoch) > LAST_SEEN_WINDOW)
            t->cells[i] = 0;
}

static inline size_t last_seen_memory(const LastSeen *t)
{
    return ((size_t)t->mask + 1) * sizeof(uint16_t);
}

#endif
