/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_read.h: one chunk from a container source, by where a recipe says
 * it is (container, offset, length) and what it is (its fingerprint): the
 * chunk cache's miss path with ssd-cache-chunk-fetch chunk. With the
 * source's range read it is one read of just the chunk's bytes; a source
 * without one (an SSD container cache, a prefetching reader) gives the
 * whole container, checked and cut. A range read cannot check the
 * container's checksum, so the chunk's fingerprint is the check: bytes
 * that do not match are an INTEGRITY error (exit 3), as a damaged
 * container is on the whole-container path. */
#ifndef DESTOR_CHUNK_READ_H
#define DESTOR_CHUNK_READ_H

#include "storage/container_source.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    uint64_t reads;      /* reads issued to the source */
    uint64_t bytes_read; /* bytes those reads transferred */
} ChunkReadCost;

/* Fill buf (len bytes) with the chunk of fingerprint fp (algorithm alg) at
 * offset in container id, verified. `cost`, when not NULL, is added to. */
gboolean chunk_read(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len, FingerprintAlgorithm alg,
                    const Fingerprint *fp, uint8_t *buf, ChunkReadCost *cost, GError **err);

#endif
