/* SPDX-License-Identifier: GPL-3.0-or-later */
/* le.h: fixed-width little-endian encoding for every on-disk structure.
 * Formats never depend on host byte order or struct padding. */
#ifndef DESTOR_LE_H
#define DESTOR_LE_H

#include <stdint.h>
#include <string.h>

static inline void le16_put(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void le32_put(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void le64_put(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t le16_get(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t le32_get(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t le64_get(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
/* An IEEE-754 double as the little-endian 64 bits of its representation. */
static inline void le64_put_double(uint8_t *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    le64_put(p, v);
}
static inline double le64_get_double(const uint8_t *p)
{
    uint64_t v = le64_get(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

#endif
