/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunker.h: the one interface every chunking algorithm implements.
 *
 * A chunker is a pure function of the bytes since the last cut point: given
 * a buffer that starts at a chunk boundary and holds either at least
 * `max_size` bytes or everything left of the file, it returns the length of
 * the next chunk. Because the answer depends only on those bytes, boundaries
 * are deterministic, and content-defined algorithms resynchronise shortly
 * after an insertion (shift resistance). */
#ifndef DESTOR_CHUNKER_H
#define DESTOR_CHUNKER_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    CHUNK_RABIN,   /* Rabin fingerprint over a sliding window */
    CHUNK_FIXED,   /* fixed-size blocks of avg_size bytes */
    CHUNK_FASTCDC, /* gear hash with normalized chunking */
} ChunkAlgorithm;

typedef struct {
    size_t min_size;
    size_t avg_size; /* a power of two for rabin and fastcdc */
    size_t max_size;
} ChunkSizes;

typedef struct Chunker Chunker;

/* Parse "rabin", "fixed" or "fastcdc" (Destor's "normalized rabin" is
 * accepted as fastcdc). Returns FALSE for an unknown name. */
gboolean chunk_algorithm_parse(const char *name, ChunkAlgorithm *out);
const char *chunk_algorithm_name(ChunkAlgorithm alg);

/* Check sizes for `alg` (min <= avg <= max, avg a power of two where the
 * algorithm needs one, min >= 64). On failure sets a DESTOR_ERROR_CONFIG. */
gboolean chunk_sizes_validate(ChunkAlgorithm alg, const ChunkSizes *sizes, GError **err);

Chunker *chunker_new(ChunkAlgorithm alg, const ChunkSizes *sizes);
void chunker_free(Chunker *c);

/* Length of the next chunk of buf[0..len): in [1, len], at most max_size,
 * at least min_size unless len < min_size. `len` must be >= max_size unless
 * buf holds the end of the file. Thread-safe: a Chunker is read-only. */
size_t chunker_next(const Chunker *c, const uint8_t *buf, size_t len);

#endif
