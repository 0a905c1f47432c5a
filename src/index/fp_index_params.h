/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_index_params.h: which fingerprint index a backup uses (Destor's
 * fingerprint-index keys) and what a job's index reports about itself. */
#ifndef DESTOR_FP_INDEX_PARAMS_H
#define DESTOR_FP_INDEX_PARAMS_H

#include <glib.h>
#include <stdint.h>

typedef enum {
    FP_INDEX_EXACT,   /* exact physical (ddfs): every fingerprint, in the DB */
    FP_INDEX_SAMPLED, /* near-exact physical ("sampled index") */
    FP_INDEX_SILO,    /* near-exact logical silo: similar segments' containers */
} FpIndexKind;

/* Destor's fingerprint-index-sampling-method: which chunks of a container
 * are its samples, one in `ratio`. */
typedef enum {
    SAMPLING_UNIFORM, /* every ratio-th chunk by position, the first included */
    SAMPLING_RANDOM,  /* chunks whose fingerprint is 0 modulo ratio */
    SAMPLING_MIN,     /* the ceil(n / ratio) smallest fingerprints */
    SAMPLING_OPTMIN,  /* the smallest fingerprint of each run of ratio chunks */
} SamplingMethod;

typedef struct {
    FpIndexKind kind;
    SamplingMethod sampling;
    unsigned sampling_ratio;   /* >= 1 */
    unsigned cache_containers; /* locality cache, >= 1 */
} FpIndexParams;

/* The defaults (docs/EXPERIMENTS.md says why): exact; for near-exact,
 * uniform 32 and a cache of 32 containers. */
#define FP_INDEX_DEFAULT_SAMPLING SAMPLING_UNIFORM
#define FP_INDEX_DEFAULT_RATIO 32u
#define FP_INDEX_DEFAULT_CACHE 32u

void fp_index_params_default(FpIndexParams *p);
const char *fp_index_kind_name(FpIndexKind kind);
gboolean sampling_method_parse(const char *name, SamplingMethod *out);
const char *sampling_method_name(SamplingMethod m);

/* What one job's index did (backup's summary). */
typedef struct {
    uint64_t ram_bytes;         /* table + cache + Berkeley DB cache pages in use */
    uint64_t table_bytes;       /* exact: this job's new chunks; near-exact: samples
                                   and the chunks of containers not yet written */
    uint64_t cache_bytes;       /* near-exact: the locality cache */
    uint64_t db_cache_bytes;    /* Berkeley DB cache pages in use */
    uint64_t db_reads;          /* lookups that read the DB */
    uint64_t prefetches;        /* container metadata read into the locality cache */
    uint64_t missed_duplicates; /* new chunks whose fingerprint the DB already held */
} FpIndexStats;

#endif
