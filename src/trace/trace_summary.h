/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_summary.h: what read-file --trace reports once a trace is served,
 * whether it came as text (paths resolved per request) or compiled: request
 * and byte counts, container accesses, measured and modelled latency per
 * request (mean and percentiles), and the SSD cache's statistics, as text
 * or JSON. */
#ifndef DESTOR_TRACE_SUMMARY_H
#define DESTOR_TRACE_SUMMARY_H

#include "cache/container/cache_core.h"
#include "cache/chunk/chunk_cache.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t requests, bytes, accesses;
    GArray *latency_usec;       /* measured, double per request */
    GArray *model_latency_usec; /* modelled by the device model, double per request */
    double seconds;
} TraceSummary;

void trace_summary_init(TraceSummary *t);
void trace_summary_clear(TraceSummary *t);
/* One request served: its measured and modelled latency, in microseconds. */
static inline void trace_summary_add(TraceSummary *t, double usec, double model_usec)
{
    g_array_append_val(t->latency_usec, usec);
    g_array_append_val(t->model_latency_usec, model_usec);
    t->requests++;
}

typedef struct {
    double mean, p50, p95, p99;
} LatencyFigures;

/* Mean and nearest-rank percentiles (rank ceil(p/100 * n)) of the doubles
 * in `values`, which it reorders (selection, not a sort); zeros if empty. */
LatencyFigures latency_figures(GArray *values);

/* Print the summary on fp (read-file: stdout). Modelled latencies come with a cache (its
 * statistics follow, in JSON as the nested object "cache") and in
 * simulation without one; `simulate` marks what no bytes moved for. JSON:
 * one destor.trace-summary document, times in ms (docs/FORMAT.md). */
void trace_summary_print(const TraceSummary *t, const char *trace_path, CacheCore *cache, ChunkCache *chunk_cache,
                         gboolean simulate, gboolean json, FILE *fp);

#endif
