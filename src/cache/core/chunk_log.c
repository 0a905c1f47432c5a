/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log.c: the chunk cache's segment log on the SSD (chunk_log.h). */
#include "cache/core/chunk_log.h"
#include "cache/core/chunk_log_format.h"
#include "cache/core/chunk_log_index.h"
#include "cache/core/chunk_log_readers.h"
#include "cache/core/ssd_store.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/lock_file.h"
#include "util/thread_cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALIGN SSD_STORE_DIRECT_ALIGN
#define NO_SEGMENT UINT32_MAX

typedef enum { SEG_FREE = 0, SEG_WRITTEN, SEG_OPEN } SegState;

typedef struct {
    uint64_t seq; /* when written; 0 when free or open */
    uint64_t live_bytes;
    uint32_t live_chunks;
    uint32_t state;
} Segment;

struct ChunkLog {
    ChunkLogOptions opt;
    char *dir;
    char *log_path;
    char *meta_path;
    int lock_fd;
    int fd;
    uint32_t seg_size;
    uint32_t n_segments;
    Segment *seg;
    ChunkLogIndex index;
    uint64_t live_bytes;
    uint64_t next_seq;
    /* the open segment: filled in memory, written whole to `open_home` */
    uint32_t open_home; /* NO_SEGMENT until the first chunk after a write */
    uint8_t *open_buf;  /* aligned, seg_size */
    uint32_t open_end;  /* end of its chunk bytes */
    uint32_t open_n;    /* its table entries */
    uint64_t open_user, open_user_stored, open_cleaner;
    uint8_t *scratch; /* aligned, seg_size + ALIGN: reads of segments and O_DIRECT chunk reads */
    uint8_t *cbuf;    /* max_chunk: a put's compressed bytes, a compressed chunk read without O_DIRECT */
    uint8_t *dbuf;    /* max_chunk: the cleaner's decoded chunk (a put's bytes wait in cbuf meanwhile) */
    CacheCodec *codec;
    Fingerprinter *fpr;
    ChunkLogReaders *readers;
    ChunkLogCounters c;
};

static off_t seg_off(const ChunkLog *log, uint32_t s)
{
    return (off_t)s * log->seg_size;
}

uint32_t chunk_log_max_chunk(const ChunkLog *log)
{
    return log->seg_size - CHUNK_LOG_SEGMENT_HEADER - CHUNK_LOG_TABLE_ENTRY;
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

/* ---- the index, with the segments' live counts kept beside it ---- */

/* live bytes are stored bytes: what the chunks take in their segments */
static void live_add(ChunkLog *log, uint32_t s, uint32_t stored)
{
    log->seg[s].live_bytes += stored;
    log->seg[s].live_chunks++;
    log->live_bytes += stored;
}

static void remove_entry(ChunkLog *log, uint32_t e)
{
    ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
    Segment *sg = &log->seg[en->segment];
    g_assert(sg->live_chunks > 0 && sg->live_bytes >= en->stored);
    sg->live_bytes -= en->stored;
    sg->live_chunks--;
    log->live_bytes -= en->stored;
    chunk_log_index_remove(&log->index, e);
}

static void reset_open(ChunkLog *log, uint32_t home)
{
    memset(log->open_buf, 0, log->seg_size);
    log->open_home = home;
    log->open_end = CHUNK_LOG_SEGMENT_HEADER;
    log->open_n = 0;
    log->open_user = log->open_user_stored = log->open_cleaner = 0;
    if (home != NO_SEGMENT) {
        g_assert(log->seg[home].live_chunks == 0);
        log->seg[home].state = SEG_OPEN;
        log->seg[home].seq = 0;
    }
}

static gboolean open_fits(const ChunkLog *log, uint32_t len)
{
    return (uint64_t)log->open_end + len + (uint64_t)(log->open_n + 1) * CHUNK_LOG_TABLE_ENTRY <= log->seg_size;
}

/* Append a chunk of len bytes stored as `stored` bytes at buf (compressed
 * when stored < len). */
static void open_append(ChunkLog *log, const Fingerprint *fp, const void *buf, uint32_t len, uint32_t stored,
                        uint32_t e)
{
    g_assert(stored > 0 && stored <= len && open_fits(log, stored));
    memcpy(log->open_buf + log->open_end, buf, stored);
    chunk_log_segment_put_entry(log->open_buf, log->seg_size, log->open_n, fp, log->open_end, len, stored);
    if (e == CHUNK_LOG_NO_ENTRY) {
        chunk_log_index_add(&log->index, fp, log->open_home, log->open_end, len, stored);
    } else { /* the cleaner moving a chunk: same entry, new place */
        ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
        g_assert(en->length == len && en->stored == stored);
        en->segment = log->open_home;
        en->offset = log->open_end;
    }
    live_add(log, log->open_home, stored);
    log->open_end += stored;
    log->open_n++;
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

static gboolean fp_matches(ChunkLog *log, const Fingerprint *fp, const void *buf, uint32_t len)
{
    Fingerprint got;
    fingerprinter_compute(log->fpr, buf, len, &got);
    return memcmp(got.bytes, fp->bytes, FP_SLOT) == 0;
}

/* Chunk en's bytes into buf from its stored bytes at src: decompressed
 * when stored compressed, checked against its fingerprint. */
static gboolean decode_check(ChunkLog *log, const ChunkLogEntry *en, const uint8_t *src, uint8_t *buf)
{
    if (en->stored < en->length) {
        double t0 = thread_cpu_seconds();
        gboolean ok = cache_codec_decompress(log->codec, log->opt.compression, src, en->stored, buf, en->length);
        log->c.cpu_decompress_s += thread_cpu_seconds() - t0;
        if (!ok)
            return FALSE;
        src = buf;
    }
    if (!fp_matches(log, &en->fp, src, en->length))
        return FALSE;
    if (src != buf)
        memcpy(buf, src, en->length);
    return TRUE;
}

ChunkLogGet chunk_log_get(ChunkLog *log, const Fingerprint *fp, void *buf, uint32_t *len)
{
    uint32_t e = chunk_log_index_find(&log->index, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return CHUNK_LOG_ABSENT;
    log->c.gets++;
    const ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
    uint32_t n = en->stored;
    gboolean compressed = n < en->length;
    const uint8_t *src;
    GError *local = NULL;
    if (en->segment == log->open_home) {
        src = log->open_buf + en->offset;
    } else if (log->opt.o_direct) {
        src = read_scratch(log, seg_off(log, en->segment) + en->offset, n, &local);
    } else {
        uint8_t *into = compressed ? log->cbuf : buf;
        src = file_pread_all(log->fd, into, n, seg_off(log, en->segment) + en->offset, log->log_path, &local)
                  ? into : NULL;
    }
    g_clear_error(&local);
    if (src == NULL || !decode_check(log, en, src, buf)) {
        remove_entry(log, e);
        log->c.damaged_reads++;
        return CHUNK_LOG_DAMAGED;
    }
    *len = en->length;
    log->c.bytes_served += en->length;
    return CHUNK_LOG_HIT;
}

void chunk_log_get_many(ChunkLog *log, ChunkLogRead *reads, size_t n)
{
    ChunkLogReadJob *jobs = g_new(ChunkLogReadJob, n ? n : 1);
    size_t *of = g_new(size_t, n ? n : 1);
    size_t n_jobs = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t e = chunk_log_index_find(&log->index, reads[i].fp);
        const ChunkLogEntry *en = e == CHUNK_LOG_NO_ENTRY ? NULL : chunk_log_index_entry(&log->index, e);
        if (en == NULL || en->segment == log->open_home) { /* nothing to read from the SSD */
            reads[i].result = chunk_log_get(log, reads[i].fp, reads[i].buf, &reads[i].len);
            continue;
        }
        log->c.gets++;
        jobs[n_jobs] = (ChunkLogReadJob){ .off = seg_off(log, en->segment) + en->offset, .len = en->length,
                                          .stored = en->stored, .fp = reads[i].fp, .dst = reads[i].buf };
        of[n_jobs++] = i;
    }
    if (n_jobs > 0 && log->readers == NULL)
        log->readers = chunk_log_readers_new(log->fd, log->log_path, log->opt.o_direct, chunk_log_max_chunk(log),
                                             log->opt.fp_alg, log->opt.compression,
                                             log->opt.readers ? log->opt.readers : CHUNK_LOG_DEFAULT_READERS);
    chunk_log_readers_run(log->readers, jobs, n_jobs);
    for (size_t k = 0; k < n_jobs; k++) {
        ChunkLogRead *r = &reads[of[k]];
        log->c.cpu_decompress_s += jobs[k].cpu_decompress_s;
        if (jobs[k].ok) {
            r->result = CHUNK_LOG_HIT;
            r->len = jobs[k].len;
            log->c.bytes_served += jobs[k].len;
            continue;
        }
        r->result = CHUNK_LOG_DAMAGED;
        log->c.damaged_reads++;
        uint32_t e = chunk_log_index_find(&log->index, r->fp); /* gone already when asked for twice */
        if (e != CHUNK_LOG_NO_ENTRY)
            remove_entry(log, e);
    }
    g_free(jobs);
    g_free(of);
}

/* ---- writing and reclaiming ---- */

/* The segment to reclaim: the oldest written (evict), or the one with the
 * fewest live bytes, the oldest of those (clean). */
static uint32_t pick_victim(const ChunkLog *log)
{
    uint32_t best = NO_SEGMENT;
    for (uint32_t s = 0; s < log->n_segments; s++) {
        const Segment *sg = &log->seg[s];
        if (sg->state != SEG_WRITTEN)
            continue;
        if (best == NO_SEGMENT) {
            best = s;
            continue;
        }
        const Segment *b = &log->seg[best];
        gboolean better = log->opt.reclaim == CHUNK_LOG_CLEAN
                              ? (sg->live_bytes < b->live_bytes ||
                                 (sg->live_bytes == b->live_bytes && sg->seq < b->seq))
                              : sg->seq < b->seq;
        if (better)
            best = s;
    }
    return best;
}

static void evict_segment(ChunkLog *log, uint32_t s)
{
    for (uint32_t e = 0; e < log->index.n_entries && log->seg[s].live_chunks > 0; e++) {
        ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
        if (en->length == 0 || en->segment != s)
            continue;
        Fingerprint fp = en->fp;
        uint32_t len = en->length;
        remove_entry(log, e);
        log->c.chunks_dropped_by_log++;
        if (log->opt.dropped)
            log->opt.dropped(log->opt.dropped_ctx, &fp, len);
    }
    g_assert(log->seg[s].live_chunks == 0 && log->seg[s].live_bytes == 0);
    log->c.segments_evicted++;
}

/* Move segment s's live chunks into the open segment, whose home s
 * becomes (it is empty: they fit, since they fitted in s). A chunk whose
 * bytes do not match its fingerprint is dropped as damaged. */
static void clean_segment(ChunkLog *log, uint32_t s)
{
    GError *local = NULL;
    const uint8_t *bytes = read_scratch(log, seg_off(log, s), log->seg_size, &local);
    if (bytes == NULL) { /* unreadable: nothing in it can be served */
        g_clear_error(&local);
        log->c.damaged_reads += log->seg[s].live_chunks;
        evict_segment(log, s);
        return;
    }
    /* Take the segment's chunks out of its counts first: they are counted
     * again as they land in the open segment (the same segment number). */
    uint32_t *moving = g_new(uint32_t, log->seg[s].live_chunks ? log->seg[s].live_chunks : 1);
    uint32_t n = 0;
    for (uint32_t e = 0; e < log->index.n_entries && n < log->seg[s].live_chunks; e++) {
        ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
        if (en->length != 0 && en->segment == s)
            moving[n++] = e;
    }
    g_assert(n == log->seg[s].live_chunks);
    log->live_bytes -= log->seg[s].live_bytes;
    log->seg[s].live_bytes = 0;
    log->seg[s].live_chunks = 0;
    reset_open(log, s);
    for (uint32_t i = 0; i < n; i++) {
        ChunkLogEntry *en = chunk_log_index_entry(&log->index, moving[i]);
        const uint8_t *src = bytes + en->offset;
        gboolean sound = en->stored < en->length ? decode_check(log, en, src, log->dbuf) /* checked decoded */
                                                 : fp_matches(log, &en->fp, src, en->length);
        if (!sound) { /* moved as stored when sound */
            Fingerprint fp = en->fp;
            uint32_t len = en->length;
            live_add(log, s, en->stored); /* counted so remove_entry can take it off again */
            remove_entry(log, moving[i]);
            log->c.damaged_reads++;
            log->c.chunks_dropped_by_log++;
            if (log->opt.dropped)
                log->opt.dropped(log->opt.dropped_ctx, &fp, len);
            continue;
        }
        Fingerprint fp = en->fp;
        uint32_t len = en->length, stored = en->stored;
        open_append(log, &fp, src, len, stored, moving[i]);
        log->open_cleaner += stored;
    }
    g_free(moving);
    log->c.segments_cleaned++;
}

/* Give the open segment a home with room for a chunk of `need` bytes: a
 * free segment, or a reclaimed one. Cleaning is chosen only when it frees
 * at least half a segment and leaves room for the chunk, so every
 * cleaning pass makes progress and the chunk always fits after it. */
static void take_home(ChunkLog *log, uint32_t need)
{
    for (uint32_t s = 0; s < log->n_segments; s++)
        if (log->seg[s].state == SEG_FREE) {
            reset_open(log, s);
            return;
        }
    uint32_t v = pick_victim(log);
    g_assert(v != NO_SEGMENT); /* n_segments >= 2 and only one is open */
    const Segment *vs = &log->seg[v];
    if (log->opt.reclaim == CHUNK_LOG_CLEAN && vs->live_bytes * 2 <= log->seg_size - CHUNK_LOG_SEGMENT_HEADER &&
        CHUNK_LOG_SEGMENT_HEADER + vs->live_bytes + need + (uint64_t)(vs->live_chunks + 1) * CHUNK_LOG_TABLE_ENTRY <=
            log->seg_size) {
        clean_segment(log, v);
        return;
    }
    evict_segment(log, v);
    reset_open(log, v);
}

/* Write the open segment whole, in one write. */
static gboolean write_open(ChunkLog *log, GError **err)
{
    if (log->open_home == NO_SEGMENT || log->open_n == 0)
        return TRUE;
    ChunkLogSegmentHeader h;
    memcpy(h.store_id, log->opt.store_id, CHUNK_LOG_STORE_ID_LEN);
    h.seq = log->next_seq;
    h.segment_size = log->seg_size;
    h.n_entries = log->open_n;
    h.data_end = log->open_end;
    h.fp_alg = log->opt.fp_alg;
    h.codec = (uint32_t)log->opt.compression;
    chunk_log_segment_seal(log->open_buf, &h);
    if (!file_pwrite_all(log->fd, log->open_buf, log->seg_size, seg_off(log, log->open_home), log->log_path, err))
        return FALSE;
    log->next_seq++;
    log->c.segments_written++;
    log->c.device_bytes_written += log->seg_size;
    log->c.user_bytes_written += log->open_user;
    log->c.user_stored_bytes_written += log->open_user_stored;
    log->c.cleaner_bytes_written += log->open_cleaner;
    log->seg[log->open_home].state = SEG_WRITTEN;
    log->seg[log->open_home].seq = h.seq;
    log->open_home = NO_SEGMENT;
    log->open_n = 0;
    log->open_end = CHUNK_LOG_SEGMENT_HEADER;
    log->open_user = log->open_user_stored = log->open_cleaner = 0;
    return TRUE;
}

gboolean chunk_log_put(ChunkLog *log, const Fingerprint *fp, const void *buf, uint32_t len, GError **err)
{
    if (len == 0 || len > chunk_log_max_chunk(log)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "a chunk of %u bytes does not fit in a chunk log segment of %u bytes (ssd-cache-segment-size)",
                    len, log->seg_size);
        return FALSE;
    }
    if (chunk_log_index_find(&log->index, fp) != CHUNK_LOG_NO_ENTRY)
        return TRUE;
    uint32_t stored = chunk_log_compress(log->codec, buf, len, log->cbuf, &log->c.cpu_compress_s);
    const uint8_t *bytes = stored < len ? log->cbuf : buf;
    if (log->open_home != NO_SEGMENT && !open_fits(log, stored) && !write_open(log, err))
        return FALSE;
    if (log->open_home == NO_SEGMENT)
        take_home(log, stored);
    open_append(log, fp, bytes, len, stored, CHUNK_LOG_NO_ENTRY);
    log->open_user += len;
    log->open_user_stored += stored;
    log->c.put_bytes += len;
    log->c.put_stored_bytes += stored;
    if (stored < len)
        log->c.chunks_compressed++;
    return TRUE;
}

gboolean chunk_log_drop(ChunkLog *log, const Fingerprint *fp)
{
    uint32_t e = chunk_log_index_find(&log->index, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return FALSE;
    remove_entry(log, e);
    return TRUE;
}

gboolean chunk_log_contains(const ChunkLog *log, const Fingerprint *fp, uint32_t *length)
{
    uint32_t e = chunk_log_index_find(&log->index, fp);
    if (e == CHUNK_LOG_NO_ENTRY)
        return FALSE;
    if (length)
        *length = chunk_log_index_entry(&log->index, e)->length;
    return TRUE;
}

void chunk_log_foreach(const ChunkLog *log, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length),
                       void *ctx)
{
    for (uint32_t e = 0; e < log->index.n_entries; e++) {
        const ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
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
    m.next_seq = log->next_seq;
    m.seq = g_new0(uint64_t, log->n_segments);
    for (uint32_t s = 0; s < log->n_segments; s++)
        m.seq[s] = log->seg[s].state == SEG_WRITTEN ? log->seg[s].seq : 0;
    if (clean) {
        g_assert(log->open_n == 0);
        m.chunks = g_new(ChunkLogEntry, log->index.used ? log->index.used : 1);
        for (uint32_t e = 0; e < log->index.n_entries; e++) {
            const ChunkLogEntry *en = chunk_log_index_entry(&log->index, e);
            if (en->length != 0)
                m.chunks[m.n_chunks++] = *en;
        }
    }
    GByteArray *b = chunk_log_meta_encode(&m);
    gboolean ok = file_publish_atomic(log->meta_path, b->data, b->len, err);
    if (ok)
        log->c.device_bytes_written += b->len;
    g_byte_array_free(b, TRUE);
    chunk_log_meta_clear(&m);
    return ok;
}

/* Take the index from a clean close's chunklog.meta; FALSE (nothing
 * taken) when anything in it does not hold together. */
static gboolean load_meta_index(ChunkLog *log, const ChunkLogMeta *m)
{
    for (uint32_t s = 0; s < log->n_segments; s++) {
        log->seg[s].seq = m->seq[s];
        log->seg[s].state = m->seq[s] ? SEG_WRITTEN : SEG_FREE;
    }
    for (uint32_t i = 0; i < m->n_chunks; i++) {
        const ChunkLogEntry *en = &m->chunks[i];
        if (en->segment >= log->n_segments || log->seg[en->segment].state != SEG_WRITTEN || en->length == 0 ||
            en->stored == 0 || en->stored > en->length || en->offset < CHUNK_LOG_SEGMENT_HEADER ||
            en->offset > log->seg_size || en->stored > log->seg_size - en->offset ||
            chunk_log_index_find(&log->index, &en->fp) != CHUNK_LOG_NO_ENTRY)
            return FALSE;
        chunk_log_index_add(&log->index, &en->fp, en->segment, en->offset, en->length, en->stored);
        live_add(log, en->segment, en->stored);
    }
    log->next_seq = m->next_seq;
    return TRUE;
}

static void forget_index(ChunkLog *log)
{
    chunk_log_index_clear(&log->index);
    chunk_log_index_init(&log->index);
    memset(log->seg, 0, sizeof(Segment) * log->n_segments);
    log->live_bytes = 0;
    log->next_seq = 1;
}

/* Rebuild the index from the segments on the SSD: each one whose header
 * and table pass their CRC and name this store, fingerprint function and
 * segment size; a chunk in two segments is taken from the newer. */
static void scan_segments(ChunkLog *log)
{
    forget_index(log);
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
            log->c.damaged_segments++;
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
            log->c.damaged_segments++;
            continue;
        }
        uint32_t tlen = h.n_entries * CHUNK_LOG_TABLE_ENTRY;
        const uint8_t *table = tlen ? read_scratch(log, seg_off(log, s) + log->seg_size - tlen, tlen, &local)
                                    : hdr + CHUNK_LOG_SEGMENT_HEADER;
        if (table == NULL || !chunk_log_segment_table_ok(hdr, table, h.n_entries)) {
            g_clear_error(&local);
            log->c.damaged_segments++;
            continue;
        }
        if (memcmp(h.store_id, log->opt.store_id, CHUNK_LOG_STORE_ID_LEN) != 0 || h.fp_alg != log->opt.fp_alg ||
            h.codec != (uint32_t)log->opt.compression) {
            foreign++; /* intact, but another store's, fingerprint function's or compression's: free for this one */
            continue;
        }
        log->seg[s].state = SEG_WRITTEN;
        log->seg[s].seq = h.seq;
        log->next_seq = MAX(log->next_seq, h.seq + 1);
        for (uint32_t i = 0; i < h.n_entries; i++) {
            Fingerprint fp;
            uint32_t off, len, stored;
            if (!chunk_log_segment_entry(table, h.n_entries, i, h.data_end, &fp, &off, &len, &stored) ||
                (stored < len && h.codec == CACHE_CODEC_NONE))
                continue;
            uint32_t e = chunk_log_index_find(&log->index, &fp);
            if (e != CHUNK_LOG_NO_ENTRY) {
                if (log->seg[chunk_log_index_entry(&log->index, e)->segment].seq >= h.seq)
                    continue;
                remove_entry(log, e);
            }
            chunk_log_index_add(&log->index, &fp, s, off, len, stored);
            live_add(log, s, stored);
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

static gboolean check_options(const ChunkLogOptions *o, GError **err)
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

/* A directory the container cache made: its files go (said on stderr). */
static gboolean remove_container_cache(ChunkLog *log, GError **err)
{
    gboolean said = FALSE;
    const char *names[] = {SSD_STORE_SLOT_FILE, "cache.meta"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        char *p = g_build_filename(log->dir, names[i], NULL);
        if (g_file_test(p, G_FILE_TEST_EXISTS)) {
            if (!said)
                destor_warning("SSD cache %s holds a container cache (ssd-cache-granularity container); "
                               "rebuilding it as a chunk cache",
                               log->dir);
            said = TRUE;
            if (g_unlink(p) != 0) {
                destor_set_errno(err, errno, "remove %s", p);
                g_free(p);
                return FALSE;
            }
        }
        g_free(p);
    }
    return TRUE;
}

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
    if (!check_options(opt, err))
        return NULL;
    if (g_mkdir_with_parents(opt->directory, 0755) != 0) {
        destor_set_errno(err, errno, "create SSD cache directory %s", opt->directory);
        return NULL;
    }
    ChunkLog *log = g_new0(ChunkLog, 1);
    log->opt = *opt;
    log->dir = g_strdup(opt->directory);
    log->opt.directory = log->dir;
    log->log_path = g_build_filename(log->dir, CHUNK_LOG_FILE, NULL);
    log->meta_path = g_build_filename(log->dir, CHUNK_LOG_META_FILE, NULL);
    log->lock_fd = log->fd = -1;
    log->seg_size = opt->segment_size;
    log->n_segments = (uint32_t)(opt->capacity_bytes / opt->segment_size);
    log->seg = g_new0(Segment, log->n_segments);
    log->open_home = NO_SEGMENT;
    log->open_end = CHUNK_LOG_SEGMENT_HEADER;
    log->next_seq = 1;
    log->fpr = fingerprinter_new(opt->fp_alg);
    log->codec = cache_codec_new(opt->compression, opt->compression_level);
    log->cbuf = g_malloc(chunk_log_max_chunk(log));
    log->dbuf = g_malloc(chunk_log_max_chunk(log));
    chunk_log_index_init(&log->index);
    if (posix_memalign((void **)&log->open_buf, ALIGN, log->seg_size) != 0 ||
        posix_memalign((void **)&log->scratch, ALIGN, (size_t)log->seg_size + ALIGN) != 0) {
        destor_set_errno(err, ENOMEM, "allocate the chunk log's buffers");
        goto fail;
    }
    memset(log->open_buf, 0, log->seg_size);

    char *lock_path = g_build_filename(log->dir, SSD_STORE_LOCK_FILE, NULL);
    char *busy = g_strdup_printf("SSD cache directory %s is in use by another process", log->dir);
    log->lock_fd = lock_file_take(lock_path, busy, err);
    g_free(busy);
    g_free(lock_path);
    if (log->lock_fd < 0 || !remove_container_cache(log, err))
        goto fail;
    log->fd = open(log->log_path, O_RDWR | O_CREAT | O_CLOEXEC | (opt->o_direct ? O_DIRECT : 0), 0644);
    if (log->fd < 0) {
        if (opt->o_direct && errno == EINVAL)
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                        "open %s: the file system does not support O_DIRECT (ssd-cache-o-direct)", log->log_path);
        else
            destor_set_errno(err, errno, "open %s", log->log_path);
        goto fail;
    }
    if (!load(log, err))
        goto fail;
    struct stat st;
    if (fstat(log->fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", log->log_path);
        goto fail;
    }
    if ((uint64_t)st.st_size > (uint64_t)seg_off(log, log->n_segments) &&
        ftruncate(log->fd, seg_off(log, log->n_segments)) != 0) {
        destor_set_errno(err, errno, "truncate %s", log->log_path);
        goto fail;
    }
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
    return write_open(log, err) && file_fsync(log->fd, log->log_path, err);
}

gboolean chunk_log_close(ChunkLog *log, GError **err)
{
    if (log == NULL)
        return TRUE;
    gboolean ok = TRUE;
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
    chunk_log_index_clear(&log->index);
    free(log->open_buf);
    free(log->scratch);
    g_free(log->seg);
    g_free(log->log_path);
    g_free(log->meta_path);
    g_free(log->dir);
    g_free(log);
    return ok;
}

uint64_t chunk_log_chunks(const ChunkLog *log)
{
    return log->index.used;
}

uint64_t chunk_log_live_bytes(const ChunkLog *log)
{
    return log->live_bytes;
}

uint32_t chunk_log_segments(const ChunkLog *log)
{
    return log->n_segments;
}

const ChunkLogCounters *chunk_log_counters(const ChunkLog *log)
{
    return &log->c;
}

size_t chunk_log_index_bytes(const ChunkLog *log)
{
    return chunk_log_index_bytes_of(&log->index);
}

size_t chunk_log_fixed_bytes(const ChunkLog *log)
{
    size_t readers = log->readers != NULL && (log->opt.o_direct || log->opt.compression != CACHE_CODEC_NONE)
                         ? (log->opt.readers ? log->opt.readers : CHUNK_LOG_DEFAULT_READERS) *
                               ((size_t)chunk_log_max_chunk(log) + 2 * ALIGN)
                         : 0;
    return sizeof *log + sizeof(Segment) * log->n_segments + 2 * (size_t)log->seg_size + ALIGN +
           2 * (size_t)chunk_log_max_chunk(log) + readers;
}

gboolean chunk_log_remove_files(const char *dir, GError **err)
{
    gboolean had = FALSE;
    const char *names[] = {CHUNK_LOG_FILE, CHUNK_LOG_META_FILE};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        char *p = g_build_filename(dir, names[i], NULL);
        if (g_unlink(p) == 0) {
            had = TRUE;
        } else if (errno != ENOENT) {
            destor_set_errno(err, errno, "remove %s", p);
            g_free(p);
            return FALSE;
        }
        g_free(p);
    }
    return had;
}
