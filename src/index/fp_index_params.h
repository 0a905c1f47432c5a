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

/* Destor's fingerprint-index-segment-algorithm: how the chunk stream is
 * cut into the segments a logical design (silo) looks up together. */
typedef enum {
    SEGMENT_FIXED,           /* every `size` chunks */
    SEGMENT_CONTENT_DEFINED, /* ends before a chunk whose fingerprint is 0 modulo
                                `size`, no shorter than min, no longer than max */
    SEGMENT_FILE_DEFINED,    /* a file's chunks (here also cut at max) */
} SegmentAlgorithm;

/* Destor's fingerprint-index-segment-selection: which earlier segments a
 * segment's features choose (the champions). */
typedef enum {
    SEGMENT_SELECT_BASE, /* none ahead: a chunk that is an earlier segment's
                            feature brings that segment in when looked up */
    SEGMENT_SELECT_TOP,  /* the top_k segments sharing the most features */
    SEGMENT_SELECT_MIX,  /* top, then base for the chunks still not found */
} SegmentSelection;

typedef struct {
    SegmentAlgorithm algorithm;
    unsigned size;             /* fixed, content-defined: chunks (average), >= 1 */
    unsigned min, max;         /* fingerprint-index-segment-boundary: chunks */
    SegmentSelection selection;
    unsigned top_k;            /* top: segments chosen, >= 1 */
    unsigned prefetching;      /* segments read per chosen one: it and the
                                  ones after it, >= 1 */
} SegmentParams;

typedef struct {
    FpIndexKind kind;
    SamplingMethod sampling;   /* fp_index_sampling() says which one applies */
    gboolean sampling_set;     /* a fingerprint-index-sampling-method line chose it */
    unsigned sampling_ratio;   /* >= 1 */
    unsigned cache_containers; /* locality cache, >= 1 */
    SegmentParams segment;     /* silo only */
} FpIndexParams;

/* The defaults (docs/EXPERIMENTS.md says why): exact; for near-exact,
 * uniform 32 and a cache of 32 containers. */
#define FP_INDEX_DEFAULT_SAMPLING SAMPLING_UNIFORM
#define FP_INDEX_DEFAULT_RATIO 32u
#define FP_INDEX_DEFAULT_CACHE 32u
/* Destor's defaults (its destor_start and its SiLo setup): fixed segments
 * of 1024 chunks, boundaries 128 and 10240, top 1, and 16 segments
 * prefetched for SiLo. */
#define SEGMENT_DEFAULT_SIZE 1024u
#define SEGMENT_DEFAULT_MIN 128u
#define SEGMENT_DEFAULT_MAX 10240u
#define SEGMENT_DEFAULT_PREFETCHING 16u
/* The largest segment a key may ask for, in chunks (held in memory with
 * their data until the segment ends: about 800 MB of 8 KiB chunks). */
#define SEGMENT_MAX_CHUNKS 100000u

void fp_index_params_default(FpIndexParams *p);
/* The sampling method in effect: the one a line chose, else silo's min
 * (Destor's SiLo: a segment's smallest fingerprints, which an insertion
 * earlier in the stream does not move, as it moves uniform's positions)
 * and uniform for the sampled index. */
SamplingMethod fp_index_sampling(const FpIndexParams *p);
const char *fp_index_kind_name(FpIndexKind kind);
gboolean sampling_method_parse(const char *name, SamplingMethod *out);
const char *sampling_method_name(SamplingMethod m);
gboolean segment_algorithm_parse(const char *name, SegmentAlgorithm *out);
const char *segment_algorithm_name(SegmentAlgorithm a);
gboolean segment_selection_parse(const char *name, SegmentSelection *out);
const char *segment_selection_name(SegmentSelection s);

/* What one job's index did (backup's summary). */
typedef struct {
    uint64_t ram_bytes;         /* table + cache + Berkeley DB cache pages in use */
    uint64_t table_bytes;       /* exact: this job's new chunks; near-exact: samples
                                   and the chunks of containers not yet written */
    uint64_t cache_bytes;       /* near-exact: the locality cache */
    uint64_t db_cache_bytes;    /* Berkeley DB cache pages in use */
    uint64_t db_reads;          /* lookups that read the DB */
    uint64_t prefetches;        /* container metadata read into the locality cache */
    uint64_t segments;          /* silo: segments looked up */
    uint64_t missed_duplicates; /* new chunks whose fingerprint the DB already held */
} FpIndexStats;

#endif
