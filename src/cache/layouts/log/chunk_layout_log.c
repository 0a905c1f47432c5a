/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout_log.c: the segment log (chunk_log.h) behind the layout
 * seam (chunk_layout.h), and its part of the chunk cache's report. */
#include "cache/layouts/chunk_layout.h"
#include "cache/layouts/chunk_layout_report.h"
#include "cache/layouts/log/chunk_log_space.h"
#include "util/size_parse.h"

#include <string.h>

G_STATIC_ASSERT(CHUNK_LOG_STORE_ID_LEN == CHUNK_LAYOUT_STORE_ID_LEN);

static uint32_t segment_size(const ChunkLayoutOptions *opt)
{
    return opt->segment_size ? opt->segment_size : CHUNK_LOG_DEFAULT_SEGMENT;
}

/* clean: twice the cache plus two segments, so a segment at most half
 * live always exists and the cleaner never drops a live chunk; evict and
 * reinsert: the cache's bytes (the open segment's home among them) */
static void log_geometry(ChunkLayoutOptions *opt)
{
    uint64_t cache = opt->capacity_bytes;
    opt->segment_size = segment_size(opt);
    if (opt->reclaim == CHUNK_LOG_CLEAN)
        opt->capacity_bytes = 2 * cache + 2 * (uint64_t)opt->segment_size;
    if (opt->capacity_bytes < 2 * (uint64_t)opt->segment_size)
        opt->capacity_bytes = 2 * (uint64_t)opt->segment_size; /* the log's least */
}

static uint32_t log_max_chunk(const ChunkLayoutOptions *opt)
{
    return chunk_log_space_max_chunk(segment_size(opt));
}

static uint32_t log_compress(const ChunkLayoutOptions *opt, CacheCodec *codec, const uint8_t *buf, uint32_t len,
                             uint8_t *out, double *cpu_s)
{
    (void)opt;
    return chunk_log_compress(codec, buf, len, out, cpu_s);
}

static uint32_t log_stored_size(const ChunkLayoutOptions *opt, uint32_t stored)
{
    (void)opt;
    return stored; /* packed in the segment */
}

static void *log_open(const ChunkLayoutOptions *opt, GError **err)
{
    ChunkLogOptions o;
    memset(&o, 0, sizeof o);
    o.directory = opt->directory;
    o.capacity_bytes = opt->capacity_bytes;
    o.segment_size = segment_size(opt);
    o.o_direct = opt->o_direct;
    o.fp_alg = opt->fp_alg;
    memcpy(o.store_id, opt->store_id, CHUNK_LAYOUT_STORE_ID_LEN);
    o.reclaim = opt->reclaim;
    o.dropped = opt->dropped;
    o.dropped_ctx = opt->dropped_ctx;
    o.keep = opt->keep;
    o.reclaiming = opt->reclaiming;
    o.keep_ctx = opt->keep_ctx;
    o.compression = opt->compression;
    o.compression_level = opt->compression_level;
    return chunk_log_open(&o, err);
}

static gboolean log_close(void *l, GError **err)
{
    return chunk_log_close(l, err);
}

static gboolean log_contains(void *l, const Fingerprint *fp, uint32_t *length)
{
    return chunk_log_contains(l, fp, length);
}

static gboolean log_put(void *l, const Fingerprint *fp, const void *buf, uint32_t len, GError **err)
{
    return chunk_log_put(l, fp, buf, len, err);
}

static ChunkLayoutGet from_log(ChunkLogGet g)
{
    switch (g) {
    case CHUNK_LOG_HIT:
        return CHUNK_LAYOUT_HIT;
    case CHUNK_LOG_DAMAGED:
        return CHUNK_LAYOUT_DAMAGED;
    case CHUNK_LOG_ABSENT:
        break;
    }
    return CHUNK_LAYOUT_ABSENT;
}

static ChunkLayoutGet log_get(void *l, const Fingerprint *fp, void *buf, uint32_t *len)
{
    return from_log(chunk_log_get(l, fp, buf, len));
}

/* A started batch: the caller's reads and the log's own records of them. */
typedef struct {
    ChunkLayoutRead *reads;
    ChunkLogRead *lr;
    size_t n;
    uint64_t seq; /* the log's number of the batch */
} LogTicket;

static void *log_get_many(void *l, ChunkLayoutRead *reads, size_t n)
{
    LogTicket *t = g_new(LogTicket, 1);
    t->reads = reads;
    t->n = n;
    t->lr = g_new(ChunkLogRead, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        t->lr[i] = (ChunkLogRead){ .fp = reads[i].fp, .buf = reads[i].buf };
    t->seq = chunk_log_get_many_start(l, t->lr, n);
    return t;
}

static void log_get_many_wait(void *l, void *ticket)
{
    LogTicket *t = ticket;
    chunk_log_get_many_wait_for(l, t->seq); /* nothing to do when the log finished it already */
    for (size_t i = 0; i < t->n; i++) {
        t->reads[i].result = from_log(t->lr[i].result);
        t->reads[i].len = t->lr[i].len;
    }
    g_free(t->lr);
    g_free(t);
}

static void *log_get_many_hold(void *l, void *ticket)
{
    return chunk_log_get_many_hold(l, ((LogTicket *)ticket)->seq);
}

static gboolean log_drop(void *l, const Fingerprint *fp)
{
    return chunk_log_drop(l, fp);
}

static void log_foreach(void *l, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length), void *ctx)
{
    chunk_log_foreach(l, fn, ctx);
}

static gboolean log_sync(void *l, GError **err)
{
    return chunk_log_sync(l, err);
}

static uint64_t log_chunks(void *l)
{
    return chunk_log_chunks(l);
}

static ChunkLayoutSegments segments_of(const ChunkLogCounters *c)
{
    return (ChunkLayoutSegments){
        .user_bytes_written = c->user_bytes_written,
        .user_stored_bytes_written = c->user_stored_bytes_written,
        .cleaner_bytes_written = c->cleaner_bytes_written,
        .reinserted_bytes_written = c->reinserted_bytes_written,
        .chunks_reinserted = c->chunks_reinserted,
        .chunks_reinsert_cut = c->chunks_reinsert_cut,
        .segments_written = c->segments_written,
        .segments_evicted = c->segments_evicted,
        .segments_cleaned = c->segments_cleaned,
        .segments_reinserted = c->segments_reinserted,
        .damaged_segments = c->damaged_segments,
    };
}

static void log_counters(void *l, ChunkLayoutCounters *out)
{
    const ChunkLogCounters *c = chunk_log_counters(l);
    memset(out, 0, sizeof *out);
    out->user_bytes_written = c->put_bytes; /* when put, as the buckets count (the log's own: when written) */
    out->device_bytes_written = c->device_bytes_written;
    out->chunks_dropped_by_layout = c->chunks_dropped_by_log;
    out->damaged_reads = c->damaged_reads;
    out->gets = c->gets;
    out->bytes_served = c->bytes_served;
    out->stored_bytes_written = c->put_stored_bytes;
    out->chunks_compressed = c->chunks_compressed;
    out->stored_bytes_held = chunk_log_live_bytes(l);
    out->cpu_compress_s = c->cpu_compress_s;
    out->cpu_decompress_s = c->cpu_decompress_s;
    out->segments = segments_of(c);
}

static size_t log_index_bytes(void *l)
{
    return chunk_log_index_bytes(l);
}

/* ---- simulation: the log's space (chunk_log_space.h) run without bytes ---- */

static void *model_open(const ChunkLayoutOptions *opt, GError **err)
{
    ChunkLogOptions o;
    memset(&o, 0, sizeof o);
    o.capacity_bytes = opt->capacity_bytes;
    o.segment_size = segment_size(opt);
    o.reclaim = opt->reclaim;
    if (!chunk_log_check_options(&o, err))
        return NULL;
    ChunkLogSpace *sp = g_new(ChunkLogSpace, 1);
    chunk_log_space_init(sp, o.segment_size, chunk_log_space_segments(o.capacity_bytes, o.segment_size), o.reclaim,
                         opt->dropped, opt->dropped_ctx);
    sp->keep = opt->keep; /* the same decisions as the log's (chunk_log_open) */
    sp->reclaiming = opt->reclaiming;
    sp->keep_ctx = opt->keep_ctx;
    chunk_log_space_meta_written(sp, 0); /* the log marks chunklog.meta in use at open */
    return sp;
}

static void model_close(void *m)
{
    if (m == NULL)
        return;
    chunk_log_space_clear(m);
    g_free(m);
}

static void model_put(void *m, const Fingerprint *fp, uint32_t length, uint32_t stored)
{
    ChunkLogSpace *sp = m;
    if (chunk_log_space_find(sp, fp) != CHUNK_LOG_NO_ENTRY)
        return; /* as the log's put: nothing written */
    gboolean ok = chunk_log_space_put(sp, fp, length, stored, 0, NULL); /* no bytes: no check */
    g_assert(ok); /* no bytes, no I/O to fail */
}

static void model_hit(void *m, const Fingerprint *fp)
{
    (void)m;
    (void)fp; /* the log's gets change nothing but damaged chunks (simulation has none) */
}

static gboolean model_drop(void *m, const Fingerprint *fp)
{
    ChunkLogSpace *sp = m;
    uint32_t e = chunk_log_space_find(sp, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return FALSE;
    chunk_log_space_remove(sp, e);
    return TRUE;
}

static void model_counters(void *m, ChunkLayoutCounters *out)
{
    const ChunkLogSpace *sp = m;
    memset(out, 0, sizeof *out);
    out->user_bytes_written = sp->c.put_bytes; /* when put, as the log's counters (chunk_layout_log.c above) */
    out->device_bytes_written = sp->c.device_bytes_written;
    out->chunks_dropped_by_layout = sp->c.chunks_dropped_by_log;
    out->stored_bytes_written = sp->c.put_stored_bytes;
    out->chunks_compressed = sp->c.chunks_compressed;
    out->stored_bytes_held = sp->live_bytes; /* stored bytes */
    out->segments = segments_of(&sp->c);
}

static size_t model_index_bytes(void *m)
{
    const ChunkLogSpace *sp = m;
    return chunk_log_index_bytes_of(&sp->index);
}

/* ---- the report: the "chunk_log" object and its lines, the log's or in
 * simulation its model's alike (no damage there) ---- */

static gboolean reinserted(const void *p)
{
    return ((const ChunkLayoutReport *)p)->counters.segments.segments_reinserted > 0;
}

static gboolean compressed(const void *p)
{
    const ChunkLayoutReport *r = p;
    return r->real && (r->counters.chunks_compressed || strcmp(r->compression, "none") != 0);
}

static void size_text(const void *p, GString *out)
{
    const ChunkLayoutReport *r = p;
    char a[32];
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " (%s), reclaim %s\n", "chunk log size",
                           r->capacity_bytes, size_format(r->capacity_bytes, a, sizeof a), r->reclaim);
}

#define ROW CHUNK_LAYOUT_ROW
#define ROW_IF CHUNK_LAYOUT_ROW_IF
#define LC(f) counters.f
#define SEG(f) counters.segments.f

static const ReportRow report_rows[] = {
    REPORT_LINES(size_text, NULL, NULL),
    ROW("capacity_bytes", NULL, REPORT_COUNT, REPORT_U64, capacity_bytes),
    ROW("reclaim", NULL, REPORT_WORD, REPORT_STR, reclaim),
    ROW("user_bytes_written", "  chunk bytes written", REPORT_BYTES, REPORT_U64, SEG(user_bytes_written)),
    ROW("user_stored_bytes_written", "  stored bytes of them", REPORT_BYTES, REPORT_U64,
        SEG(user_stored_bytes_written)),
    ROW("cleaner_bytes_written", "  cleaner bytes written", REPORT_BYTES, REPORT_U64, SEG(cleaner_bytes_written)),
    ROW("reinserted_bytes_written", NULL, REPORT_COUNT, REPORT_U64, SEG(reinserted_bytes_written)),
    ROW("chunks_reinserted", NULL, REPORT_COUNT, REPORT_U64, SEG(chunks_reinserted)),
    ROW("chunks_reinsert_cut", NULL, REPORT_COUNT, REPORT_U64, SEG(chunks_reinsert_cut)),
    ROW("device_bytes_written", NULL, REPORT_COUNT, REPORT_U64, LC(device_bytes_written)),
    ROW("segments_written", "  segments written", REPORT_COUNT, REPORT_U64, SEG(segments_written)),
    ROW("segments_evicted", "  segments evicted", REPORT_COUNT, REPORT_U64, SEG(segments_evicted)),
    ROW("segments_cleaned", "  segments cleaned", REPORT_COUNT, REPORT_U64, SEG(segments_cleaned)),
    ROW_IF("segments_reinserted", "  segments reinserted", REPORT_COUNT, REPORT_U64, SEG(segments_reinserted),
           reinserted),
    ROW_IF(NULL, "  chunks reinserted", REPORT_COUNT, REPORT_U64, SEG(chunks_reinserted), reinserted),
    ROW_IF(NULL, "  of them hit before reclaimed again", REPORT_COUNT, REPORT_U64, kept_hit, reinserted),
    ROW_IF(NULL, "  chunks past reinsert's bound", REPORT_COUNT, REPORT_U64, SEG(chunks_reinsert_cut), reinserted),
    ROW_IF(NULL, "  reinserted bytes written", REPORT_BYTES, REPORT_U64, SEG(reinserted_bytes_written), reinserted),
    ROW(NULL, "  live chunks the log dropped", REPORT_COUNT, REPORT_U64, dropped),
    REPORT_LINES(chunk_layout_compression_text, NULL, compressed),
    REPORT_LINES(chunk_layout_faults_text, NULL, NULL),
    ROW("damaged_reads", NULL, REPORT_COUNT, REPORT_U64, LC(damaged_reads)),
    ROW("damaged_segments", NULL, REPORT_COUNT, REPORT_U64, SEG(damaged_segments)),
};
static const ReportTable report = REPORT_TABLE(report_rows);

const ChunkLayoutOps chunk_layout_log_ops = {
    .name = "log", .kind = CHUNK_LAYOUT_LOG, .get_decides = FALSE, .evicts = FALSE, .geometry = log_geometry,
    .max_chunk = log_max_chunk, .compress = log_compress, .stored_size = log_stored_size, .open = log_open,
    .close = log_close, .contains = log_contains, .put = log_put, .get = log_get, .get_many = log_get_many,
    .get_many_wait = log_get_many_wait, .get_many_hold = log_get_many_hold, .hold_wait = chunk_log_hold_wait,
    .hold_release = chunk_log_hold_release, .drop = log_drop, .foreach = log_foreach, .sync = log_sync,
    .chunks = log_chunks, .counters = log_counters, .index_bytes = log_index_bytes, .model_open = model_open,
    .model_close = model_close, .model_put = model_put, .model_hit = model_hit, .model_drop = model_drop,
    .model_counters = model_counters, .model_index_bytes = model_index_bytes, .report_name = "chunk_log",
    .report = &report, .model_report = &report,
};
