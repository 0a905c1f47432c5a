/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_design.h: the seam between FpIndex (the Berkeley DB record of every
 * chunk, its dirty mark and rebuilds: fp_index.c) and the design that
 * answers a backup's lookups, one file per design (fp_exact.c,
 * fp_sampled.c). Inside src/index only.
 *
 * The contract every design keeps: a lookup answers found only with the
 * location of a chunk that a container in the pool (or the job's own
 * container not yet written) holds under the full fingerprint, as that
 * container's metadata says. A near-exact design may answer "not found"
 * for a stored chunk (a missed duplicate, stored again); never the
 * reverse. */
#ifndef DESTOR_FP_DESIGN_H
#define DESTOR_FP_DESIGN_H

#include "index/fp_index.h"

/* The sampled index's table of samples, saved beside the DB at commit;
 * any other design's commit removes it (the DB changed without it). */
#define FP_SAMPLES_FILE "samples"
/* The same for the SiLo design's segment table. */
#define FP_SEGMENTS_FILE "segments"

typedef struct FpDesign FpDesign;

typedef struct {
    FpDesign *(*open)(FpIndex *idx, const FpIndexParams *p, GError **err);
    gboolean (*lookup)(FpDesign *d, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err);
    /* The next n lookups are of these fingerprints, in order (a segment
     * of the stream); NULL for a design that does not look ahead. */
    gboolean (*segment)(FpDesign *d, const Fingerprint *fps, guint n, GError **err);
    /* A new chunk of the job, in its open container. */
    void (*add)(FpDesign *d, const Fingerprint *fp, const ChunkLocation *loc);
    /* A sealed container of the job, now in the pool, before the DB has it. */
    void (*persisted)(FpDesign *d, const uint8_t *container, size_t size);
    /* The DB is durable and clean: save what the design keeps beside it. */
    gboolean (*commit)(FpDesign *d, GError **err);
    void (*stats)(FpDesign *d, FpIndexStats *st);
    void (*close)(FpDesign *d);
} FpDesignOps;

extern const FpDesignOps fp_design_exact;
extern const FpDesignOps fp_design_sampled;
extern const FpDesignOps fp_design_silo;

/* What fp_index.c offers the designs. */
gboolean fp_index_db_get(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err);
/* The pool held containers at open (else the DB holds only this job's). */
gboolean fp_index_prior_chunks(const FpIndex *idx);
ContainerSource *fp_index_pool(const FpIndex *idx);
/* Containers a rebuild reads: the pool's at open, plus this job's. */
uint32_t fp_index_containers(const FpIndex *idx);
size_t fp_index_fp_len(const FpIndex *idx);
const char *fp_index_dir(const FpIndex *idx);
/* The DB was rebuilt at this open (what a design kept beside it is stale). */
gboolean fp_index_was_rebuilt(const FpIndex *idx);

#endif
