/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_stats.c: quadrant classification, SSD lifetime arithmetic, and the
 * text and JSON forms of a cache report. */
#include "cache/common/cache_stats.h"
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

static double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

static const char *const quadrant_names[4] = { "qa", "qb", "qc", "qd" };

/* ---- text ---- */

static void text_size(GString *out, const char *label, uint64_t bytes)
{
    char buf[32];
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " (%s)\n", label, bytes,
                           size_format(bytes, buf, sizeof buf));
}

static void text_count(GString *out, const char *label, uint64_t v)
{
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT "\n", label, v);
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

void cache_report_text(const CacheReport *r, GString *out)
{
    const CacheCounters *c = &r->c;
    char buf[32], buf2[32];
    g_string_append_printf(out, "SSD cache: policy %s, %s mode, %u of %u containers cached "
                                "(capacity %u, container %s)\n",
                           r->policy, r->mode, r->cached, r->n_containers, r->capacity,
                           size_format(r->container_size, buf, sizeof buf));
    text_count(out, "requests", c->requests);
    text_count(out, "container accesses", c->accesses);
    text_count(out, "hits", c->hits);
    text_count(out, "misses", c->misses);
    g_string_append_printf(out, "  %-30s %.2f%%\n", "hit ratio", 100.0 * r->hit_ratio);
    g_string_append_printf(out, "  %-30s %.2f%%\n", "request hit ratio", 100.0 * r->request_hit_ratio);
    text_count(out, "admissions", c->admissions);
    text_count(out, "containers written to SSD", c->ssd_containers_written);
    text_size(out, "bytes written to SSD", c->ssd_bytes_written);
    if (c->ssd_logical_bytes_written != c->ssd_bytes_written || strcmp(r->compression, "none") != 0) {
        g_string_append_printf(out, "  %-30s %s (level %u): %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                    " copies stored compressed, ratio %.3f\n",
                               "compression", r->compression, r->compression_level, c->ssd_compressed_written,
                               c->ssd_containers_written, r->compression_ratio);
        text_size(out, "  container bytes written", c->ssd_logical_bytes_written);
        g_string_append_printf(out, "  %-30s %.3f s compressing, %.3f s decompressing (thread CPU)\n",
                               "  compression CPU", c->cpu_compress_s, c->cpu_decompress_s);
        text_size(out, "  capacity (physical)", r->capacity_bytes);
        text_size(out, "  capacity (logical)", r->capacity_logical_bytes);
        g_string_append_printf(out, "  %-30s %s of containers in %s on the SSD\n", "  cached now",
                               size_format(r->cached_bytes, buf, sizeof buf),
                               size_format(r->cached_stored_bytes, buf2, sizeof buf2));
    }
    text_size(out, "bytes read from SSD", c->ssd_bytes_read);
    text_size(out, "bytes read from store", c->store_bytes_read);
    text_count(out, "evictions", c->evictions);
    text_count(out, "refused", c->refused);
    if (c->refused_admission > c->refused_write_budget)
        text_count(out, "refused: admission filter", c->refused_admission);
    if (r->write_budget > 0) {
        text_count(out, "refused: write budget", c->refused_write_budget);
        g_string_append_printf(out, "  %-30s %.0f B per request, %s over the requests (+ one cache fill); "
                                    "written %.3f of it\n",
                               "write budget", r->write_budget,
                               size_format((uint64_t)r->write_budget_bytes, buf, sizeof buf),
                               ratio((double)c->ssd_bytes_written, r->write_budget_bytes));
    }
    for (size_t i = 0; i < r->n_policy_counters; i++)
        text_count(out, r->policy_counter_names[i].label, r->policy_counters[i]);
    if (c->ssd_write_errors || c->ssd_read_errors || c->ssd_corrupt_dropped || c->ssd_decode_failed || c->ssd_foreign_dropped ||
        c->ssd_stale_dropped || c->ssd_freed_dropped) {
        text_count(out, "SSD write errors", c->ssd_write_errors);
        text_count(out, "SSD read errors", c->ssd_read_errors);
        text_count(out, "damaged copies dropped", c->ssd_corrupt_dropped);
        text_count(out, "  of which undecodable", c->ssd_decode_failed);
        text_count(out, "other store's copies dropped", c->ssd_foreign_dropped);
        text_count(out, "stale copies dropped", c->ssd_stale_dropped);
        text_count(out, "copies of freed containers dropped", c->ssd_freed_dropped);
    }
    if (r->quadrants) {
        g_string_append_printf(out, "  quadrants of SSD-written bytes (popular: accesses >= %u, "
                                    "rewritten: writes >= %u)\n",
                               r->quadrant_access_threshold, r->quadrant_repeat_threshold);
        static const char *const what[4] = { "QA popular, written rarely",
                                             "QB popular, rewritten",
                                             "QC unpopular, written rarely",
                                             "QD unpopular, rewritten" };
        for (int q = 0; q < 4; q++)
            g_string_append_printf(out, "    %-28s %6.2f%%  %s in %" G_GUINT64_FORMAT " containers\n",
                                   what[q], 100.0 * r->quadrant_share[q],
                                   size_format(r->quadrant_bytes[q], buf, sizeof buf),
                                   r->quadrant_containers[q]);
    }
    g_string_append_printf(out, "  %-30s %.3f ms per access, %.3f ms per request (max %.3f)\n",
                           "modelled latency", 1e3 * ratio(c->model_access_s, (double)c->accesses),
                           1e3 * ratio(c->model_request_s, (double)c->requests),
                           1e3 * c->model_request_max_s);
    g_string_append_printf(out, "  %-30s %.3f s, SSD reads waited %.3f s behind writes\n",
                           "modelled time", r->model_elapsed_s, r->model_ssd_wait_s);
    g_string_append_printf(out, "  %-30s %.3f ms per request (max %.3f), %.3f s in all\n",
                           "wall latency", 1e3 * ratio(c->wall_request_s, (double)c->requests),
                           1e3 * c->wall_request_max_s, r->wall_elapsed_s);
    g_string_append_printf(out, "  SSD lifetime at %s TBW:\n", size_format(r->ssd_tbw_bytes, buf, sizeof buf));
    text_days(out, "  at the modelled write rate", r->write_rate_model_bps, r->lifetime_days_model);
    text_days(out, "  at the wall-clock write rate", r->write_rate_wall_bps, r->lifetime_days_wall);
    g_string_append_printf(out, "  %-30s %.2f B per container, %zu B per slot, %s in all\n",
                           "cache metadata in memory", r->bytes_per_container, r->bytes_per_slot,
                           size_format(r->memory_bytes, buf, sizeof buf));
    g_string_append_printf(out, "  %-30s %s, %s\n", "of which the access counts", r->counters,
                           size_format(r->counts_bytes, buf, sizeof buf));
    g_string_append_printf(out, "  %-30s %s\n", "of which the policy's", size_format(r->policy_memory_bytes, buf, sizeof buf));
}

/* ---- JSON ---- */

/* Top-level keys the policies' counters had before the policy seam
 * (docs/CACHE.md: kept for one release): every registered alias, the
 * running policy's value or 0, as the old report gave 0 for the reasons of
 * other policies. */
static void json_aliases(JsonBuilder *b, const CacheReport *r)
{
    for (size_t p = 0; p < cache_policy_count(); p++) {
        const CachePolicyOps *ops = cache_policy_at(p);
        for (size_t i = 0; i < ops->n_counters; i++) {
            const char *alias = ops->counters[i].alias;
            if (alias == NULL)
                continue;
            uint64_t v = 0;
            for (size_t k = 0; k < r->n_policy_counters; k++)
                if (r->policy_counter_names[k].alias && strcmp(r->policy_counter_names[k].alias, alias) == 0)
                    v = r->policy_counters[k];
            json_doc_uint(b, alias, v);
        }
    }
}

void cache_report_json(const CacheReport *r, JsonBuilder *b)
{
    const CacheCounters *c = &r->c;
    json_builder_begin_object(b);
    json_doc_string(b, "policy", r->policy);
    json_doc_string(b, "mode", r->mode);
    json_doc_uint(b, "capacity_containers", r->capacity);
    json_doc_uint(b, "cached_containers", r->cached);
    json_doc_uint(b, "store_containers", r->n_containers);
    json_doc_uint(b, "container_size", r->container_size);
    json_doc_uint(b, "requests", c->requests);
    json_doc_uint(b, "accesses", c->accesses);
    json_doc_uint(b, "hits", c->hits);
    json_doc_uint(b, "misses", c->misses);
    json_doc_double(b, "hit_ratio", r->hit_ratio);
    json_doc_uint(b, "requests_hit", c->requests_hit);
    json_doc_double(b, "request_hit_ratio", r->request_hit_ratio);
    json_doc_uint(b, "admissions", c->admissions);
    json_doc_uint(b, "ssd_containers_written", c->ssd_containers_written);
    json_doc_uint(b, "ssd_bytes_written", c->ssd_bytes_written);
    json_doc_string(b, "compression", r->compression);
    json_doc_uint(b, "compression_level", r->compression_level);
    json_doc_uint(b, "ssd_logical_bytes_written", c->ssd_logical_bytes_written);
    json_doc_uint(b, "ssd_compressed_written", c->ssd_compressed_written);
    json_doc_double(b, "compression_ratio", r->compression_ratio);
    json_doc_double(b, "cpu_compress_ms", 1e3 * c->cpu_compress_s);
    json_doc_double(b, "cpu_decompress_ms", 1e3 * c->cpu_decompress_s);
    json_doc_uint(b, "capacity_bytes", r->capacity_bytes);
    json_doc_uint(b, "capacity_logical_bytes", r->capacity_logical_bytes);
    json_doc_uint(b, "cached_bytes", r->cached_bytes);
    json_doc_uint(b, "cached_stored_bytes", r->cached_stored_bytes);
    json_doc_uint(b, "ssd_bytes_read", c->ssd_bytes_read);
    json_doc_uint(b, "store_bytes_read", c->store_bytes_read);
    json_doc_uint(b, "hdd_reads", c->misses); /* each miss reads its container from the store */
    json_doc_uint(b, "hdd_bytes_read", c->store_bytes_read);
    json_doc_uint(b, "evictions", c->evictions);
    json_doc_uint(b, "refused", c->refused);
    json_doc_uint(b, "refused_admission", c->refused_admission);
    json_doc_uint(b, "refused_write_budget", c->refused_write_budget);
    json_doc_double(b, "write_budget_bytes_per_request", r->write_budget);
    json_doc_double(b, "write_budget_bytes", r->write_budget_bytes);
    json_builder_set_member_name(b, "policy_counters");
    json_builder_begin_object(b);
    for (size_t i = 0; i < r->n_policy_counters; i++)
        json_doc_uint(b, r->policy_counter_names[i].name, r->policy_counters[i]);
    json_builder_end_object(b);
    json_aliases(b, r);
    json_doc_uint(b, "ssd_write_errors", c->ssd_write_errors);
    json_doc_uint(b, "ssd_read_errors", c->ssd_read_errors);
    json_doc_uint(b, "ssd_corrupt_dropped", c->ssd_corrupt_dropped);
    json_doc_uint(b, "ssd_decode_failed", c->ssd_decode_failed);
    json_doc_uint(b, "ssd_foreign_dropped", c->ssd_foreign_dropped);
    json_doc_uint(b, "ssd_stale_dropped", c->ssd_stale_dropped);
    json_doc_uint(b, "ssd_freed_dropped", c->ssd_freed_dropped);
    json_doc_bool(b, "quadrants_tracked", r->quadrants);
    json_doc_uint(b, "quadrant_access_threshold", r->quadrant_access_threshold);
    json_doc_uint(b, "quadrant_repeat_threshold", r->quadrant_repeat_threshold);
    for (int q = 0; q < 4; q++) {
        char key[32];
        g_snprintf(key, sizeof key, "%s_bytes", quadrant_names[q]);
        json_doc_uint(b, key, r->quadrant_bytes[q]);
        g_snprintf(key, sizeof key, "%s_containers", quadrant_names[q]);
        json_doc_uint(b, key, r->quadrant_containers[q]);
        g_snprintf(key, sizeof key, "%s_share", quadrant_names[q]);
        json_doc_double(b, key, r->quadrants ? r->quadrant_share[q] : NAN);
    }
    json_doc_double(b, "model_elapsed_ms", 1e3 * r->model_elapsed_s);
    json_doc_double(b, "model_ssd_wait_ms", 1e3 * r->model_ssd_wait_s);
    json_doc_double(b, "model_ssd_write_busy_ms", 1e3 * r->model_ssd_write_busy_s);
    json_doc_double(b, "access_latency_model_ms_mean", 1e3 * ratio(c->model_access_s, (double)c->accesses));
    json_doc_double(b, "request_latency_model_ms_mean", 1e3 * ratio(c->model_request_s, (double)c->requests));
    json_doc_double(b, "request_latency_model_ms_max", 1e3 * c->model_request_max_s);
    json_doc_double(b, "request_latency_wall_ms_mean", 1e3 * ratio(c->wall_request_s, (double)c->requests));
    json_doc_double(b, "request_latency_wall_ms_max", 1e3 * c->wall_request_max_s);
    json_doc_double(b, "wall_elapsed_ms", 1e3 * r->wall_elapsed_s);
    json_doc_uint(b, "ssd_tbw_bytes", r->ssd_tbw_bytes);
    json_doc_double(b, "ssd_write_rate_model_mib_s", r->write_rate_model_bps / MIB);
    json_doc_double(b, "ssd_lifetime_model_days", r->lifetime_days_model);
    json_doc_double(b, "ssd_write_rate_wall_mib_s", r->write_rate_wall_bps / MIB);
    json_doc_double(b, "ssd_lifetime_wall_days", r->lifetime_days_wall);
    json_doc_double(b, "memory_bytes_per_container", r->bytes_per_container);
    json_doc_uint(b, "memory_bytes_per_slot", r->bytes_per_slot);
    json_doc_uint(b, "memory_bytes", r->memory_bytes);
    json_doc_uint(b, "memory_bytes_policy", r->policy_memory_bytes);
    json_doc_string(b, "cache_counters", r->counters);
    json_doc_uint(b, "memory_bytes_counts", r->counts_bytes);
    json_builder_end_object(b);
}
