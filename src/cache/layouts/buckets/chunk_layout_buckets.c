/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout_buckets.c: the bucketized layout (chunk_buckets.h) behind
 * the layout seam (chunk_layout.h), and its part of the chunk cache's
 * report. */
#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/layouts/buckets/chunk_buckets_format.h"
#include "cache/layouts/buckets/chunk_buckets_model.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/layouts/chunk_layout_report.h"

#include <string.h>

G_STATIC_ASSERT(CHUNK_LAYOUT_STORE_ID_LEN == CHUNK_BUCKETS_STORE_ID_LEN);

/* The seam opens buckets of the default geometry (bk_open, the model). */
static void bk_geometry(ChunkLayoutOptions *opt)
{
    (void)opt; /* no segments; the buckets take the cache's capacity as it is */
}

static uint32_t bk_max_chunk(const ChunkLayoutOptions *opt)
{
    (void)opt;
    return chunk_buckets_largest_chunk(CHUNK_BUCKETS_DEFAULT_SLOTS, CHUNK_BUCKETS_DEFAULT_SUBSLOT);
}

static uint32_t bk_compress(const ChunkLayoutOptions *opt, CacheCodec *codec, const uint8_t *buf, uint32_t len,
                            uint8_t *out, double *cpu_s)
{
    (void)opt;
    return chunk_buckets_compress(codec, CHUNK_BUCKETS_DEFAULT_SUBSLOT, buf, len, out, cpu_s);
}

static uint32_t bk_stored_size(const ChunkLayoutOptions *opt, uint32_t stored)
{
    (void)opt;
    return (stored + CHUNK_BUCKETS_DEFAULT_SUBSLOT - 1) / CHUNK_BUCKETS_DEFAULT_SUBSLOT * CHUNK_BUCKETS_DEFAULT_SUBSLOT;
}

static void *bk_open(const ChunkLayoutOptions *opt, GError **err)
{
    ChunkBucketsOptions o;
    memset(&o, 0, sizeof o);
    o.directory = opt->directory;
    o.capacity_bytes = opt->capacity_bytes;
    o.o_direct = opt->o_direct;
    o.fp_alg = opt->fp_alg;
    memcpy(o.store_id, opt->store_id, CHUNK_BUCKETS_STORE_ID_LEN);
    o.compression = opt->compression;
    o.compression_level = opt->compression_level;
    o.dropped = opt->dropped;
    o.dropped_ctx = opt->dropped_ctx;
    return chunk_buckets_open(&o, err);
}

static gboolean bk_close(void *b, GError **err)
{
    return chunk_buckets_close(b, err);
}

static gboolean bk_contains(void *b, const Fingerprint *fp, uint32_t *length)
{
    return chunk_buckets_contains(b, fp, length);
}

static gboolean bk_put(void *b, const Fingerprint *fp, const void *buf, uint32_t len, GError **err)
{
    return chunk_buckets_put(b, fp, buf, len, err);
}

static ChunkLayoutGet bk_get(void *b, const Fingerprint *fp, void *buf, uint32_t *len)
{
    switch (chunk_buckets_get(b, fp, buf, len)) {
    case CHUNK_BUCKETS_HIT:
        return CHUNK_LAYOUT_HIT;
    case CHUNK_BUCKETS_DAMAGED:
        return CHUNK_LAYOUT_DAMAGED;
    case CHUNK_BUCKETS_ABSENT:
        break;
    }
    return CHUNK_LAYOUT_ABSENT;
}

/* The buckets are read one chunk after another, at once (each read is
 * small and decompressed on this thread; the core does not read them
 * ahead, as a get counts in the sketch: get_decides). No ticket. */
static void *bk_get_many(void *b, ChunkLayoutRead *reads, size_t n)
{
    for (size_t i = 0; i < n; i++)
        reads[i].result = bk_get(b, reads[i].fp, reads[i].buf, &reads[i].len);
    return NULL;
}

static void bk_get_many_wait(void *b, void *ticket)
{
    (void)b;
    g_assert(ticket == NULL);
}

static gboolean bk_drop(void *b, const Fingerprint *fp)
{
    return chunk_buckets_drop(b, fp);
}

static void bk_foreach(void *b, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length), void *ctx)
{
    chunk_buckets_foreach(b, fn, ctx);
}

static gboolean bk_sync(void *b, GError **err)
{
    return chunk_buckets_sync(b, err);
}

static uint64_t bk_chunks(void *b)
{
    return chunk_buckets_chunks(b);
}

static void bk_counters(void *b, ChunkLayoutCounters *out)
{
    const ChunkBucketsCounters *c = chunk_buckets_counters(b);
    memset(out, 0, sizeof *out);
    out->user_bytes_written = c->user_bytes_written;
    out->device_bytes_written = c->device_bytes_written;
    out->chunks_dropped_by_layout = c->chunks_dropped_by_layout;
    out->damaged_reads = c->damaged_reads;
    out->prefix_collisions = c->prefix_collisions;
    out->gets = c->gets;
    out->bytes_served = c->bytes_served;
    out->stored_bytes_written = c->stored_bytes_written;
    out->chunks_compressed = c->chunks_compressed;
    out->stored_bytes_held = chunk_buckets_used_slots(b) * chunk_buckets_subslot_size(b);
    out->cpu_compress_s = c->cpu_compress_s;
    out->cpu_decompress_s = c->cpu_decompress_s;
}

static size_t bk_index_bytes(void *b)
{
    return chunk_buckets_index_bytes(b);
}

/* ---- simulation: chunk_buckets_model.h ---- */

static void *model_open(const ChunkLayoutOptions *opt, GError **err)
{
    ChunkBucketsModel *m = g_new0(ChunkBucketsModel, 1);
    if (!chunk_buckets_model_init(m, opt->capacity_bytes, opt->dropped, opt->dropped_ctx, err)) {
        g_free(m);
        return NULL;
    }
    return m;
}

static void model_close(void *m)
{
    if (m == NULL)
        return;
    chunk_buckets_model_clear(m);
    g_free(m);
}

static void model_put(void *m, const Fingerprint *fp, uint32_t length, uint32_t stored)
{
    chunk_buckets_model_put(m, fp, length, stored);
}

static void model_hit(void *m, const Fingerprint *fp)
{
    chunk_buckets_model_hit(m, fp); /* the layout's get counts it in its sketch */
}

static gboolean model_drop(void *m, const Fingerprint *fp)
{
    return chunk_buckets_model_drop(m, fp);
}

/* The sub-slots the chunks take; the device's bytes (whole sub-slots and
 * bucket metadata per put) are not modelled. */
static void model_counters(void *m, ChunkLayoutCounters *out)
{
    const ChunkBucketsModel *bm = m;
    memset(out, 0, sizeof *out);
    out->stored_bytes_held = (uint64_t)bm->x.used_slots * bm->subslot;
}

static size_t model_index_bytes(void *m)
{
    return chunk_buckets_model_index_bytes(m);
}

/* ---- the report: the "chunk_buckets" object and its lines ---- */

#define ROW CHUNK_LAYOUT_ROW
#define LC(f) counters.f

/* The buckets on the SSD. */
static const ReportRow report_rows[] = {
    ROW("user_bytes_written", "  chunk bytes written", REPORT_BYTES, REPORT_U64, LC(user_bytes_written)),
    ROW(NULL, "  sub-slot bytes written", REPORT_BYTES, REPORT_U64, LC(stored_bytes_written)),
    ROW("device_bytes_written", NULL, REPORT_COUNT, REPORT_U64, LC(device_bytes_written)),
    ROW("chunks_dropped_by_layout", NULL, REPORT_COUNT, REPORT_U64, LC(chunks_dropped_by_layout)),
    ROW("damaged_reads", NULL, REPORT_COUNT, REPORT_U64, LC(damaged_reads)),
    REPORT_LINES(chunk_layout_compression_text, NULL, NULL),
    ROW(NULL, "  logical capacity", REPORT_BYTES, REPORT_U64, capacity_logical_bytes),
    ROW("prefix_collisions", "  prefix collisions", REPORT_COUNT, REPORT_U64, LC(prefix_collisions)),
    REPORT_LINES(chunk_layout_faults_text, NULL, NULL),
};
static const ReportTable report = REPORT_TABLE(report_rows);

/* Their model in simulation: the puts and their sub-slots (the device's
 * bytes, whole sub-slots and bucket metadata, are not modelled:
 * model_counters above). */
static const ReportRow model_report_rows[] = {
    ROW("user_bytes_written", "  chunk bytes written", REPORT_BYTES, REPORT_U64, LC(user_bytes_written)),
    ROW(NULL, "  sub-slot bytes written", REPORT_BYTES, REPORT_U64, LC(stored_bytes_written)),
    ROW(NULL, "  logical capacity", REPORT_BYTES, REPORT_U64, capacity_logical_bytes),
};
static const ReportTable model_report = REPORT_TABLE(model_report_rows);

const ChunkLayoutOps chunk_layout_buckets_ops = {
    .name = "buckets", .kind = CHUNK_LAYOUT_BUCKETS, .get_decides = TRUE, .evicts = TRUE, .geometry = bk_geometry,
    .max_chunk = bk_max_chunk, .compress = bk_compress, .stored_size = bk_stored_size, .open = bk_open,
    .close = bk_close, .contains = bk_contains, .put = bk_put, .get = bk_get, .get_many = bk_get_many,
    .get_many_wait = bk_get_many_wait, .drop = bk_drop, .foreach = bk_foreach, .sync = bk_sync,
    .chunks = bk_chunks, .counters = bk_counters, .index_bytes = bk_index_bytes, .model_open = model_open,
    .model_close = model_close, .model_put = model_put, .model_hit = model_hit, .model_drop = model_drop,
    .model_counters = model_counters, .model_index_bytes = model_index_bytes, .report_name = "chunk_buckets",
    .report = &report, .model_report = &model_report,
};
