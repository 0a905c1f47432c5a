/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunker.c: the algorithm-independent half of chunking.
 *
 * Parses algorithm names, validates chunk sizes against the rules each
 * algorithm needs, builds the read-only Chunker (its tables are computed
 * here, once) and dispatches chunker_next() to rabin.c, fixed.c or
 * fastcdc.c.
 *
 * Size rules (chunk_sizes_validate):
 *   rabin, fastcdc: 64 <= min <= avg <= max <= 16 MiB, avg a power of two.
 *   fixed:          64 <= avg <= 16 MiB (any value, not only powers of two);
 *                   min and max are ignored, because every chunk except the
 *                   last is exactly avg bytes. A caller that sizes its buffers
 *                   by the largest chunk must use avg for fixed, not max. */
#include "chunking/chunker_impl.h"

#include "util/error.h"

#include <string.h>

#define CHUNK_SIZE_FLOOR ((size_t)64)
#define CHUNK_SIZE_CEILING ((size_t)16 << 20)

gboolean chunk_algorithm_parse(const char *name, ChunkAlgorithm *out)
{
    static const struct {
        const char *name;
        ChunkAlgorithm alg;
    } names[] = {
        { "rabin", CHUNK_RABIN },
        { "fixed", CHUNK_FIXED },
        { "fastcdc", CHUNK_FASTCDC },
        /* Destor's name for Rabin with normalized chunking; FastCDC's
         * normalized gear chunking is our equivalent. */
        { "normalized rabin", CHUNK_FASTCDC },
    };
    if (name == NULL)
        return FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (g_ascii_strcasecmp(name, names[i].name) == 0) {
            if (out != NULL)
                *out = names[i].alg;
            return TRUE;
        }
    }
    return FALSE;
}

const char *chunk_algorithm_name(ChunkAlgorithm alg)
{
    switch (alg) {
    case CHUNK_RABIN:
        return "rabin";
    case CHUNK_FIXED:
        return "fixed";
    case CHUNK_FASTCDC:
        return "fastcdc";
    }
    return "unknown";
}

static gboolean is_power_of_two(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

gboolean chunk_sizes_validate(ChunkAlgorithm alg, const ChunkSizes *sizes, GError **err)
{
    const char *an = chunk_algorithm_name(alg);
    if (alg != CHUNK_RABIN && alg != CHUNK_FIXED && alg != CHUNK_FASTCDC) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "unknown chunking algorithm %d", (int)alg);
        return FALSE;
    }
    if (sizes == NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "no chunk sizes given");
        return FALSE;
    }
    size_t min = sizes->min_size, avg = sizes->avg_size, max = sizes->max_size;

    if (avg < CHUNK_SIZE_FLOOR || avg > CHUNK_SIZE_CEILING) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk-avg-size %zu is out of range for %s (expected %zu to %zu bytes)",
                    avg, an, CHUNK_SIZE_FLOOR, CHUNK_SIZE_CEILING);
        return FALSE;
    }
    if (alg == CHUNK_FIXED)
        return TRUE; /* min and max do not apply to fixed-size blocks */

    if (!is_power_of_two(avg)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk-avg-size %zu is not a power of two, which %s requires", avg, an);
        return FALSE;
    }
    if (min < CHUNK_SIZE_FLOOR) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk-min-size %zu is below %zu bytes", min, CHUNK_SIZE_FLOOR);
        return FALSE;
    }
    if (min > avg) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk-min-size %zu is larger than chunk-avg-size %zu", min, avg);
        return FALSE;
    }
    if (max < avg) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk-max-size %zu is smaller than chunk-avg-size %zu", max, avg);
        return FALSE;
    }
    if (max > CHUNK_SIZE_CEILING) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "chunk-max-size %zu is above %zu bytes", max, CHUNK_SIZE_CEILING);
        return FALSE;
    }
    return TRUE;
}

Chunker *chunker_new(ChunkAlgorithm alg, const ChunkSizes *sizes)
{
    GError *err = NULL;
    if (!chunk_sizes_validate(alg, sizes, &err)) {
        g_critical("chunker_new: %s", err->message);
        g_error_free(err);
        return NULL;
    }
    Chunker *c = g_new0(Chunker, 1);
    c->alg = alg;
    c->sizes = *sizes;
    switch (alg) {
    case CHUNK_RABIN:
        rabin_init(c);
        break;
    case CHUNK_FASTCDC:
        fastcdc_init(c);
        break;
    case CHUNK_FIXED:
        break;
    }
    return c;
}

void chunker_free(Chunker *c)
{
    g_free(c);
}

size_t chunker_next(const Chunker *c, const uint8_t *buf, size_t len)
{
    if (len == 0)
        return 0;
    switch (c->alg) {
    case CHUNK_RABIN:
        return rabin_next(c, buf, len);
    case CHUNK_FASTCDC:
        return fastcdc_next(c, buf, len);
    case CHUNK_FIXED:
        return fixed_next(c, buf, len);
    }
    g_assert_not_reached();
}
