/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_report.c: the chunk cache's counters as a report (ratios,
 * write amplification, modelled time, SSD lifetime, memory per cached and
 * per stored chunk), and its text and JSON forms. JSON keys shared with the
 * container cache's report mean the same (docs/CACHE.md). */
#include "cache/chunk/chunk_cache_internal.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <string.h>

static double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

/* Every byte the core keeps in RAM, and the policy's. */
static void memory(const ChunkCache *c, ChunkCacheReport *r)
{
    size_t per_slot = sizeof(Fingerprint) + 3 * sizeof(uint32_t) + sizeof(uint32_t); /* + free stack */
    r->policy_memory_bytes = c->ops->memory(c->pst);
    size_t offers = chunk_cache_offers_memory(c);
    r->stored_length_bytes = chunk_cache_stored_memory(c);
    r->stored_lengths = c->n_stored;
    r->memory_bytes = sizeof *c + (size_t)c->n_slots * per_slot + chunk_table_bytes(&c->table) +
                      r->policy_memory_bytes + r->layout_index_bytes + offers + r->stored_length_bytes;
    r->bytes_per_cached_chunk = r->cached_chunks ? (double)r->memory_bytes / r->cached_chunks : 0.0;
    /* per stored chunk only fetch container's lists of the containers read whole */
    r->bytes_per_stored_chunk = c->container_chunk_entries ? (double)offers / c->container_chunk_entries : 0.0;
}

void chunk_cache_report(ChunkCache *c, ChunkCacheReport *r)
{
    g_mutex_lock(&c->lock);
    memset(r, 0, sizeof *r);
    r->policy = c->ops->name;
    r->mode = c->opt.mode == CACHE_MODE_REAL ? "real" : "simulate";
    r->fetch = c->opt.fetch == CHUNK_FETCH_CHUNK ? "chunk" : "container";
    r->policy_counter_names = c->ops->counters;
    r->n_policy_counters = MIN(c->ops->n_counters, CACHE_REPORT_MAX_POLICY_COUNTERS);
    memcpy(r->policy_counters, c->policy_counters, r->n_policy_counters * sizeof(uint64_t));
    r->capacity_bytes = c->opt.capacity_bytes;
    r->cached_bytes = c->used_bytes;
    r->cached_chunks = c->n_taken - c->n_free;
    r->c = c->counters;
    r->layout = chunk_layout_name(c->opt.layout);
    r->real = c->layout != NULL;
    if (r->real) { /* what reached the SSD: the layout's device bytes (log: whole segments, the cleaner's
                    * rewrites, its metadata; buckets: whole buckets) */
        c->lops->counters(c->layout, &r->layout_counters);
        r->layout_index_bytes = c->lops->index_bytes(c->layout);
        r->c.ssd_bytes_written = r->layout_counters.device_bytes_written;
    } else if (c->lmodel) { /* simulation: what the layout would have written, where its model counts it (the
                             * log's: whole segments, the cleaner's rewrites, chunklog.meta at open, stored
                             * bytes held) */
        c->lops->model_counters(c->lmodel, &r->layout_counters);
        r->layout_index_bytes = c->lops->model_index_bytes(c->lmodel);
        if (r->layout_counters.device_bytes_written > 0)
            r->c.ssd_bytes_written = r->layout_counters.device_bytes_written;
        /* the puts as real mode's layout counts them (when put; stored lengths by its rule), and the CPU
         * simulation spent compressing each admitted chunk once */
        r->layout_counters.user_bytes_written = c->counters.admitted_bytes;
        r->layout_counters.stored_bytes_written = c->put_stored_bytes;
        r->layout_counters.chunks_compressed = c->put_compressed;
        r->layout_counters.cpu_compress_s = c->sim_cpu_compress_s;
    }
    r->log_capacity_bytes = c->lopt.capacity_bytes;
    r->reclaim = chunk_log_reclaim_name(c->opt.reclaim);
    r->compression = cache_codec_name(c->opt.compression);
    r->compression_level = c->opt.compression_level;
    /* the layout's (or its model's) stored bytes: the log's live stored bytes, the buckets' sub-slots */
    r->cached_stored_bytes = r->real || c->lmodel ? r->layout_counters.stored_bytes_held : r->cached_bytes;
    r->compression_ratio = r->layout_counters.stored_bytes_written
                               ? (double)r->layout_counters.user_bytes_written /
                                     (double)r->layout_counters.stored_bytes_written
                               : 1.0;
    r->capacity_logical_bytes =
        r->cached_stored_bytes
            ? (uint64_t)((double)r->capacity_bytes * (double)r->cached_bytes / (double)r->cached_stored_bytes)
            : r->capacity_bytes;
    r->hit_ratio = ratio((double)r->c.hits, (double)r->c.accesses);
    r->byte_hit_ratio = ratio((double)r->c.bytes_hit, (double)r->c.bytes_requested);
    r->request_hit_ratio = ratio((double)r->c.requests_hit, (double)r->c.requests);
    r->write_amplification = ratio((double)r->c.ssd_bytes_written, (double)r->c.admitted_bytes);
    r->model_elapsed_s = c->model.now > c->model.ssd_free_at ? c->model.now : c->model.ssd_free_at;
    r->ssd_tbw_bytes = c->opt.ssd_tbw_bytes;
    r->lifetime_days_model = cache_lifetime_days(
        r->ssd_tbw_bytes, r->model_elapsed_s > 0 ? (double)r->c.ssd_bytes_written / r->model_elapsed_s : 0.0);
    r->stored_unread = c->stored_unread;
    memory(c, r);
    g_mutex_unlock(&c->lock);
}

static void text_count(GString *out, const char *label, uint64_t v)
{
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT "\n", label, v);
}

static void text_size(GString *out, const char *label, uint64_t bytes)
{
    char buf[32];
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " (%s)\n", label, bytes,
                           size_format(bytes, buf, sizeof buf));
}

void chunk_cache_print_stats(ChunkCache *c, FILE *fp)
{
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    const ChunkCacheCounters *k = &r.c;
    char a[32], b[32];
    GString *out = g_string_new(NULL);
    g_string_append_printf(out, "SSD cache: granularity chunk, policy %s, layout %s, %s mode, %u chunks cached "
                                "(%s of %s), chunk fetch %s\n",
                           r.policy, r.layout, r.mode, r.cached_chunks, size_format(r.cached_bytes, a, sizeof a),
                           size_format(r.capacity_bytes, b, sizeof b), r.fetch);
    text_count(out, "requests", k->requests);
    text_count(out, "chunk accesses", k->accesses);
    text_count(out, "hits", k->hits);
    text_count(out, "misses", k->misses);
    text_count(out, "misses of cached chunks", k->misses_cached);
    g_string_append_printf(out, "  %-30s %.2f%%\n", "hit ratio", 100.0 * r.hit_ratio);
    g_string_append_printf(out, "  %-30s %.2f%%\n", "byte hit ratio", 100.0 * r.byte_hit_ratio);
    g_string_append_printf(out, "  %-30s %.2f%%\n", "request hit ratio", 100.0 * r.request_hit_ratio);
    text_count(out, "admissions", k->admissions);
    text_count(out, "refused", k->refused);
    text_count(out, "evictions", k->evictions);
    if (k->offered) {
        text_count(out, "offered (container fetch)", k->offered);
        text_count(out, "  offers admitted", k->offers_admitted);
        text_count(out, "  offers refused", k->offers_refused);
        text_count(out, "  offers already cached", k->offers_cached);
    }
    text_size(out, "bytes written to SSD", k->ssd_bytes_written);
    g_string_append_printf(out, "  %-30s %.3f\n", "write amplification", r.write_amplification);
    text_size(out, "bytes read from SSD", k->ssd_bytes_read);
    if (r.real && strcmp(r.layout, "buckets") == 0) {
        text_size(out, "  chunk bytes written", r.layout_counters.user_bytes_written);
        text_size(out, "  sub-slot bytes written", r.layout_counters.stored_bytes_written);
        g_string_append_printf(out, "  %-30s %s, ratio %.3f, %" G_GUINT64_FORMAT " chunks compressed\n",
                               "  compression", r.compression, r.compression_ratio,
                               r.layout_counters.chunks_compressed);
        g_string_append_printf(out, "  %-30s %.1f ms compress, %.1f ms decompress\n", "  compression CPU",
                               1e3 * r.layout_counters.cpu_compress_s, 1e3 * r.layout_counters.cpu_decompress_s);
        text_size(out, "  logical capacity", r.capacity_logical_bytes);
        text_count(out, "  prefix collisions", r.layout_counters.prefix_collisions);
        text_count(out, "damaged chunks (refetched)", k->damaged);
        text_count(out, "SSD write errors", k->ssd_write_errors);
    } else { /* the log, or in simulation its model */
        g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " (%s), reclaim %s\n", "chunk log size",
                               r.log_capacity_bytes, size_format(r.log_capacity_bytes, a, sizeof a), r.reclaim);
        text_size(out, "  chunk bytes written", r.layout_counters.segments.user_bytes_written);
        text_size(out, "  stored bytes of them", r.layout_counters.segments.user_stored_bytes_written);
        text_size(out, "  cleaner bytes written", r.layout_counters.segments.cleaner_bytes_written);
        text_count(out, "  segments written", r.layout_counters.segments.segments_written);
        text_count(out, "  segments evicted", r.layout_counters.segments.segments_evicted);
        text_count(out, "  segments cleaned", r.layout_counters.segments.segments_cleaned);
        if (r.layout_counters.segments.segments_reinserted) {
            text_count(out, "  segments reinserted", r.layout_counters.segments.segments_reinserted);
            text_count(out, "  chunks reinserted", r.layout_counters.segments.chunks_reinserted);
            text_size(out, "  reinserted bytes written", r.layout_counters.segments.reinserted_bytes_written);
        }
        text_count(out, "  live chunks the log dropped", k->log_dropped);
        if (r.real && (r.layout_counters.chunks_compressed || strcmp(r.compression, "none") != 0)) {
            g_string_append_printf(out, "  %-30s %s, ratio %.3f, %" G_GUINT64_FORMAT " chunks compressed\n",
                                   "  compression", r.compression, r.compression_ratio,
                                   r.layout_counters.chunks_compressed);
            g_string_append_printf(out, "  %-30s %.1f ms compress, %.1f ms decompress\n", "  compression CPU",
                                   1e3 * r.layout_counters.cpu_compress_s, 1e3 * r.layout_counters.cpu_decompress_s);
        }
        text_count(out, "damaged chunks (refetched)", k->damaged);
        text_count(out, "SSD write errors", k->ssd_write_errors);
    }
    if (!r.real && strcmp(r.compression, "none") != 0) {
        g_string_append_printf(out, "  %-30s %s, ratio %.3f, %" G_GUINT64_FORMAT " chunks compressed\n",
                               "  compression (simulated)", r.compression, r.compression_ratio,
                               r.layout_counters.chunks_compressed);
        g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " chunks, %.1f B each\n", "  stored lengths kept",
                               r.stored_lengths,
                               r.stored_lengths ? (double)r.stored_length_bytes / (double)r.stored_lengths : 0.0);
    }
    text_count(out, "HDD reads", k->hdd_reads);
    text_size(out, "HDD bytes read", k->hdd_bytes_read);
    for (size_t i = 0; i < r.n_policy_counters; i++)
        text_count(out, r.policy_counter_names[i].label, r.policy_counters[i]);
    g_string_append_printf(out, "  %-30s %.3f ms\n", "modelled mean request",
                           k->requests ? 1e3 * k->model_request_s / k->requests : 0.0);
    text_size(out, "memory", r.memory_bytes);
    g_string_append_printf(out, "  %-30s %.1f B per cached chunk, %.1f B per stored chunk\n", "memory per chunk",
                           r.bytes_per_cached_chunk, r.bytes_per_stored_chunk);
    fputs(out->str, fp);
    g_string_free(out, TRUE);
}

void chunk_cache_json(ChunkCache *c, JsonBuilder *b)
{
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    const ChunkCacheCounters *k = &r.c;
    json_builder_begin_object(b);
    json_doc_string(b, "granularity", "chunk");
    json_doc_string(b, "policy", r.policy);
    json_doc_string(b, "mode", r.mode);
    json_doc_string(b, "chunk_fetch", r.fetch);
    json_doc_string(b, "layout", r.layout);
    json_doc_uint(b, "capacity_bytes", r.capacity_bytes);
    json_doc_uint(b, "cached_bytes", r.cached_bytes);
    json_doc_uint(b, "cached_chunks", r.cached_chunks);
    json_doc_uint(b, "requests", k->requests);
    json_doc_uint(b, "requests_hit", k->requests_hit);
    json_doc_uint(b, "accesses", k->accesses);
    json_doc_uint(b, "hits", k->hits);
    json_doc_uint(b, "misses", k->misses);
    json_doc_uint(b, "misses_cached", k->misses_cached);
    json_doc_double(b, "hit_ratio", r.hit_ratio);
    json_doc_double(b, "byte_hit_ratio", r.byte_hit_ratio);
    json_doc_double(b, "request_hit_ratio", r.request_hit_ratio);
    json_doc_uint(b, "bytes_requested", k->bytes_requested);
    json_doc_uint(b, "bytes_hit", k->bytes_hit);
    json_doc_uint(b, "admissions", k->admissions);
    json_doc_uint(b, "refused", k->refused);
    json_doc_uint(b, "refused_admission", k->refused_admission);
    json_doc_uint(b, "evictions", k->evictions);
    json_doc_uint(b, "offered", k->offered);
    json_doc_uint(b, "offers_admitted", k->offers_admitted);
    json_doc_uint(b, "offers_refused", k->offers_refused);
    json_doc_uint(b, "offers_cached", k->offers_cached);
    json_doc_uint(b, "offers_mismatched", k->offers_mismatched);
    json_doc_uint(b, "admitted_bytes", k->admitted_bytes);
    json_doc_uint(b, "ssd_bytes_written", k->ssd_bytes_written);
    json_doc_double(b, "write_amplification", r.write_amplification);
    json_doc_uint(b, "ssd_bytes_read", k->ssd_bytes_read);
    json_doc_uint(b, "hdd_reads", k->hdd_reads);
    json_doc_uint(b, "hdd_bytes_read", k->hdd_bytes_read);
    json_doc_uint(b, "damaged", k->damaged);
    json_doc_uint(b, "log_dropped", k->log_dropped);
    json_doc_uint(b, "ssd_write_errors", k->ssd_write_errors);
    json_doc_uint(b, "layout_index_bytes", r.layout_index_bytes);
    json_doc_string(b, "compression", r.compression);
    json_doc_uint(b, "compression_level", (uint64_t)r.compression_level);
    json_doc_uint(b, "ssd_logical_bytes_written", r.layout_counters.user_bytes_written);
    json_doc_uint(b, "ssd_compressed_written", r.layout_counters.chunks_compressed);
    json_doc_double(b, "compression_ratio", r.compression_ratio);
    json_doc_double(b, "cpu_compress_ms", 1e3 * r.layout_counters.cpu_compress_s);
    json_doc_double(b, "cpu_decompress_ms", 1e3 * r.layout_counters.cpu_decompress_s);
    json_doc_uint(b, "capacity_logical_bytes", r.capacity_logical_bytes);
    json_doc_uint(b, "cached_stored_bytes", r.cached_stored_bytes);
    json_doc_uint(b, "stored_lengths", r.stored_lengths);
    json_doc_uint(b, "stored_length_bytes", r.stored_length_bytes);
    json_doc_double(b, "bytes_per_stored_length",
                    r.stored_lengths ? (double)r.stored_length_bytes / (double)r.stored_lengths : 0.0);
    json_doc_uint(b, "stored_lengths_unread", r.stored_unread);
    if (r.real && strcmp(r.layout, "buckets") == 0) {
        json_builder_set_member_name(b, "chunk_buckets");
        json_builder_begin_object(b);
        json_doc_uint(b, "user_bytes_written", r.layout_counters.user_bytes_written);
        json_doc_uint(b, "device_bytes_written", r.layout_counters.device_bytes_written);
        json_doc_uint(b, "chunks_dropped_by_layout", r.layout_counters.chunks_dropped_by_layout);
        json_doc_uint(b, "damaged_reads", r.layout_counters.damaged_reads);
        json_doc_uint(b, "prefix_collisions", r.layout_counters.prefix_collisions);
        json_builder_end_object(b);
    } else { /* the log, or in simulation its model (no damage there) */
        json_builder_set_member_name(b, "chunk_log");
        json_builder_begin_object(b);
        json_doc_uint(b, "capacity_bytes", r.log_capacity_bytes);
        json_doc_string(b, "reclaim", r.reclaim);
        json_doc_uint(b, "user_bytes_written", r.layout_counters.segments.user_bytes_written);
        json_doc_uint(b, "user_stored_bytes_written", r.layout_counters.segments.user_stored_bytes_written);
        json_doc_uint(b, "cleaner_bytes_written", r.layout_counters.segments.cleaner_bytes_written);
        json_doc_uint(b, "reinserted_bytes_written", r.layout_counters.segments.reinserted_bytes_written);
        json_doc_uint(b, "chunks_reinserted", r.layout_counters.segments.chunks_reinserted);
        json_doc_uint(b, "device_bytes_written", r.layout_counters.device_bytes_written);
        json_doc_uint(b, "segments_written", r.layout_counters.segments.segments_written);
        json_doc_uint(b, "segments_evicted", r.layout_counters.segments.segments_evicted);
        json_doc_uint(b, "segments_cleaned", r.layout_counters.segments.segments_cleaned);
        json_doc_uint(b, "segments_reinserted", r.layout_counters.segments.segments_reinserted);
        json_doc_uint(b, "damaged_reads", r.layout_counters.damaged_reads);
        json_doc_uint(b, "damaged_segments", r.layout_counters.segments.damaged_segments);
        json_builder_end_object(b);
    }
    json_builder_set_member_name(b, "policy_counters");
    json_builder_begin_object(b);
    for (size_t i = 0; i < r.n_policy_counters; i++)
        json_doc_uint(b, r.policy_counter_names[i].name, r.policy_counters[i]);
    json_builder_end_object(b);
    json_doc_double(b, "model_elapsed_ms", 1e3 * r.model_elapsed_s);
    json_doc_double(b, "request_latency_model_ms_mean", k->requests ? 1e3 * k->model_request_s / k->requests : 0.0);
    json_doc_double(b, "request_latency_model_ms_max", 1e3 * k->model_request_max_s);
    json_doc_double(b, "request_latency_wall_ms_mean", k->requests ? 1e3 * k->wall_request_s / k->requests : 0.0);
    json_doc_double(b, "ssd_lifetime_model_days", r.lifetime_days_model);
    json_doc_uint(b, "memory_bytes", r.memory_bytes);
    json_doc_uint(b, "policy_memory_bytes", r.policy_memory_bytes);
    json_doc_double(b, "bytes_per_cached_chunk", r.bytes_per_cached_chunk);
    json_doc_double(b, "bytes_per_stored_chunk", r.bytes_per_stored_chunk);
    json_builder_end_object(b);
}
