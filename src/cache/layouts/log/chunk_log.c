/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log.c: the chunk cache's segment log on the SSD (chunk_log.h). */
#include "cache/layouts/log/chunk_log.h"
#include "cache/common/cache_dir.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/layouts/log/chunk_log_format.h"
#include "cache/layouts/log/chunk_log_index.h"
#include "cache/layouts/log/chunk_log_readers.h"
#include "cache/layouts/log/chunk_log_space.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/thread_cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALIGN CACHE_DIR_DIRECT_ALIGN

/* A batch of chunk_log_get_many_start: its reads (the caller's), the
 * reader jobs and which read each serves. */
typedef struct {
    ChunkLogRead *reads;
    ChunkLogReadJob *jobs;
    size_t *of;
    size_t n_jobs;
    ChunkLogReadBatch *batch;
    uint64_t seq; /* chunk_log_get_many_start's number for it */
} ChunkLogPending;

struct ChunkLog {
    ChunkLogOptions opt;
    char *dir;
    char *log_path;
    char *meta_path;
    int lock_fd;
    int fd;
    uint32_t seg_size;
    uint32_t n_segments;
    ChunkLogSpace sp;  /* the index, the segments and every decision (shared with simulation) */
    uint8_t *open_buf; /* the open segment: filled in memory, written whole to sp.open_home; aligned */
    uint8_t *scratch;  /* aligned, seg_size + ALIGN: reads of segments and O_DIRECT chunk reads */
    const uint8_t *victim;  /* cleaning: the victim segment's bytes (in scratch) */
    const uint8_t *put_src; /* the stored bytes of the chunk being put (in cbuf when compressed) */
    uint8_t *cbuf;          /* max_chunk: a put's compressed bytes, a compressed chunk read without O_DIRECT */
    uint8_t *dbuf;          /* max_chunk: the cleaner's decoded chunk (a put's bytes wait in cbuf meanwhile) */
    CacheCodec *codec;
    Fingerprinter *fpr;     /* a put's bytes checked against their fingerprint */
    ChunkLogReaders *readers;
    GQueue pending;           /* ChunkLogPending: get_many batches started and not waited for, oldest first */
    uint64_t started;         /* batches ever started (the last one's seq) */
};

static off_t seg_off(const ChunkLog *log, uint32_t s)
{
    return (off_t)s * log->seg_size;
}

uint32_t chunk_log_max_chunk(const ChunkLog *log)
{
    return chunk_log_space_max_chunk(log->seg_size);
}

uint32_t chunk_log_compress(CacheCodec *codec, const uint8_t *buf, uint32_t len, uint8_t *out, double *cpu_s)
{
    uint32_t saving = len / 8 + (len % 8 != 0); /* ceil(len / 8) */
    if (codec == NULL || cache_codec_kind(codec) == CACHE_CODEC_NONE || len <= saving)
        return len;
    double t0 = thread_cpu_seconds();
    size_t n = cache_codec_compress(codec, buf, len, out, len - saving);
    *cpu_s += thread_cpu_seconds() - t0;
    g_assert(n <= len - saving);
    return n > 0 ? (uint32_t)n : len;
}

/* ---- reading ---- */

/* Read len bytes at off of chunks.log into the aligned scratch buffer (at
 * an O_DIRECT-aligned start); returns where in scratch they begin. */
static const uint8_t *read_scratch(ChunkLog *log, off_t off, uint32_t len, GError **err)
{
    off_t start = off - off % ALIGN;
    size_t span = (size_t)(off - start) + len;
    span = (span + ALIGN - 1) / ALIGN * ALIGN;
    g_assert(span <= (size_t)log->seg_size + ALIGN);
    if (!file_pread_all(log->fd, log->scratch, span, start, log->log_path, err))
        return NULL;
    return log->scratch + (off - start);
}

/* A chunk of `length` bytes into buf from its `stored` bytes at src:
 * decompressed when stored compressed, checked against its CRC-32. */
static gboolean decode_check(ChunkLog *log, uint32_t check, uint32_t length, uint32_t stored, const uint8_t *src,
                             uint8_t *buf)
{
    if (stored < length) {
        double t0 = thread_cpu_seconds();
        gboolean ok = cache_codec_decompress(log->codec, log->opt.compression, src, stored, buf, length);
        log->sp.c.cpu_decompress_s += thread_cpu_seconds() - t0;
        if (!ok)
            return FALSE;
        src = buf;
    }
    if (checksum_crc32(CHECKSUM_CRC32_START, src, length) != check)
        return FALSE;
    if (src != buf)
        memcpy(buf, src, length);
    return TRUE;
}

ChunkLogGet chunk_log_get(ChunkLog *log, const Fingerprint *fp, void *buf, uint32_t *len)
{
    uint32_t e = chunk_log_index_find(&log->sp.index, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return CHUNK_LOG_ABSENT;
    log->sp.c.gets++;
    const ChunkLogEntry *en = chunk_log_index_entry(&log->sp.index, e);
    uint32_t n = en->stored, length = en->length;
    const uint8_t *src;
    GError *local = NULL;
    if (en->segment == log->sp.open_home) {
        src = log->open_buf + en->offset;
    } else if (log->opt.o_direct) {
        src = read_scratch(log, seg_off(log, en->segment) + en->offset, n, &local);
    } else {
        uint8_t *into = n < length ? log->cbuf : buf;
        src = file_pread_all(log->fd, into, n, seg_off(log, en->segment) + en->offset, log->log_path, &local)
                  ? into : NULL;
    }
    g_clear_error(&local);
    if (src == NULL || !decode_check(log, en->check, length, n, src, buf)) {
        chunk_log_space_remove(&log->sp, e);
        log->sp.c.damaged_reads++;
        return CHUNK_LOG_DAMAGED;
    }
    *len = length;
    log->sp.c.bytes_served += length;
    return CHUNK_LOG_HIT;
}

/* Take the oldest started batch's results (its reads waited for). */
static void finish_oldest(ChunkLog *log)
{
    ChunkLogPending *p = g_queue_pop_head(&log->pending);
    if (p->batch != NULL)
        chunk_log_readers_wait(p->batch);
    for (size_t k = 0; k < p->n_jobs; k++) {
        ChunkLogRead *r = &p->reads[p->of[k]];
        log->sp.c.cpu_decompress_s += p->jobs[k].cpu_decompress_s;
        if (p->jobs[k].ok) {
            r->result = CHUNK_LOG_HIT;
            r->len = p->jobs[k].len;
            log->sp.c.bytes_served += p->jobs[k].len;
            continue;
        }
        r->result = CHUNK_LOG_DAMAGED;
        log->sp.c.damaged_reads++;
        uint32_t e = chunk_log_index_find(&log->sp.index, r->fp); /* gone already when asked for twice */
        if (e != CHUNK_LOG_NO_ENTRY)
            chunk_log_space_remove(&log->sp, e);
    }
    g_free(p->jobs);
    g_free(p->of);
    g_free(p);
}

uint64_t chunk_log_get_many_start(ChunkLog *log, ChunkLogRead *reads, size_t n)
{
    while (g_queue_get_length(&log->pending) >= CHUNK_LOG_BATCHES_IN_FLIGHT)
        finish_oldest(log);
    ChunkLogPending *p = g_new0(ChunkLogPending, 1);
    p->reads = reads;
    p->jobs = g_new(ChunkLogReadJob, n ? n : 1);
    p->of = g_new(size_t, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t e = chunk_log_index_find(&log->sp.index, reads[i].fp);
        const ChunkLogEntry *en = e == CHUNK_LOG_NO_ENTRY ? NULL : chunk_log_index_entry(&log->sp.index, e);
        if (en == NULL || en->segment == log->sp.open_home) { /* nothing to read from the SSD */
            reads[i].result = chunk_log_get(log, reads[i].fp, reads[i].buf, &reads[i].len);
            continue;
        }
        log->sp.c.gets++;
        p->jobs[p->n_jobs] = (ChunkLogReadJob){ .off = seg_off(log, en->segment) + en->offset, .len = en->length,
                                                .stored = en->stored, .check = en->check, .dst = reads[i].buf };
        p->of[p->n_jobs++] = i;
    }
    if (p->n_jobs > 0 && log->readers == NULL)
        log->readers = chunk_log_readers_new(log->fd, log->log_path, log->opt.o_direct, chunk_log_max_chunk(log),
                                             log->opt.compression,
                                             log->opt.readers ? log->opt.readers : CHUNK_LOG_DEFAULT_READERS);
    p->batch = p->n_jobs > 0 ? chunk_log_readers_start(log->readers, p->jobs, p->n_jobs) : NULL;
    p->seq = ++log->started;
    g_queue_push_tail(&log->pending, p);
    return p->seq;
}

void chunk_log_get_many_wait_for(ChunkLog *log, uint64_t seq)
{
    g_assert(seq <= log->started);
    while (!g_queue_is_empty(&log->pending) && ((ChunkLogPending *)g_queue_peek_head(&log->pending))->seq <= seq)
        finish_oldest(log);
}

void *chunk_log_get_many_hold(ChunkLog *log, uint64_t seq)
{
    for (GList *l = log->pending.head; l != NULL; l = l->next) {
        ChunkLogPending *p = l->data;
        if (p->seq == seq && p->batch != NULL) {
            chunk_log_readers_hold(p->batch);
            return p->batch;
        }
    }
    return NULL; /* finished already, or nothing read from the SSD */
}

void chunk_log_hold_wait(void *hold)
{
    chunk_log_readers_wait_read(hold);
}

void chunk_log_hold_release(void *hold)
{
    chunk_log_readers_release(hold);
}

void chunk_log_get_many_wait(ChunkLog *log)
{
    chunk_log_get_many_wait_for(log, log->started);
}

void chunk_log_get_many(ChunkLog *log, ChunkLogRead *reads, size_t n)
{
    chunk_log_get_many_wait_for(log, chunk_log_get_many_start(log, reads, n));
}

/* ---- writing: the bytes of the space's decisions (chunk_log_space.h) ---- */

static gboolean io_write_open(void *ctx, uint64_t seq, GError **err)
{
    ChunkLog *log = ctx;
    ChunkLogSegmentHeader h;
    memcpy(h.store_id, log->opt.store_id, CHUNK_LOG_STORE_ID_LEN);
    h.seq = seq;
    h.segment_size = log->seg_size;
    h.n_entries = log->sp.open_n;
    h.data_end = log->sp.open_end;
    h.fp_alg = log->opt.fp_alg;
    h.codec = (uint32_t)log->opt.compression;
    chunk_log_segment_seal(log->open_buf, &h);
    return file_pwrite_all(log->fd, log->open_buf, log->seg_size, seg_off(log, log->sp.open_home), log->log_path,
                           err);
}

static void io_reset_open(void *ctx, uint32_t home)
{
    ChunkLog *log = ctx;
    (void)home;
    memset(log->open_buf, 0, log->seg_size);
}

static gboolean io_read_victim(void *ctx, uint32_t s)
{
    ChunkLog *log = ctx;
    GError *local = NULL;
    log->victim = read_scratch(log, seg_off(log, s), log->seg_size, &local);
    g_clear_error(&local);
    return log->victim != NULL;
}

/* A compressed chunk is checked decoded (into dbuf: a put's bytes wait in
 * cbuf meanwhile); it is moved as stored. */
static gboolean io_chunk_ok(void *ctx, uint32_t check, uint32_t from, uint32_t length, uint32_t stored)
{
    ChunkLog *log = ctx;
    g_assert(log->victim != NULL && (uint64_t)from + stored <= log->seg_size);
    return stored < length ? decode_check(log, check, length, stored, log->victim + from, log->dbuf)
                           : checksum_crc32(CHECKSUM_CRC32_START, log->victim + from, length) == check;
}

static void io_place(void *ctx, const Fingerprint *fp, uint32_t offset, uint32_t i, uint32_t length, uint32_t stored,
                     uint32_t check, uint32_t from)
{
    ChunkLog *log = ctx;
    const uint8_t *src = from == CHUNK_LOG_FROM_PUT ? log->put_src : log->victim + from;
    g_assert(src != NULL);
    memcpy(log->open_buf + offset, src, stored);
    chunk_log_segment_put_entry(log->open_buf, log->seg_size, i, fp, offset, length, stored, check);
}

static const ChunkLogSpaceIO log_io = {
    .write_open = io_write_open, .reset_open = io_reset_open, .read_victim = io_read_victim,
    .chunk_ok = io_chunk_ok, .place = io_place,
};

gboolean chunk_log_put(ChunkLog *log, const Fingerprint *fp, const void *buf, uint32_t len, GError **err)
{
    if (len == 0 || len > chunk_log_max_chunk(log)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "a chunk of %u bytes does not fit in a chunk log segment of %u bytes (ssd-cache-segment-size)",
                    len, log->seg_size);
        return FALSE;
    }
    if (chunk_log_space_find(&log->sp, fp) != CHUNK_LOG_NO_ENTRY)
        return TRUE;
    uint32_t check;
    if (!chunk_layout_check_put(log->fpr, fp, buf, len, "chunk log", &check, err))
        return FALSE;
    chunk_log_get_many_wait(log); /* a segment write may reclaim what the readers read */
    uint32_t stored = chunk_log_compress(log->codec, buf, len, log->cbuf, &log->sp.c.cpu_compress_s);
    log->put_src = stored < len ? log->cbuf : buf;
    gboolean ok = chunk_log_space_put(&log->sp, fp, len, stored, check, err);
    log->put_src = NULL;
    log->victim = NULL;
    return ok;
}

gboolean chunk_log_drop(ChunkLog *log, const Fingerprint *fp)
{
    uint32_t e = chunk_log_index_find(&log->sp.index, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return FALSE;
    chunk_log_space_remove(&log->sp, e);
    return TRUE;
}

gboolean chunk_log_contains(const ChunkLog *log, const Fingerprint *fp, uint32_t *length)
{
    uint32_t e = chunk_log_index_find(&log->sp.index, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return FALSE;
    if (length)
        *length = chunk_log_index_entry(&log->sp.index, e)->length;
    return TRUE;
}

void chunk_log_foreach(const ChunkLog *log, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length),
                       void *ctx)
{
    for (uint32_t e = 0; e < log->sp.index.n_entries; e++) {
        const ChunkLogEntry *en = chunk_log_index_entry(&log->sp.index, e);
        if (en->length != 0)
            fn(ctx, &en->fp, en->length);
    }
}

/* ---- metadata ---- */

static gboolean save_meta(ChunkLog *log, gboolean clean, GError **err)
{
    ChunkLogMeta m;
    memset(&m, 0, sizeof m);
    m.clean = clean;
    memcpy(m.store_id, log->opt.store_id, CHUNK_LOG_STORE_ID_LEN);
    m.segment_size = log->seg_size;
    m.n_segments = log->n_segments;
    m.fp_alg = log->opt.fp_alg;
    m.codec = (uint32_t)log->opt.compression;
    m.next_seq = log->sp.next_seq;
    m.seq = g_new0(uint64_t, log->n_segments);
    for (uint32_t s = 0; s < log->n_segments; s++)
        m.seq[s] = log->sp.seg[s].state == CHUNK_LOG_SEG_WRITTEN ? log->sp.seg[s].seq : 0;
    if (clean) {
        g_assert(log->sp.open_n == 0);
        m.chunks = g_new(ChunkLogEntry, MAX(chunk_log_index_used(&log->sp.index), 1));
        for (uint32_t e = 0; e < log->sp.index.n_entries; e++) {
            const ChunkLogEntry *en = chunk_log_index_entry(&log->sp.index, e);
            if (en->length != 0)
                m.chunks[m.n_chunks++] = *en;
        }
    }
    GByteArray *b = chunk_log_meta_encode(&m);
    gboolean ok = file_publish_atomic(log->meta_path, b->data, b->len, err);
    if (ok) { /* counted by the space, as simulation counts it */
        uint64_t counted = chunk_log_space_meta_written(&log->sp, m.n_chunks);
        g_assert(counted == b->len);
    }
    g_byte_array_free(b, TRUE);
    chunk_log_meta_clear(&m);
    return ok;
}

/* Take the index from a clean close's chunklog.meta; FALSE (nothing
 * taken) when anything in it does not hold together. */
static gboolean load_meta_index(ChunkLog *log, const ChunkLogMeta *m)
{
    for (uint32_t s = 0; s < log->n_segments; s++) {
        log->sp.seg[s].seq = m->seq[s];
        log->sp.seg[s].state = m->seq[s] ? CHUNK_LOG_SEG_WRITTEN : CHUNK_LOG_SEG_FREE;
    }
    for (uint32_t i = 0; i < m->n_chunks; i++) {
        const ChunkLogEntry *en = &m->chunks[i];
        if (en->segment >= log->n_segments || log->sp.seg[en->segment].state != CHUNK_LOG_SEG_WRITTEN ||
            en->length == 0 || en->stored == 0 || en->stored > en->length ||
            (en->stored < en->length && log->opt.compression == CACHE_CODEC_NONE) ||
            en->offset < CHUNK_LOG_SEGMENT_HEADER || en->offset > log->seg_size ||
            en->stored > log->seg_size - en->offset ||
            chunk_log_index_find(&log->sp.index, &en->fp) != CHUNK_LOG_NO_ENTRY)
            return FALSE;
        chunk_log_space_add(&log->sp, &en->fp, en->segment, en->offset, en->length, en->stored, en->check);
    }
    log->sp.next_seq = m->next_seq;
    return TRUE;
}

/* Rebuild the index from the segments on the SSD: each one whose header
 * and table pass their CRC and name this store, fingerprint function and
 * segment size; a chunk in two segments is taken from the newer. */
static void scan_segments(ChunkLog *log)
{
    chunk_log_space_forget(&log->sp);
    struct stat st;
    uint64_t in_file = fstat(log->fd, &st) == 0 ? (uint64_t)st.st_size / log->seg_size : 0;
    uint32_t n = (uint32_t)MIN(in_file, (uint64_t)log->n_segments);
    uint8_t *hdr = g_malloc(CHUNK_LOG_SEGMENT_HEADER);
    uint32_t foreign = 0, other_version = 0;
    for (uint32_t s = 0; s < n; s++) {
        GError *local = NULL;
        const uint8_t *p = read_scratch(log, seg_off(log, s), CHUNK_LOG_SEGMENT_HEADER, &local);
        ChunkLogSegmentHeader h;
        if (p == NULL) {
            g_clear_error(&local);
            log->sp.c.damaged_segments++;
            continue;
        }
        if (memcmp(p, "\0\0\0\0\0\0\0\0", 8) == 0)
            continue; /* never written */
        memcpy(hdr, p, CHUNK_LOG_SEGMENT_HEADER);
        uint32_t version = chunk_log_format_version(hdr, CHUNK_LOG_SEGMENT_MAGIC);
        if (version != 0 && version != CHUNK_LOG_FORMAT_VERSION) {
            other_version++; /* an older (or newer) destor's segment: free for this one */
            continue;
        }
        if (!chunk_log_segment_header_decode(hdr, log->seg_size, &h)) {
            log->sp.c.damaged_segments++;
            continue;
        }
        uint32_t tlen = h.n_entries * CHUNK_LOG_TABLE_ENTRY;
        const uint8_t *table = tlen ? read_scratch(log, seg_off(log, s) + log->seg_size - tlen, tlen, &local)
                                    : hdr + CHUNK_LOG_SEGMENT_HEADER;
        if (table == NULL || !chunk_log_segment_table_ok(hdr, table, h.n_entries)) {
            g_clear_error(&local);
            log->sp.c.damaged_segments++;
            continue;
        }
        if (memcmp(h.store_id, log->opt.store_id, CHUNK_LOG_STORE_ID_LEN) != 0 || h.fp_alg != log->opt.fp_alg ||
            h.codec != (uint32_t)log->opt.compression) {
            foreign++; /* intact, but another store's, fingerprint function's or compression's: free for this one */
            continue;
        }
        log->sp.seg[s].state = CHUNK_LOG_SEG_WRITTEN;
        log->sp.seg[s].seq = h.seq;
        log->sp.next_seq = MAX(log->sp.next_seq, h.seq + 1);
        for (uint32_t i = 0; i < h.n_entries; i++) {
            Fingerprint fp;
            uint32_t off, len, stored, check;
            if (!chunk_log_segment_entry(table, h.n_entries, i, h.data_end, &fp, &off, &len, &stored, &check) ||
                (stored < len && h.codec == CACHE_CODEC_NONE))
                continue;
            uint32_t e = chunk_log_index_find(&log->sp.index, &fp);
            if (e != CHUNK_LOG_NO_ENTRY) {
                if (log->sp.seg[chunk_log_index_entry(&log->sp.index, e)->segment].seq >= h.seq)
                    continue;
                chunk_log_space_remove(&log->sp, e);
            }
            chunk_log_space_add(&log->sp, &fp, s, off, len, stored, check);
        }
    }
    g_free(hdr);
    if (foreign > 0)
        destor_warning("SSD cache %s: %u segments of another store, fingerprint function or ssd-cache-compression "
                       "were dropped",
                       log->dir, foreign);
    if (other_version > 0)
        destor_warning("SSD cache %s: %u segments of another chunk log format version (this destor writes "
                       "version %u) were dropped",
                       log->dir, other_version, CHUNK_LOG_FORMAT_VERSION);
}

/* ---- open and close ---- */

gboolean chunk_log_check_options(const ChunkLogOptions *o, GError **err)
{
    if (o->segment_size % ALIGN != 0 || o->segment_size < CHUNK_LOG_MIN_SEGMENT ||
        o->segment_size > CHUNK_LOG_MAX_SEGMENT) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-segment-size must be a multiple of %u between %u and %u bytes (it is %u)", ALIGN,
                    CHUNK_LOG_MIN_SEGMENT, CHUNK_LOG_MAX_SEGMENT, o->segment_size);
        return FALSE;
    }
    if (o->capacity_bytes / o->segment_size < 2 || o->capacity_bytes / o->segment_size > UINT32_MAX / 2) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "the SSD cache (%" G_GUINT64_FORMAT " bytes) must hold at least 2 segments of "
                    "ssd-cache-segment-size %u bytes",
                    o->capacity_bytes, o->segment_size);
        return FALSE;
    }
    return TRUE;
}

static const char *const log_files[] = {CHUNK_LOG_FILE, CHUNK_LOG_META_FILE, NULL};

const CacheDirFormat chunk_log_dir_format = {
    .held = "a chunk cache in a chunk log (ssd-cache-granularity chunk, ssd-cache-layout log)",
    .becomes = "a chunk log (ssd-cache-layout log)",
    .files = log_files,
};

/* Read chunklog.meta and take the index from it, or from the segments; a
 * log of another store, fingerprint function or segment size is emptied. */
static gboolean load(ChunkLog *log, GError **err)
{
    uint8_t *data = NULL;
    size_t len = 0;
    GError *local = NULL;
    if (!file_read_whole(log->meta_path, &data, &len, &local)) {
        g_clear_error(&local);
        data = NULL;
    }
    ChunkLogMeta m;
    uint32_t version = data != NULL && len >= 12 ? chunk_log_format_version(data, CHUNK_LOG_META_MAGIC) : 0;
    if (version != 0 && version != CHUNK_LOG_FORMAT_VERSION) {
        g_free(data);
        destor_warning("SSD cache %s holds a chunk log of format version %u (this destor writes version %u); "
                       "starting it empty",
                       log->dir, version, CHUNK_LOG_FORMAT_VERSION);
        if (ftruncate(log->fd, 0) != 0) {
            destor_set_errno(err, errno, "truncate %s", log->log_path);
            return FALSE;
        }
        return TRUE;
    }
    gboolean have = data != NULL && chunk_log_meta_decode(data, len, &m);
    if (data != NULL && !have)
        destor_warning("SSD cache metadata %s is damaged; rebuilding the chunk index from the segments",
                       log->meta_path);
    g_free(data);
    const char *why = NULL;
    if (have && memcmp(m.store_id, log->opt.store_id, CHUNK_LOG_STORE_ID_LEN) != 0)
        why = "another store's chunks";
    else if (have && m.fp_alg != (uint32_t)log->opt.fp_alg)
        why = "chunks of another fingerprint function";
    else if (have && m.segment_size != log->seg_size)
        why = "segments of another ssd-cache-segment-size";
    char *codec_why = NULL;
    if (why == NULL && have && m.codec != (uint32_t)log->opt.compression)
        why = codec_why = g_strdup_printf(
            "chunks written with ssd-cache-compression %s (this run: %s)",
            m.codec < CACHE_CODEC_KINDS ? cache_codec_name((CacheCodecKind)m.codec) : "unknown",
            cache_codec_name(log->opt.compression));
    if (why != NULL) {
        destor_warning("SSD cache %s holds %s; starting it empty", log->dir, why);
        g_free(codec_why);
        chunk_log_meta_clear(&m);
        if (ftruncate(log->fd, 0) != 0) {
            destor_set_errno(err, errno, "truncate %s", log->log_path);
            return FALSE;
        }
        return TRUE;
    }
    if (!(have && m.clean && m.n_segments == log->n_segments && load_meta_index(log, &m)))
        scan_segments(log);
    if (have)
        chunk_log_meta_clear(&m);
    return TRUE;
}

ChunkLog *chunk_log_open(const ChunkLogOptions *opt, GError **err)
{
    if (!chunk_log_check_options(opt, err))
        return NULL;
    ChunkLog *log = g_new0(ChunkLog, 1);
    log->opt = *opt;
    log->dir = g_strdup(opt->directory);
    log->opt.directory = log->dir;
    log->log_path = g_build_filename(log->dir, CHUNK_LOG_FILE, NULL);
    log->meta_path = g_build_filename(log->dir, CHUNK_LOG_META_FILE, NULL);
    log->lock_fd = log->fd = -1;
    log->seg_size = opt->segment_size;
    log->n_segments = chunk_log_space_segments(opt->capacity_bytes, opt->segment_size);
    chunk_log_space_init(&log->sp, log->seg_size, log->n_segments, opt->reclaim, opt->dropped, opt->dropped_ctx);
    log->sp.keep = opt->keep;
    log->sp.reclaiming = opt->reclaiming;
    log->sp.keep_ctx = opt->keep_ctx;
    log->sp.io = &log_io;
    log->sp.io_ctx = log;
    log->fpr = fingerprinter_new(opt->fp_alg);
    log->codec = cache_codec_new(opt->compression, opt->compression_level);
    log->cbuf = g_malloc(chunk_log_max_chunk(log));
    log->dbuf = g_malloc(chunk_log_max_chunk(log));
    if (posix_memalign((void **)&log->open_buf, ALIGN, log->seg_size) != 0 ||
        posix_memalign((void **)&log->scratch, ALIGN, (size_t)log->seg_size + ALIGN) != 0) {
        destor_set_errno(err, ENOMEM, "allocate the chunk log's buffers");
        goto fail;
    }
    memset(log->open_buf, 0, log->seg_size);

    log->lock_fd = cache_dir_claim(log->dir, &chunk_log_dir_format, err);
    if (log->lock_fd < 0)
        goto fail;
    log->fd = cache_dir_open_file(log->log_path, opt->o_direct, err);
    if (log->fd < 0)
        goto fail;
    if (!load(log, err))
        goto fail;
    if (!cache_dir_size_file(log->fd, log->log_path, seg_off(log, log->n_segments), FALSE, err))
        goto fail;
    /* From here on the segments may change: a crash must not trust the
     * index in chunklog.meta. */
    if (!save_meta(log, FALSE, err))
        goto fail;
    return log;
fail:
    if (log->fd >= 0)
        close(log->fd);
    log->fd = -1;
    chunk_log_close(log, NULL);
    return NULL;
}

gboolean chunk_log_sync(ChunkLog *log, GError **err)
{
    chunk_log_get_many_wait(log);
    return chunk_log_space_seal(&log->sp, err) && file_fsync(log->fd, log->log_path, err);
}

gboolean chunk_log_close(ChunkLog *log, GError **err)
{
    if (log == NULL)
        return TRUE;
    gboolean ok = TRUE;
    chunk_log_get_many_wait(log);
    if (log->fd >= 0)
        ok = chunk_log_sync(log, err) && save_meta(log, TRUE, err);
    chunk_log_readers_free(log->readers); /* before the descriptor they read goes */
    if (log->fd >= 0)
        close(log->fd);
    if (log->lock_fd >= 0)
        close(log->lock_fd);
    if (log->fpr)
        fingerprinter_free(log->fpr);
    cache_codec_free(log->codec);
    g_free(log->cbuf);
    g_free(log->dbuf);
    chunk_log_space_clear(&log->sp);
    free(log->open_buf);
    free(log->scratch);
    g_free(log->log_path);
    g_free(log->meta_path);
    g_free(log->dir);
    g_free(log);
    return ok;
}

uint64_t chunk_log_chunks(const ChunkLog *log)
{
    return chunk_log_index_used(&log->sp.index);
}

uint64_t chunk_log_live_bytes(const ChunkLog *log)
{
    return log->sp.live_bytes;
}

uint32_t chunk_log_segments(const ChunkLog *log)
{
    return log->n_segments;
}

const ChunkLogCounters *chunk_log_counters(const ChunkLog *log)
{
    return &log->sp.c;
}

size_t chunk_log_index_bytes(const ChunkLog *log)
{
    return chunk_log_index_bytes_of(&log->sp.index);
}

size_t chunk_log_fixed_bytes(const ChunkLog *log)
{
    return sizeof *log + sizeof(ChunkLogSegment) * log->n_segments + 2 * (size_t)log->seg_size + ALIGN +
           2 * (size_t)chunk_log_max_chunk(log) + chunk_log_readers_bytes(log->readers);
}
