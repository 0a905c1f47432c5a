/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_report.c: the chunk cache's counters as a report (ratios,
 * write amplification, the write budget, modelled time, SSD lifetime, memory per cached and
 * per stored chunk, the admission rule's per stored container), and its text and JSON forms as one table
 * (report_table.h). The layout's lines and JSON object are the rows it
 * hands up (chunk_layout.h: report, model_report) over its part of the
 * report, which this fills. JSON keys shared with the container cache's
 * report mean the same (docs/CACHE.md). */
#include "cache/chunk/chunk_cache_internal.h"
#include "cache/common/report_table.h"
#include "cache/layouts/chunk_layout_report.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <string.h>

/* Every byte the core keeps in RAM, and the policy's. */
static void memory(const ChunkCache *c, ChunkCacheReport *r)
{
    size_t per_slot = sizeof(Fingerprint) + 3 * sizeof(uint32_t) + sizeof(uint8_t) +
                      sizeof(uint32_t); /* + free stack */
    r->policy_memory_bytes = c->ops->memory(c->pst);
    size_t offers = chunk_cache_offers_memory(c);
    r->stored_length_bytes = chunk_cache_stored_memory(c);
    r->stored_lengths = c->n_stored;
    r->admission_memory_bytes = admission_memory(&c->admission);
    r->admission_bytes_per_container =
        c->opt.n_containers ? (double)r->admission_memory_bytes / c->opt.n_containers : 0.0;
    r->memory_bytes = sizeof *c + (size_t)c->n_slots * per_slot + chunk_table_bytes(&c->table) +
                      r->policy_memory_bytes + r->admission_memory_bytes + r->layout_index_bytes + offers +
                      r->stored_length_bytes;
    r->bytes_per_cached_chunk = r->cached_chunks ? (double)r->memory_bytes / r->cached_chunks : 0.0;
    /* per stored chunk only fetch container's lists of the containers read whole */
    r->bytes_per_stored_chunk = c->container_chunk_entries ? (double)offers / c->container_chunk_entries : 0.0;
}

void chunk_cache_report(ChunkCache *c, ChunkCacheReport *r)
{
    g_mutex_lock(&c->lock);
    memset(r, 0, sizeof *r);
    ChunkLayoutReport *l = &r->layout_report;
    ChunkLayoutCounters *lc = &l->counters;
    r->policy = c->ops->name;
    r->mode = c->opt.mode == CACHE_MODE_REAL ? "real" : "simulate";
    r->fetch = c->opt.fetch == CHUNK_FETCH_CHUNK ? "chunk" : "container";
    report_policy_take(&r->policy_counters, c->ops->counters, c->ops->n_counters, c->policy_counters);
    r->capacity_bytes = c->opt.capacity_bytes;
    r->cached_bytes = c->used_bytes;
    r->cached_chunks = c->n_taken - c->n_free;
    r->c = c->counters;
    r->write_budget = c->opt.write_budget;
    r->write_dwpd = c->opt.write_dwpd;
    r->write_budget_bytes = admission_budget_bytes(&c->admission);
    r->write_budget_charged_bytes = c->admission.charged;
    r->layout = c->lops->name;
    r->layout_object = c->lops->report_name;
    l->real = c->layout != NULL;
    r->layout_rows = l->real ? c->lops->report : c->lops->model_report;
    if (l->real) { /* what reached the SSD: the layout's device bytes (log: whole segments, the cleaner's
                    * rewrites, its metadata; buckets: whole buckets) */
        c->lops->counters(c->layout, lc);
        r->layout_index_bytes = c->lops->index_bytes(c->layout);
        r->c.ssd_bytes_written = lc->device_bytes_written;
    } else if (c->lmodel) { /* simulation: what the layout would have written, where its model counts it (the
                             * log's: whole segments, the cleaner's rewrites, chunklog.meta at open, stored
                             * bytes held) */
        c->lops->model_counters(c->lmodel, lc);
        r->layout_index_bytes = c->lops->model_index_bytes(c->lmodel);
        if (lc->device_bytes_written > 0)
            r->c.ssd_bytes_written = lc->device_bytes_written;
        /* the puts as real mode's layout counts them (when put; stored lengths by its rule), and the CPU
         * simulation spent compressing each admitted chunk once */
        lc->user_bytes_written = c->counters.admitted_bytes;
        lc->stored_bytes_written = c->put_stored_bytes;
        lc->chunks_compressed = c->put_compressed;
        lc->cpu_compress_s = c->sim_cpu_compress_s;
    }
    l->capacity_bytes = c->lopt.capacity_bytes;
    l->reclaim = chunk_log_reclaim_name(c->opt.reclaim);
    l->compression = cache_codec_name(c->opt.compression);
    r->compression_level = c->opt.compression_level;
    /* the layout's (or its model's) stored bytes: the log's live stored bytes, the buckets' sub-slots */
    r->cached_stored_bytes = l->real || c->lmodel ? lc->stored_bytes_held : r->cached_bytes;
    l->compression_ratio =
        lc->stored_bytes_written ? (double)lc->user_bytes_written / (double)lc->stored_bytes_written : 1.0;
    l->capacity_logical_bytes =
        r->cached_stored_bytes
            ? (uint64_t)((double)r->capacity_bytes * (double)r->cached_bytes / (double)r->cached_stored_bytes)
            : r->capacity_bytes;
    l->damaged = r->c.damaged;
    l->dropped = r->c.log_dropped;
    l->kept_hit = r->c.kept_hit;
    l->ssd_write_errors = r->c.ssd_write_errors;
    l->put_mismatched = r->c.put_mismatched;
    r->hit_ratio = report_ratio((double)r->c.hits, (double)r->c.accesses);
    r->byte_hit_ratio = report_ratio((double)r->c.bytes_hit, (double)r->c.bytes_requested);
    r->request_hit_ratio = report_ratio((double)r->c.requests_hit, (double)r->c.requests);
    r->write_amplification = report_ratio((double)r->c.ssd_bytes_written, (double)r->c.admitted_bytes);
    r->model_elapsed_s = c->model.now > c->model.ssd_free_at ? c->model.now : c->model.ssd_free_at;
    r->ssd_tbw_bytes = c->opt.ssd_tbw_bytes;
    r->lifetime_days_model = cache_lifetime_days(
        r->ssd_tbw_bytes, r->model_elapsed_s > 0 ? (double)r->c.ssd_bytes_written / r->model_elapsed_s : 0.0);
    r->stored_unread = c->stored_unread;
    r->model_request_mean_ms = r->c.requests ? 1e3 * r->c.model_request_s / r->c.requests : 0.0;
    r->wall_request_mean_ms = r->c.requests ? 1e3 * r->c.wall_request_s / r->c.requests : 0.0;
    memory(c, r);
    r->bytes_per_stored_length =
        r->stored_lengths ? (double)r->stored_length_bytes / (double)r->stored_lengths : 0.0;
    g_mutex_unlock(&c->lock);
}

/* ---- the rows' conditions and the lines of several figures ---- */

static gboolean offered(const void *p)
{
    return ((const ChunkCacheReport *)p)->c.offered > 0;
}

static gboolean budgeted(const void *p)
{
    return ((const ChunkCacheReport *)p)->write_budget > 0 || ((const ChunkCacheReport *)p)->write_dwpd > 0;
}

static void budget_text(const void *p, GString *out)
{
    const ChunkCacheReport *r = p;
    report_text_budget(out, r->write_budget, r->write_dwpd, r->write_budget_bytes, r->write_budget_charged_bytes);
}

static void header_text(const void *p, GString *out)
{
    const ChunkCacheReport *r = p;
    char a[32], b[32];
    g_string_append_printf(out, "SSD cache: granularity chunk, policy %s, layout %s, %s mode, %u chunks cached "
                                "(%s of %s), chunk fetch %s\n",
                           r->policy, r->layout, r->mode, r->cached_chunks, size_format(r->cached_bytes, a, sizeof a),
                           size_format(r->capacity_bytes, b, sizeof b), r->fetch);
}

static void granularity_json(const void *p, JsonBuilder *b)
{
    (void)p;
    json_doc_string(b, "granularity", "chunk");
}

static void simulated_compression_text(const void *p, GString *out)
{
    const ChunkCacheReport *r = p;
    if (r->layout_report.real || strcmp(r->layout_report.compression, "none") == 0)
        return;
    chunk_layout_compression_line(&r->layout_report, out, "  compression (simulated)");
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " chunks, %.1f B each\n", "  stored lengths kept",
                           r->stored_lengths, r->bytes_per_stored_length);
}

static void mean_request_text(const void *p, GString *out)
{
    g_string_append_printf(out, "  %-30s %.3f ms\n", "modelled mean request",
                           ((const ChunkCacheReport *)p)->model_request_mean_ms);
}

static void memory_text(const void *p, GString *out)
{
    const ChunkCacheReport *r = p;
    g_string_append_printf(out, "  %-30s %.1f B per cached chunk, %.1f B per stored chunk\n", "memory per chunk",
                           r->bytes_per_cached_chunk, r->bytes_per_stored_chunk);
    char buf[32];
    g_string_append_printf(out, "  %-30s %s, %.2f B per stored container\n", "admission rule's memory",
                           size_format(r->admission_memory_bytes, buf, sizeof buf), r->admission_bytes_per_container);
}

/* The layout's lines and its JSON object: the rows it hands up
 * (chunk_layout.h), over its part of the report. */
static void layout_text(const void *p, GString *out)
{
    const ChunkCacheReport *r = p;
    report_table_text(r->layout_rows->rows, r->layout_rows->n, &r->layout_report, out);
}

static void layout_json(const void *p, JsonBuilder *b)
{
    const ChunkCacheReport *r = p;
    json_builder_set_member_name(b, r->layout_object);
    json_builder_begin_object(b);
    report_table_json(r->layout_rows->rows, r->layout_rows->n, &r->layout_report, b);
    json_builder_end_object(b);
}

/* ---- the tables: text lines and JSON members in one order ---- */

#define ROW(...) REPORT_ROW(ChunkCacheReport, __VA_ARGS__)
#define ROW_IF(...) REPORT_ROW_IF(ChunkCacheReport, __VA_ARGS__)
#define LR(f) layout_report.f
#define LC(f) layout_report.counters.f

static const ReportRow rows[] = {
    REPORT_LINES(header_text, granularity_json, NULL),
    ROW("policy", NULL, REPORT_WORD, REPORT_STR, policy),
    ROW("mode", NULL, REPORT_WORD, REPORT_STR, mode),
    ROW("chunk_fetch", NULL, REPORT_WORD, REPORT_STR, fetch),
    ROW("layout", NULL, REPORT_WORD, REPORT_STR, layout),
    ROW("capacity_bytes", NULL, REPORT_COUNT, REPORT_U64, capacity_bytes),
    ROW("cached_bytes", NULL, REPORT_COUNT, REPORT_U64, cached_bytes),
    ROW("cached_chunks", NULL, REPORT_COUNT, REPORT_U32, cached_chunks),
    ROW("requests", "requests", REPORT_COUNT, REPORT_U64, c.requests),
    ROW("requests_hit", NULL, REPORT_COUNT, REPORT_U64, c.requests_hit),
    ROW("accesses", "chunk accesses", REPORT_COUNT, REPORT_U64, c.accesses),
    ROW("hits", "hits", REPORT_COUNT, REPORT_U64, c.hits),
    ROW("misses", "misses", REPORT_COUNT, REPORT_U64, c.misses),
    ROW("misses_cached", "misses of cached chunks", REPORT_COUNT, REPORT_U64, c.misses_cached),
    ROW("hit_ratio", "hit ratio", REPORT_PERCENT, REPORT_DOUBLE, hit_ratio),
    ROW("byte_hit_ratio", "byte hit ratio", REPORT_PERCENT, REPORT_DOUBLE, byte_hit_ratio),
    ROW("request_hit_ratio", "request hit ratio", REPORT_PERCENT, REPORT_DOUBLE, request_hit_ratio),
    ROW("bytes_requested", NULL, REPORT_COUNT, REPORT_U64, c.bytes_requested),
    ROW("bytes_hit", NULL, REPORT_COUNT, REPORT_U64, c.bytes_hit),
    ROW("admissions", "admissions", REPORT_COUNT, REPORT_U64, c.admissions),
    ROW("refused", "refused", REPORT_COUNT, REPORT_U64, c.refused),
    ROW("refused_admission", NULL, REPORT_COUNT, REPORT_U64, c.refused_admission),
    ROW("evictions", "evictions", REPORT_COUNT, REPORT_U64, c.evictions),
    ROW_IF("offered", "offered (container fetch)", REPORT_COUNT, REPORT_U64, c.offered, offered),
    ROW_IF("offers_admitted", "  offers admitted", REPORT_COUNT, REPORT_U64, c.offers_admitted, offered),
    ROW_IF("offers_refused", "  offers refused", REPORT_COUNT, REPORT_U64, c.offers_refused, offered),
    ROW_IF("offers_cached", "  offers already cached", REPORT_COUNT, REPORT_U64, c.offers_cached, offered),
    ROW("offers_mismatched", NULL, REPORT_COUNT, REPORT_U64, c.offers_mismatched),
    ROW("admitted_bytes", NULL, REPORT_COUNT, REPORT_U64, c.admitted_bytes),
    ROW("ssd_bytes_written", "bytes written to SSD", REPORT_BYTES, REPORT_U64, c.ssd_bytes_written),
    ROW("write_amplification", "write amplification", REPORT_RATIO, REPORT_DOUBLE, write_amplification),
    ROW("ssd_bytes_read", "bytes read from SSD", REPORT_BYTES, REPORT_U64, c.ssd_bytes_read),
    REPORT_LINES(budget_text, NULL, budgeted),
    ROW("write_budget_bytes_per_request", NULL, REPORT_RATIO, REPORT_DOUBLE, write_budget),
    ROW("write_budget_dwpd", NULL, REPORT_RATIO, REPORT_DOUBLE, write_dwpd),
    ROW("write_budget_bytes", NULL, REPORT_RATIO, REPORT_DOUBLE, write_budget_bytes),
    ROW("write_budget_charged_bytes", NULL, REPORT_COUNT, REPORT_U64, write_budget_charged_bytes),
    REPORT_LINES(layout_text, NULL, NULL),
    REPORT_LINES(simulated_compression_text, NULL, NULL),
    ROW("hdd_reads", NULL, REPORT_COUNT, REPORT_U64, c.hdd_reads),
    ROW("hdd_bytes_read", NULL, REPORT_COUNT, REPORT_U64, c.hdd_bytes_read),
    ROW("damaged", NULL, REPORT_COUNT, REPORT_U64, c.damaged),
    ROW("log_dropped", NULL, REPORT_COUNT, REPORT_U64, c.log_dropped),
    ROW("kept_hit", NULL, REPORT_COUNT, REPORT_U64, c.kept_hit),
    ROW("ssd_write_errors", NULL, REPORT_COUNT, REPORT_U64, c.ssd_write_errors),
    ROW("put_mismatched", NULL, REPORT_COUNT, REPORT_U64, c.put_mismatched),
    ROW("layout_index_bytes", NULL, REPORT_COUNT, REPORT_U64, layout_index_bytes),
    ROW("compression", NULL, REPORT_WORD, REPORT_STR, LR(compression)),
    ROW("compression_level", NULL, REPORT_COUNT, REPORT_INT, compression_level),
    ROW("ssd_logical_bytes_written", NULL, REPORT_COUNT, REPORT_U64, LC(user_bytes_written)),
    ROW("ssd_compressed_written", NULL, REPORT_COUNT, REPORT_U64, LC(chunks_compressed)),
    ROW("compression_ratio", NULL, REPORT_RATIO, REPORT_DOUBLE, LR(compression_ratio)),
    ROW("cpu_compress_ms", NULL, REPORT_MS, REPORT_DOUBLE, LC(cpu_compress_s)),
    ROW("cpu_decompress_ms", NULL, REPORT_MS, REPORT_DOUBLE, LC(cpu_decompress_s)),
    ROW("capacity_logical_bytes", NULL, REPORT_COUNT, REPORT_U64, LR(capacity_logical_bytes)),
    ROW("cached_stored_bytes", NULL, REPORT_COUNT, REPORT_U64, cached_stored_bytes),
    ROW("stored_lengths", NULL, REPORT_COUNT, REPORT_U64, stored_lengths),
    ROW("stored_length_bytes", NULL, REPORT_COUNT, REPORT_SIZE, stored_length_bytes),
    ROW("bytes_per_stored_length", NULL, REPORT_RATIO, REPORT_DOUBLE, bytes_per_stored_length),
    ROW("stored_lengths_unread", NULL, REPORT_COUNT, REPORT_U64, stored_unread),
    REPORT_LINES(NULL, layout_json, NULL),
    ROW(NULL, "HDD reads", REPORT_COUNT, REPORT_U64, c.hdd_reads),
    ROW(NULL, "HDD bytes read", REPORT_BYTES, REPORT_U64, c.hdd_bytes_read),
    ROW("policy_counters", NULL, REPORT_POLICY, REPORT_U64, policy_counters),
    REPORT_LINES(mean_request_text, NULL, NULL),
    ROW("model_elapsed_ms", NULL, REPORT_MS, REPORT_DOUBLE, model_elapsed_s),
    ROW("request_latency_model_ms_mean", NULL, REPORT_RATIO, REPORT_DOUBLE, model_request_mean_ms),
    ROW("request_latency_model_ms_max", NULL, REPORT_MS, REPORT_DOUBLE, c.model_request_max_s),
    ROW("request_latency_wall_ms_mean", NULL, REPORT_RATIO, REPORT_DOUBLE, wall_request_mean_ms),
    ROW("ssd_lifetime_model_days", NULL, REPORT_RATIO, REPORT_DOUBLE, lifetime_days_model),
    ROW("memory_bytes", "memory", REPORT_BYTES, REPORT_SIZE, memory_bytes),
    ROW("policy_memory_bytes", NULL, REPORT_COUNT, REPORT_SIZE, policy_memory_bytes),
    ROW("admission_memory_bytes", NULL, REPORT_COUNT, REPORT_SIZE, admission_memory_bytes),
    ROW("admission_memory_bytes_per_container", NULL, REPORT_RATIO, REPORT_DOUBLE, admission_bytes_per_container),
    ROW("bytes_per_cached_chunk", NULL, REPORT_RATIO, REPORT_DOUBLE, bytes_per_cached_chunk),
    ROW("bytes_per_stored_chunk", NULL, REPORT_RATIO, REPORT_DOUBLE, bytes_per_stored_chunk),
    REPORT_LINES(memory_text, NULL, NULL),
};

void chunk_cache_print_stats(ChunkCache *c, FILE *fp)
{
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    GString *out = g_string_new(NULL);
    report_table_text(rows, G_N_ELEMENTS(rows), &r, out);
    fputs(out->str, fp);
    g_string_free(out, TRUE);
}

void chunk_cache_json(ChunkCache *c, JsonBuilder *b)
{
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    json_builder_begin_object(b);
    report_table_json(rows, G_N_ELEMENTS(rows), &r, b);
    json_builder_end_object(b);
}
