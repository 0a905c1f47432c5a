/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_stats.c: quadrant classification, SSD lifetime arithmetic, and the
 * container cache's report as a table (report_table.h) of its text lines
 * and JSON members. */
#include "cache/common/cache_stats.h"
#include "cache/common/report_table.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <math.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

CacheQuadrant cache_quadrant_of(uint32_t accesses, uint32_t writes,
                                uint32_t access_threshold, uint32_t repeat_threshold)
{
    gboolean popular = accesses >= access_threshold;
    gboolean rewritten = writes >= repeat_threshold;
    if (popular)
        return rewritten ? CACHE_QB : CACHE_QA;
    return rewritten ? CACHE_QD : CACHE_QC;
}

double cache_lifetime_days(uint64_t tbw_bytes, double bytes_per_s)
{
    if (!(bytes_per_s > 0))
        return INFINITY;
    return (double)tbw_bytes / bytes_per_s / 86400.0;
}

static const char *const quadrant_names[4] = { "qa", "qb", "qc", "qd" };

/* ---- the rows' conditions and the lines of several figures ---- */

static gboolean compressed(const void *p)
{
    const CacheReport *r = p;
    return r->c.ssd_logical_bytes_written != r->c.ssd_bytes_written || strcmp(r->compression, "none") != 0;
}

static gboolean budgeted(const void *p)
{
    return ((const CacheReport *)p)->write_budget > 0 || ((const CacheReport *)p)->write_dwpd > 0;
}

/* refused by an admission rule that spends no write budget (doorkeeper) */
static gboolean filtered(const void *p)
{
    const CacheCounters *c = &((const CacheReport *)p)->c;
    return c->refused_admission > c->refused_write_budget;
}

static gboolean troubled(const void *p)
{
    const CacheCounters *c = &((const CacheReport *)p)->c;
    return c->ssd_write_errors || c->ssd_read_errors || c->ssd_corrupt_dropped || c->ssd_decode_failed ||
           c->ssd_foreign_dropped || c->ssd_stale_dropped || c->ssd_freed_dropped;
}

static void header_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    char buf[32];
    g_string_append_printf(out, "SSD cache: policy %s, %s mode, %u of %u containers cached "
                                "(capacity %u, container %s)\n",
                           r->policy, r->mode, r->cached, r->n_containers, r->capacity,
                           size_format(r->container_size, buf, sizeof buf));
}

static void compression_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    g_string_append_printf(out, "  %-30s %s (level %u): %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                " copies stored compressed, ratio %.3f\n",
                           "compression", r->compression, r->compression_level, r->c.ssd_compressed_written,
                           r->c.ssd_containers_written, r->compression_ratio);
}

static void compression_cpu_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    g_string_append_printf(out, "  %-30s %.3f s compressing, %.3f s decompressing (thread CPU)\n",
                           "  compression CPU", r->c.cpu_compress_s, r->c.cpu_decompress_s);
}

static void cached_now_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    char buf[32], buf2[32];
    g_string_append_printf(out, "  %-30s %s of containers in %s on the SSD\n", "  cached now",
                           size_format(r->cached_bytes, buf, sizeof buf),
                           size_format(r->cached_stored_bytes, buf2, sizeof buf2));
}

static void budget_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    report_text_budget(out, r->write_budget, r->write_dwpd, r->write_budget_bytes, r->c.ssd_bytes_written);
}

/* Top-level keys the policies' counters had before the policy seam
 * (docs/CACHE.md: kept for one release): every registered alias, the
 * running policy's value or 0, as the old report gave 0 for the reasons of
 * other policies. */
static void aliases_json(const void *p, JsonBuilder *b)
{
    const CacheReport *r = p;
    for (size_t i = 0; i < cache_policy_count(); i++) {
        const CachePolicyOps *ops = cache_policy_at(i);
        for (size_t n = 0; n < ops->n_counters; n++) {
            const char *alias = ops->counters[n].alias;
            if (alias == NULL)
                continue;
            uint64_t v = 0;
            const CacheReportPolicy *pc = &r->policy_counters;
            for (size_t k = 0; k < pc->n; k++)
                if (pc->names[k].alias && strcmp(pc->names[k].alias, alias) == 0)
                    v = pc->values[k];
            json_doc_uint(b, alias, v);
        }
    }
}

static void quadrants_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    static const char *const what[4] = { "QA popular, written rarely", "QB popular, rewritten",
                                         "QC unpopular, written rarely", "QD unpopular, rewritten" };
    char buf[32];
    if (!r->quadrants)
        return;
    g_string_append_printf(out, "  quadrants of SSD-written bytes (popular: accesses >= %u, "
                                "rewritten: writes >= %u)\n",
                           r->quadrant_access_threshold, r->quadrant_repeat_threshold);
    for (int q = 0; q < 4; q++)
        g_string_append_printf(out, "    %-28s %6.2f%%  %s in %" G_GUINT64_FORMAT " containers\n", what[q],
                               100.0 * r->quadrant_share[q], size_format(r->quadrant_bytes[q], buf, sizeof buf),
                               r->quadrant_containers[q]);
}

static void quadrants_json(const void *p, JsonBuilder *b)
{
    const CacheReport *r = p;
    for (int q = 0; q < 4; q++) {
        char key[32];
        g_snprintf(key, sizeof key, "%s_bytes", quadrant_names[q]);
        json_doc_uint(b, key, r->quadrant_bytes[q]);
        g_snprintf(key, sizeof key, "%s_containers", quadrant_names[q]);
        json_doc_uint(b, key, r->quadrant_containers[q]);
        g_snprintf(key, sizeof key, "%s_share", quadrant_names[q]);
        json_doc_double(b, key, r->quadrants ? r->quadrant_share[q] : NAN);
    }
}

static void latency_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    const CacheCounters *c = &r->c;
    g_string_append_printf(out, "  %-30s %.3f ms per access, %.3f ms per request (max %.3f)\n",
                           "modelled latency", 1e3 * report_ratio(c->model_access_s, (double)c->accesses),
                           1e3 * report_ratio(c->model_request_s, (double)c->requests), 1e3 * c->model_request_max_s);
    g_string_append_printf(out, "  %-30s %.3f s, SSD reads waited %.3f s behind writes\n", "modelled time",
                           r->model_elapsed_s, r->model_ssd_wait_s);
    g_string_append_printf(out, "  %-30s %.3f ms per request (max %.3f), %.3f s in all\n", "wall latency",
                           1e3 * report_ratio(c->wall_request_s, (double)c->requests), 1e3 * c->wall_request_max_s,
                           r->wall_elapsed_s);
}

static void text_days(GString *out, const char *label, double rate, double days)
{
    if (isnan(rate))
        g_string_append_printf(out, "  %-30s n/a (simulation writes nothing)\n", label);
    else if (isfinite(days))
        g_string_append_printf(out, "  %-30s %.2f MiB/s -> %.1f days\n", label, rate / MIB, days);
    else
        g_string_append_printf(out, "  %-30s nothing written\n", label);
}

static void lifetime_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    char buf[32];
    g_string_append_printf(out, "  SSD lifetime at %s TBW:\n", size_format(r->ssd_tbw_bytes, buf, sizeof buf));
    text_days(out, "  at the modelled write rate", r->write_rate_model_bps, r->lifetime_days_model);
    text_days(out, "  at the wall-clock write rate", r->write_rate_wall_bps, r->lifetime_days_wall);
}

static void memory_text(const void *p, GString *out)
{
    const CacheReport *r = p;
    char buf[32];
    g_string_append_printf(out, "  %-30s %.2f B per container, %zu B per slot, %s in all\n",
                           "cache metadata in memory", r->bytes_per_container, r->bytes_per_slot,
                           size_format(r->memory_bytes, buf, sizeof buf));
    g_string_append_printf(out, "  %-30s %s, %s\n", "of which the access counts", r->counters,
                           size_format(r->counts_bytes, buf, sizeof buf));
    g_string_append_printf(out, "  %-30s %s\n", "of which the policy's",
                           size_format(r->policy_memory_bytes, buf, sizeof buf));
    g_string_append_printf(out, "  %-30s %s, %.2f B per stored container\n", "of which the admission rule's",
                           size_format(r->admission_memory_bytes, buf, sizeof buf), r->admission_bytes_per_container);
}

/* ---- the table: text lines and JSON members in one order ---- */

#define ROW(...) REPORT_ROW(CacheReport, __VA_ARGS__)
#define ROW_IF(...) REPORT_ROW_IF(CacheReport, __VA_ARGS__)
#define MEAN(...) REPORT_MEAN(CacheReport, __VA_ARGS__)

static const ReportRow rows[] = {
    REPORT_LINES(header_text, NULL, NULL),
    ROW("policy", NULL, REPORT_WORD, REPORT_STR, policy),
    ROW("mode", NULL, REPORT_WORD, REPORT_STR, mode),
    ROW("capacity_containers", NULL, REPORT_COUNT, REPORT_U32, capacity),
    ROW("cached_containers", NULL, REPORT_COUNT, REPORT_U32, cached),
    ROW("store_containers", NULL, REPORT_COUNT, REPORT_U32, n_containers),
    ROW("container_size", NULL, REPORT_COUNT, REPORT_U64, container_size),
    ROW("requests", "requests", REPORT_COUNT, REPORT_U64, c.requests),
    ROW("accesses", "container accesses", REPORT_COUNT, REPORT_U64, c.accesses),
    ROW("hits", "hits", REPORT_COUNT, REPORT_U64, c.hits),
    ROW("misses", "misses", REPORT_COUNT, REPORT_U64, c.misses),
    ROW("hit_ratio", "hit ratio", REPORT_PERCENT, REPORT_DOUBLE, hit_ratio),
    ROW("requests_hit", NULL, REPORT_COUNT, REPORT_U64, c.requests_hit),
    ROW("request_hit_ratio", "request hit ratio", REPORT_PERCENT, REPORT_DOUBLE, request_hit_ratio),
    ROW("admissions", "admissions", REPORT_COUNT, REPORT_U64, c.admissions),
    ROW("ssd_containers_written", "containers written to SSD", REPORT_COUNT, REPORT_U64, c.ssd_containers_written),
    ROW("ssd_bytes_written", "bytes written to SSD", REPORT_BYTES, REPORT_U64, c.ssd_bytes_written),
    REPORT_LINES(compression_text, NULL, compressed),
    ROW("compression", NULL, REPORT_WORD, REPORT_STR, compression),
    ROW("compression_level", NULL, REPORT_COUNT, REPORT_U32, compression_level),
    ROW_IF("ssd_logical_bytes_written", "  container bytes written", REPORT_BYTES, REPORT_U64,
           c.ssd_logical_bytes_written, compressed),
    ROW("ssd_compressed_written", NULL, REPORT_COUNT, REPORT_U64, c.ssd_compressed_written),
    ROW("compression_ratio", NULL, REPORT_RATIO, REPORT_DOUBLE, compression_ratio),
    ROW("cpu_compress_ms", NULL, REPORT_MS, REPORT_DOUBLE, c.cpu_compress_s),
    ROW("cpu_decompress_ms", NULL, REPORT_MS, REPORT_DOUBLE, c.cpu_decompress_s),
    REPORT_LINES(compression_cpu_text, NULL, compressed),
    ROW_IF("capacity_bytes", "  capacity (physical)", REPORT_BYTES, REPORT_U64, capacity_bytes, compressed),
    ROW_IF("capacity_logical_bytes", "  capacity (logical)", REPORT_BYTES, REPORT_U64, capacity_logical_bytes,
           compressed),
    ROW("cached_bytes", NULL, REPORT_COUNT, REPORT_U64, cached_bytes),
    ROW("cached_stored_bytes", NULL, REPORT_COUNT, REPORT_U64, cached_stored_bytes),
    REPORT_LINES(cached_now_text, NULL, compressed),
    ROW("ssd_bytes_read", "bytes read from SSD", REPORT_BYTES, REPORT_U64, c.ssd_bytes_read),
    ROW("store_bytes_read", "bytes read from store", REPORT_BYTES, REPORT_U64, c.store_bytes_read),
    ROW("hdd_reads", NULL, REPORT_COUNT, REPORT_U64, c.misses), /* each miss reads its container from the store */
    ROW("hdd_bytes_read", NULL, REPORT_COUNT, REPORT_U64, c.store_bytes_read),
    ROW("evictions", "evictions", REPORT_COUNT, REPORT_U64, c.evictions),
    ROW("refused", "refused", REPORT_COUNT, REPORT_U64, c.refused),
    ROW_IF("refused_admission", "refused: admission rule", REPORT_COUNT, REPORT_U64, c.refused_admission,
           filtered),
    ROW_IF("refused_write_budget", "refused: write budget", REPORT_COUNT, REPORT_U64, c.refused_write_budget,
           budgeted),
    REPORT_LINES(budget_text, NULL, budgeted),
    ROW("write_budget_bytes_per_request", NULL, REPORT_RATIO, REPORT_DOUBLE, write_budget),
    ROW("write_budget_dwpd", NULL, REPORT_RATIO, REPORT_DOUBLE, write_dwpd),
    ROW("write_budget_bytes", NULL, REPORT_RATIO, REPORT_DOUBLE, write_budget_bytes),
    ROW("policy_counters", NULL, REPORT_POLICY, REPORT_U64, policy_counters),
    REPORT_LINES(NULL, aliases_json, NULL),
    ROW_IF("ssd_write_errors", "SSD write errors", REPORT_COUNT, REPORT_U64, c.ssd_write_errors, troubled),
    ROW_IF("ssd_read_errors", "SSD read errors", REPORT_COUNT, REPORT_U64, c.ssd_read_errors, troubled),
    ROW_IF("ssd_corrupt_dropped", "damaged copies dropped", REPORT_COUNT, REPORT_U64, c.ssd_corrupt_dropped,
           troubled),
    ROW_IF("ssd_decode_failed", "  of which undecodable", REPORT_COUNT, REPORT_U64, c.ssd_decode_failed, troubled),
    ROW_IF("ssd_foreign_dropped", "other store's copies dropped", REPORT_COUNT, REPORT_U64, c.ssd_foreign_dropped,
           troubled),
    ROW_IF("ssd_stale_dropped", "stale copies dropped", REPORT_COUNT, REPORT_U64, c.ssd_stale_dropped, troubled),
    ROW_IF("ssd_freed_dropped", "copies of freed containers dropped", REPORT_COUNT, REPORT_U64,
           c.ssd_freed_dropped, troubled),
    ROW("quadrants_tracked", NULL, REPORT_FLAG, REPORT_BOOL, quadrants),
    ROW("quadrant_access_threshold", NULL, REPORT_COUNT, REPORT_U32, quadrant_access_threshold),
    ROW("quadrant_repeat_threshold", NULL, REPORT_COUNT, REPORT_U32, quadrant_repeat_threshold),
    REPORT_LINES(quadrants_text, quadrants_json, NULL),
    REPORT_LINES(latency_text, NULL, NULL),
    ROW("model_elapsed_ms", NULL, REPORT_MS, REPORT_DOUBLE, model_elapsed_s),
    ROW("model_ssd_wait_ms", NULL, REPORT_MS, REPORT_DOUBLE, model_ssd_wait_s),
    ROW("model_ssd_write_busy_ms", NULL, REPORT_MS, REPORT_DOUBLE, model_ssd_write_busy_s),
    MEAN("access_latency_model_ms_mean", c.model_access_s, c.accesses),
    MEAN("request_latency_model_ms_mean", c.model_request_s, c.requests),
    ROW("request_latency_model_ms_max", NULL, REPORT_MS, REPORT_DOUBLE, c.model_request_max_s),
    MEAN("request_latency_wall_ms_mean", c.wall_request_s, c.requests),
    ROW("request_latency_wall_ms_max", NULL, REPORT_MS, REPORT_DOUBLE, c.wall_request_max_s),
    ROW("wall_elapsed_ms", NULL, REPORT_MS, REPORT_DOUBLE, wall_elapsed_s),
    REPORT_LINES(lifetime_text, NULL, NULL),
    ROW("ssd_tbw_bytes", NULL, REPORT_COUNT, REPORT_U64, ssd_tbw_bytes),
    ROW("ssd_write_rate_model_mib_s", NULL, REPORT_MIB_S, REPORT_DOUBLE, write_rate_model_bps),
    ROW("ssd_lifetime_model_days", NULL, REPORT_RATIO, REPORT_DOUBLE, lifetime_days_model),
    ROW("ssd_write_rate_wall_mib_s", NULL, REPORT_MIB_S, REPORT_DOUBLE, write_rate_wall_bps),
    ROW("ssd_lifetime_wall_days", NULL, REPORT_RATIO, REPORT_DOUBLE, lifetime_days_wall),
    REPORT_LINES(memory_text, NULL, NULL),
    ROW("memory_bytes_per_container", NULL, REPORT_RATIO, REPORT_DOUBLE, bytes_per_container),
    ROW("memory_bytes_per_slot", NULL, REPORT_COUNT, REPORT_SIZE, bytes_per_slot),
    ROW("memory_bytes", NULL, REPORT_COUNT, REPORT_SIZE, memory_bytes),
    ROW("memory_bytes_policy", NULL, REPORT_COUNT, REPORT_SIZE, policy_memory_bytes),
    ROW("memory_bytes_admission", NULL, REPORT_COUNT, REPORT_SIZE, admission_memory_bytes),
    ROW("memory_bytes_admission_per_container", NULL, REPORT_RATIO, REPORT_DOUBLE, admission_bytes_per_container),
    ROW("cache_counters", NULL, REPORT_WORD, REPORT_STR, counters),
    ROW("memory_bytes_counts", NULL, REPORT_COUNT, REPORT_SIZE, counts_bytes),
};

void cache_report_text(const CacheReport *r, GString *out)
{
    report_table_text(rows, G_N_ELEMENTS(rows), r, out);
}

void cache_report_json(const CacheReport *r, JsonBuilder *b)
{
    json_builder_begin_object(b);
    report_table_json(rows, G_N_ELEMENTS(rows), r, b);
    json_builder_end_object(b);
}
