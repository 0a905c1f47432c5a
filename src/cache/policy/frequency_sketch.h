/* SPDX-License-Identifier: GPL-3.0-or-later */
/* frequency_sketch.h: TinyLFU's approximate frequency of recent accesses
 * (Einziger, Friedman & Manes, ACM TOS 2017), shared by the tinylfu and
 * wtinylfu policies: a count-min sketch of 4 rows of 4-bit counters with
 * conservative ("minimal") increment, aged by halving every counter when the
 * number of recorded accesses reaches the sample size W (then the access
 * count is halved too, as the halved counters stand for half a sample).
 *
 * Exactly (the reference model in tests/policy_ref/ follows this text):
 *   width   = the smallest power of two >= max(capacity, 16) counters a row
 *   row r   = mix64(id + (r + 1) x 0x9E3779B97F4A7C15) mod width, r = 0..3,
 *             mix64 the splitmix64 finaliser (64-bit arithmetic):
 *             z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
 *             z *= 0x94D049BB133111EB; z ^= z >> 31
 *   add     = m = min of the 4 counters; if m < 15 every counter equal to m
 *             becomes m + 1; then accesses += 1, and if accesses >= W:
 *             every counter = floor(counter / 2), accesses = floor(accesses / 2)
 *   estimate = min of the 4 counters
 * Every access is added (a counter already at 15 stays there). No
 * doorkeeper: the paper's optional Bloom filter in front of the sketch is
 * left out. Two counters a byte: 2 x width bytes. */
#ifndef DESTOR_CACHE_FREQUENCY_SKETCH_H
#define DESTOR_CACHE_FREQUENCY_SKETCH_H

#include "storage/container_source.h"
#include "util/le.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define SKETCH_ROWS 4
#define SKETCH_COUNTER_MAX 15

typedef struct {
    uint8_t *nibbles;   /* SKETCH_ROWS x width counters, two a byte */
    uint32_t width;     /* power of two */
    uint64_t accesses;  /* recorded since the last halving (halved with it) */
    uint64_t sample;    /* W */
} FrequencySketch;

static inline uint32_t sketch_width(uint32_t capacity)
{
    uint32_t w = 16;
    while (w < capacity)
        w <<= 1;
    return w;
}

/* Bytes of the sketch of a cache of `capacity` slots, for the memory report. */
#define FREQUENCY_SKETCH_BYTES(capacity) ((size_t)SKETCH_ROWS * sketch_width(capacity) / 2)

static inline void sketch_init(FrequencySketch *k, uint32_t capacity, uint64_t sample)
{
    k->width = sketch_width(capacity);
    k->nibbles = g_new0(uint8_t, (size_t)SKETCH_ROWS * k->width / 2);
    k->accesses = 0;
    k->sample = sample ? sample : 1;
}

static inline void sketch_free(FrequencySketch *k)
{
    g_free(k->nibbles);
}

static inline uint64_t sketch_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Counter index (over all rows) of id in row r. */
static inline size_t sketch_index(const FrequencySketch *k, ContainerId id, unsigned r)
{
    uint64_t h = sketch_mix64((uint64_t)id + (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull);
    return (size_t)r * k->width + (size_t)(h & (k->width - 1));
}

static inline unsigned sketch_get(const FrequencySketch *k, size_t i)
{
    return (k->nibbles[i >> 1] >> ((i & 1) * 4)) & 0xf;
}

static inline void sketch_bump(FrequencySketch *k, size_t i)
{
    k->nibbles[i >> 1] = (uint8_t)(k->nibbles[i >> 1] + (1u << ((i & 1) * 4)));
}

static inline unsigned sketch_estimate(const FrequencySketch *k, ContainerId id)
{
    unsigned m = SKETCH_COUNTER_MAX;
    for (unsigned r = 0; r < SKETCH_ROWS; r++) {
        unsigned v = sketch_get(k, sketch_index(k, id, r));
        m = v < m ? v : m;
    }
    return m;
}

/* Record one access of id; returns id's estimate afterwards (the minimum
 * after the increment, halved with every counter when W is reached). */
static inline unsigned sketch_add(FrequencySketch *k, ContainerId id)
{
    size_t idx[SKETCH_ROWS];
    unsigned m = SKETCH_COUNTER_MAX;
    for (unsigned r = 0; r < SKETCH_ROWS; r++) {
        idx[r] = sketch_index(k, id, r);
        unsigned v = sketch_get(k, idx[r]);
        m = v < m ? v : m;
    }
    if (m < SKETCH_COUNTER_MAX) {
        for (unsigned r = 0; r < SKETCH_ROWS; r++)
            if (sketch_get(k, idx[r]) == m)
                sketch_bump(k, idx[r]);
        m++;
    }
    if (++k->accesses >= k->sample) {
        size_t n = (size_t)SKETCH_ROWS * k->width / 2;
        for (size_t i = 0; i < n; i++)
            k->nibbles[i] = (uint8_t)((k->nibbles[i] >> 1) & 0x77);
        k->accesses /= 2;
        m /= 2;
    }
    return m;
}

/* Saved state (part of a policy's blob): accesses u64, then the counters
 * as stored (2 x width bytes, row after row, two counters a byte, the
 * lower index in the low nibble). */
static inline void sketch_save(const FrequencySketch *k, GByteArray *out)
{
    guint at = out->len;
    g_byte_array_set_size(out, at + 8);
    le64_put(out->data + at, k->accesses);
    g_byte_array_append(out, k->nibbles, (guint)((size_t)SKETCH_ROWS * k->width / 2));
}

/* FALSE if the blob at *at does not fit this sketch. */
static inline gboolean sketch_load(FrequencySketch *k, const uint8_t *blob, size_t len, size_t *at)
{
    size_t n = (size_t)SKETCH_ROWS * k->width / 2;
    if (len - *at < 8 + n || le64_get(blob + *at) >= k->sample)
        return FALSE;
    k->accesses = le64_get(blob + *at);
    memcpy(k->nibbles, blob + *at + 8, n);
    *at += 8 + n;
    return TRUE;
}

#endif
