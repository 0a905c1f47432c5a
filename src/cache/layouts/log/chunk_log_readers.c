/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_readers.c: the chunk log's reader threads (chunk_log_readers.h). */
#include "cache/layouts/log/chunk_log_readers.h"
#include "cache/common/cache_dir.h"
#include "util/checksum.h"
#include "util/fileio.h"
#include "util/thread_cpu.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN CACHE_DIR_DIRECT_ALIGN

typedef struct {
    GMutex lock;
    GCond done;
    size_t remaining; /* extents not read yet */
} Batch;

struct ChunkLogReadBatch {
    Batch b;
    ChunkLogReadJob **order;
    gint refs; /* its starter's, and each chunk_log_readers_hold's */
};

typedef struct {
    ChunkLogReadJob **jobs; /* NULL: the thread stops; else n jobs back to back in the log */
    size_t n;
    Batch *batch;
} Work;

struct ChunkLogReaders {
    int fd;
    char *path;
    gboolean o_direct;
    size_t buf_len; /* each thread's buffer */
    CacheCodecKind codec;
    unsigned n_threads;
    GThread **threads; /* started at the first batch */
    GAsyncQueue *queue;
};

/* Read the extent of w's jobs' stored bytes in one read through buf, then
 * decompress (when stored compressed), check and copy out each chunk; a
 * failed read fails all of them. */
static void read_extent(ChunkLogReaders *r, Work *w, uint8_t *buf, CacheCodec *codec)
{
    off_t off = w->jobs[0]->off;
    size_t len = (size_t)(w->jobs[w->n - 1]->off - off) + w->jobs[w->n - 1]->stored;
    off_t start = r->o_direct ? off - off % ALIGN : off;
    size_t span = (size_t)(off - start) + len;
    if (r->o_direct)
        span = (span + ALIGN - 1) / ALIGN * ALIGN;
    g_assert(span <= r->buf_len);
    GError *local = NULL;
    gboolean read = file_pread_all(r->fd, buf, span, start, r->path, &local);
    g_clear_error(&local);
    for (size_t i = 0; i < w->n; i++) {
        ChunkLogReadJob *j = w->jobs[i];
        const uint8_t *src = buf + (j->off - start);
        j->ok = FALSE;
        j->cpu_decompress_s = 0.0;
        if (!read)
            continue;
        if (j->stored < j->len) { /* decoded straight into the caller's buffer, then checked there */
            double t0 = thread_cpu_seconds();
            gboolean ok = cache_codec_decompress(codec, r->codec, src, j->stored, j->dst, j->len);
            j->cpu_decompress_s = thread_cpu_seconds() - t0;
            if (!ok)
                continue;
            src = j->dst;
        }
        if (checksum_crc32(CHECKSUM_CRC32_START, src, j->len) != j->check)
            continue;
        if (src != j->dst)
            memcpy(j->dst, src, j->len);
        j->ok = TRUE;
    }
}

static gpointer reader_main(gpointer data)
{
    ChunkLogReaders *r = data;
    uint8_t *buf = NULL;
    if (posix_memalign((void **)&buf, ALIGN, r->buf_len) != 0)
        g_error("allocate a chunk log reader's buffer");
    CacheCodec *codec = cache_codec_new(r->codec, 0); /* decompression needs no level */
    for (;;) {
        Work *w = g_async_queue_pop(r->queue);
        if (w->jobs == NULL) {
            g_free(w);
            break;
        }
        read_extent(r, w, buf, codec);
        g_mutex_lock(&w->batch->lock);
        if (--w->batch->remaining == 0)
            g_cond_broadcast(&w->batch->done); /* its starter, and any holds waiting */
        g_mutex_unlock(&w->batch->lock);
        g_free(w);
    }
    cache_codec_free(codec);
    free(buf);
    return NULL;
}

ChunkLogReaders *chunk_log_readers_new(int fd, const char *path, gboolean o_direct, uint32_t max_len,
                                       CacheCodecKind codec, unsigned threads)
{
    g_assert(threads > 0);
    ChunkLogReaders *r = g_new0(ChunkLogReaders, 1);
    r->fd = fd;
    r->path = g_strdup(path);
    r->o_direct = o_direct;
    r->buf_len = (size_t)MAX(max_len, CHUNK_LOG_EXTENT_MAX) + 2 * ALIGN;
    r->codec = codec;
    r->n_threads = threads;
    r->queue = g_async_queue_new();
    return r;
}

size_t chunk_log_readers_bytes(const ChunkLogReaders *r)
{
    return r != NULL && r->threads != NULL ? r->n_threads * r->buf_len : 0;
}

static int by_offset(const void *a, const void *b)
{
    const ChunkLogReadJob *x = *(ChunkLogReadJob *const *)a, *y = *(ChunkLogReadJob *const *)b;
    return x->off < y->off ? -1 : x->off > y->off;
}

ChunkLogReadBatch *chunk_log_readers_start(ChunkLogReaders *r, ChunkLogReadJob *jobs, size_t n)
{
    ChunkLogReadBatch *rb = g_new0(ChunkLogReadBatch, 1);
    rb->refs = 1;
    g_mutex_init(&rb->b.lock);
    g_cond_init(&rb->b.done);
    if (n == 0)
        return rb;
    if (r->threads == NULL) {
        r->threads = g_new(GThread *, r->n_threads);
        for (unsigned i = 0; i < r->n_threads; i++)
            r->threads[i] = g_thread_new("chunk-log-reader", reader_main, r);
    }
    ChunkLogReadJob **order = g_new(ChunkLogReadJob *, n);
    for (size_t i = 0; i < n; i++) {
        g_assert(jobs[i].stored > 0 && jobs[i].stored <= jobs[i].len && jobs[i].stored + 2 * (size_t)ALIGN <= r->buf_len);
        order[i] = &jobs[i];
    }
    qsort(order, n, sizeof *order, by_offset);
    rb->order = order;
    /* extents: runs of jobs each starting where the previous one's stored bytes end */
    GPtrArray *work = g_ptr_array_new();
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        off_t end = order[i]->off + order[i]->stored;
        while (k < n && order[k]->off == end &&
               (size_t)(end + order[k]->stored - order[i]->off) <= CHUNK_LOG_EXTENT_MAX)
            end += order[k++]->stored;
        Work *w = g_new(Work, 1);
        w->jobs = order + i;
        w->n = k - i;
        w->batch = &rb->b;
        g_ptr_array_add(work, w);
        i = k;
    }
    rb->b.remaining = work->len;
    for (guint i = 0; i < work->len; i++)
        g_async_queue_push(r->queue, g_ptr_array_index(work, i));
    g_ptr_array_free(work, TRUE);
    return rb;
}

void chunk_log_readers_hold(ChunkLogReadBatch *rb)
{
    g_atomic_int_inc(&rb->refs);
}

void chunk_log_readers_wait_read(ChunkLogReadBatch *rb)
{
    g_mutex_lock(&rb->b.lock);
    while (rb->b.remaining > 0)
        g_cond_wait(&rb->b.done, &rb->b.lock);
    g_mutex_unlock(&rb->b.lock);
}

void chunk_log_readers_release(ChunkLogReadBatch *rb)
{
    if (!g_atomic_int_dec_and_test(&rb->refs))
        return;
    g_assert(rb->b.remaining == 0); /* the last reference goes after the reads: the starter's waits */
    g_mutex_clear(&rb->b.lock);
    g_cond_clear(&rb->b.done);
    g_free(rb->order);
    g_free(rb);
}

void chunk_log_readers_wait(ChunkLogReadBatch *rb)
{
    chunk_log_readers_wait_read(rb);
    chunk_log_readers_release(rb);
}

void chunk_log_readers_free(ChunkLogReaders *r)
{
    if (r == NULL)
        return;
    if (r->threads != NULL) {
        for (unsigned i = 0; i < r->n_threads; i++) {
            Work *w = g_new0(Work, 1);
            g_async_queue_push(r->queue, w);
        }
        for (unsigned i = 0; i < r->n_threads; i++)
            g_thread_join(r->threads[i]);
        g_free(r->threads);
    }
    g_async_queue_unref(r->queue);
    g_free(r->path);
    g_free(r);
}
