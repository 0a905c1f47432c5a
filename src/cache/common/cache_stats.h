/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_stats.h: what the SSD cache measures, and its text and JSON forms.
 *
 * The core accumulates CacheCounters as it runs; cache_core_report() turns
 * them into a CacheReport (ratios, the quadrant breakdown, modelled and wall
 * latency, projected SSD lifetime), which the functions here print. JSON keys
 * are stable snake_case (docs/CACHE.md lists them); scripts read at least
 * `ssd_bytes_written`. Bytes are bytes; MiB = 2^20; days = 86400 s; times
 * in JSON are milliseconds (keys end in _ms). */
#ifndef DESTOR_CACHE_STATS_H
#define DESTOR_CACHE_STATS_H

#include "cache/common/report_table.h"
#include "cache/policy/policy.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t requests;               /* cache_core_request_end() calls */
    uint64_t requests_hit;           /* of them, requests of at least one access,
                                        every access a hit (the SSD served all) */
    uint64_t accesses, hits, misses; /* container accesses */
    uint64_t admissions;             /* misses the policy admitted */
    uint64_t ssd_containers_written, ssd_bytes_written; /* bytes as they reach the
                                        SSD: compressed copies padded to pages */
    uint64_t ssd_logical_bytes_written; /* the containers' own bytes of those writes */
    uint64_t ssd_compressed_written; /* copies stored compressed (the rest as they are) */
    uint64_t ssd_decode_failed;      /* of ssd_corrupt_dropped: compressed copies
                                        that did not decompress */
    double cpu_compress_s, cpu_decompress_s; /* thread CPU time in the codec */
    uint64_t ssd_bytes_read, store_bytes_read;
    uint64_t evictions;
    uint64_t refused;                /* misses not admitted (the policy's own
                                        counters may say why) */
    uint64_t refused_admission;      /* of them, refused by the admission rule
                                        (ssd-cache-admission): the policy not asked */
    uint64_t refused_write_budget;   /* of those, by a rule that spends
                                        ssd-cache-write-budget */
    uint64_t ssd_write_errors, ssd_read_errors, ssd_corrupt_dropped;
    uint64_t ssd_foreign_dropped;    /* copies of another store (or incarnation) */
    uint64_t ssd_stale_dropped;      /* copies of containers the store now holds
                                        other bytes under (put back from a copy) */
    uint64_t ssd_freed_dropped;      /* copies of containers gc freed since they
                                        were cached, dropped at open */
    double model_access_s;           /* sum of modelled access latencies */
    double model_request_s, model_request_max_s;
    double wall_request_s, wall_request_max_s;
} CacheCounters;

/* Per container, for the quadrant breakdown: accesses in this run (never
 * reset) and times written into the SSD (the paper's repeat count). */
typedef struct {
    uint32_t accesses;
    uint32_t writes;
} CacheQuadrantRecord;

/* Quadrants of SSD-written data (paper Fig. 1/3/9). A container is popular
 * when accesses >= the access threshold, rewritten when writes >= the repeat
 * threshold: QA popular + written rarely (PLC data), QB popular + rewritten,
 * QC unpopular + written rarely, QD unpopular + rewritten. */
typedef enum { CACHE_QA, CACHE_QB, CACHE_QC, CACHE_QD } CacheQuadrant;

CacheQuadrant cache_quadrant_of(uint32_t accesses, uint32_t writes,
                                uint32_t access_threshold, uint32_t repeat_threshold);

typedef struct {
    const char *policy;
    CacheReportPolicy policy_counters; /* the policy's own counters */
    size_t policy_memory_bytes; /* all the policy's state, ghosts and sketches included */
    size_t admission_memory_bytes; /* the admission rule's (its sketch, its model), in memory_bytes too */
    double admission_bytes_per_container; /* admission_memory_bytes / the stored containers (issue 38) */
    const char *mode; /* "real" or "simulate" */
    uint32_t capacity, cached, n_containers;
    uint64_t container_size;
    CacheCounters c;
    /* ssd-cache-compression. This layout keeps one slot per container
     * whatever its stored size, so the logical capacity equals the
     * physical one; the cached copies' stored bytes show what a packed
     * layout would free. */
    const char *compression;      /* "none", "lz4", "zstd" */
    uint32_t compression_level;
    double compression_ratio;     /* ssd_logical_bytes_written / ssd_bytes_written (1 when none written) */
    uint64_t capacity_bytes;      /* physical: capacity x container_size */
    uint64_t capacity_logical_bytes; /* container bytes the slots can hold */
    uint64_t cached_bytes;        /* container bytes of the cached copies */
    uint64_t cached_stored_bytes; /* their bytes on the SSD, padded to pages */
    double hit_ratio;
    double request_hit_ratio;  /* requests_hit / requests */

    gboolean quadrants; /* FALSE when not tracked */
    uint32_t quadrant_access_threshold, quadrant_repeat_threshold;
    uint64_t quadrant_bytes[4], quadrant_containers[4];
    double quadrant_share[4]; /* of ssd_bytes_written */

    double model_elapsed_s, model_ssd_wait_s, model_ssd_write_busy_s;
    double wall_elapsed_s;

    uint64_t ssd_tbw_bytes;
    double write_budget;       /* ssd-cache-write-budget, bytes per request (0: none) */
    double write_dwpd;         /* ssd-cache-write-budget-dwpd (0: none) */
    double write_budget_bytes; /* write_budget x requests, or DWPD x capacity x
                                  the trace's days: what the rate allows
                                  beyond the initial fill of one cache */
    double write_rate_model_bps, lifetime_days_model; /* lifetime: inf if no writes */
    double write_rate_wall_bps, lifetime_days_wall;   /* NaN in simulation mode */

    /* per stored container: the access counts' share (a sketch's is
     * fractional), the cached bit, the store's reference_count, the
     * quadrant record */
    double bytes_per_container;
    size_t bytes_per_slot, memory_bytes;
    const char *counters;  /* cache-counters: "exact", "compact" or "sketch" */
    size_t counts_bytes;   /* all the access counts */
} CacheReport;

/* Days until `tbw_bytes` are written at `bytes_per_s` (paper Table 1);
 * infinity for a zero rate. */
double cache_lifetime_days(uint64_t tbw_bytes, double bytes_per_s);

/* Append the report to out. */
void cache_report_text(const CacheReport *r, GString *out);
/* The report as a JSON object value at b's current position (after a
 * member name, or in an array); times in ms (util/json_doc.h). */
void cache_report_json(const CacheReport *r, JsonBuilder *b);

#endif
