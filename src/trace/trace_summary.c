/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_summary.c: latency figures and the trace summary's text and JSON. */
#include "trace/trace_summary.h"
#include "util/json_doc.h"

#include <stdio.h>
#include <string.h>

void trace_summary_init(TraceSummary *t)
{
    *t = (TraceSummary){ .latency_usec = g_array_new(FALSE, FALSE, sizeof(double)),
                         .model_latency_usec = g_array_new(FALSE, FALSE, sizeof(double)) };
}

void trace_summary_clear(TraceSummary *t)
{
    g_clear_pointer(&t->latency_usec, g_array_unref);
    g_clear_pointer(&t->model_latency_usec, g_array_unref);
}

/* Put the element of 0-based rank k of v[lo..n) at v[k], smaller ones
 * before it, larger ones after (quickselect: linear time on average, so a
 * summary of millions of requests costs no sort). */
static void select_rank(double *v, size_t lo, size_t n, size_t k)
{
    size_t hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double x = v[i];
                v[i] = v[j];
                v[j] = x;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* The nearest-rank percentiles 50, 95 and 99 (rank ceil(p/100 * n)). */
static size_t rank_of(double p, size_t n)
{
    size_t rank = (size_t)(p / 100.0 * n + 0.999999);
    return (rank < 1 ? 1 : rank > n ? n : rank) - 1;
}

LatencyFigures latency_figures(GArray *usec)
{
    LatencyFigures f = { 0 };
    size_t n = usec->len;
    if (n == 0)
        return f;
    double *v = (double *)(void *)usec->data, sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    f.mean = sum / n;
    size_t r50 = rank_of(50, n), r95 = rank_of(95, n), r99 = rank_of(99, n);
    select_rank(v, 0, n, r50); /* ranks ascending: each search starts where the last ended */
    select_rank(v, r50, n, r95);
    select_rank(v, r95, n, r99);
    f.p50 = v[r50];
    f.p95 = v[r95];
    f.p99 = v[r99];
    return f;
}

/* The request summary, then the SSD cache's statistics when there is one
 * (in JSON as the nested object "cache"). Modelled latencies come with a
 * cache, and in simulation without one (HDD only: one modelled HDD read
 * per access). In simulation no container bytes move: the text says so
 * beside the bytes and the measured times, which then time the simulator. */
/* Latency figures (kept in microseconds) as an object in milliseconds. */
static void latency_json(JsonBuilder *b, const char *key, const LatencyFigures *f)
{
    json_builder_set_member_name(b, key);
    json_builder_begin_object(b);
    json_doc_double(b, "mean", f->mean / 1e3);
    json_doc_double(b, "p50", f->p50 / 1e3);
    json_doc_double(b, "p95", f->p95 / 1e3);
    json_doc_double(b, "p99", f->p99 / 1e3);
    json_builder_end_object(b);
}

void trace_summary_print(const TraceSummary *t, const char *trace_path, CacheCore *cache, ChunkCache *chunk_cache,
                         gboolean simulate, gboolean json, FILE *fp)
{
    uint64_t accesses = t->accesses;
    gboolean modelled = cache != NULL || chunk_cache != NULL || simulate;
    LatencyFigures m = latency_figures(t->latency_usec);
    LatencyFigures d = latency_figures(t->model_latency_usec);
    if (json) {
        JsonBuilder *b = json_doc_new("destor.trace-summary", 1);
        json_doc_path(b, "trace", trace_path, strlen(trace_path));
        json_doc_uint(b, "requests", t->requests);
        json_doc_uint(b, "bytes", t->bytes);
        json_doc_uint(b, "container_accesses", accesses);
        json_doc_bool(b, "simulated", simulate);
        json_doc_double(b, "elapsed_ms", 1e3 * t->seconds);
        latency_json(b, "latency_ms", &m);
        if (modelled)
            latency_json(b, "latency_model_ms", &d);
        json_builder_set_member_name(b, "cache");
        if (cache != NULL)
            cache_core_json(cache, b);
        else if (chunk_cache != NULL)
            chunk_cache_json(chunk_cache, b);
        else
            json_builder_add_null_value(b);
        json_doc_print(b, fp);
        return;
    }
    fprintf(fp, "requests            %llu\n", (unsigned long long)t->requests);
    fprintf(fp, "bytes read          %llu%s\n", (unsigned long long)t->bytes, simulate ? " (simulated: none moved)" : "");
    fprintf(fp, "container accesses  %llu\n", (unsigned long long)accesses);
    fprintf(fp, "elapsed             %.3f s\n", t->seconds);
    fprintf(fp, "latency (measured)  mean %.1f us, p50 %.1f us, p95 %.1f us, p99 %.1f us%s\n", m.mean, m.p50, m.p95,
           m.p99, simulate ? " (the simulator, no I/O)" : "");
    if (modelled)
        fprintf(fp, "latency (modelled)  mean %.1f us, p50 %.1f us, p95 %.1f us, p99 %.1f us%s\n", d.mean, d.p50, d.p95,
               d.p99, cache == NULL && chunk_cache == NULL ? " (HDD only, device model)" : "");
    if (cache != NULL)
        cache_core_print_stats(cache, fp);
    if (chunk_cache != NULL)
        chunk_cache_print_stats(chunk_cache, fp);
}

