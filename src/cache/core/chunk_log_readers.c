/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_readers.c: the chunk log's reader threads (chunk_log_readers.h). */
#include "cache/core/chunk_log_readers.h"
#include "cache/core/ssd_store.h"
#include "util/fileio.h"
#include "util/thread_cpu.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN SSD_STORE_DIRECT_ALIGN

typedef struct {
    GMutex lock;
    GCond done;
    size_t remaining;
} Batch;

typedef struct {
    ChunkLogReadJob *job; /* NULL: the thread stops */
    Batch *batch;
} Work;

struct ChunkLogReaders {
    int fd;
    char *path;
    gboolean o_direct;
    uint32_t max_len;
    FingerprintAlgorithm alg;
    CacheCodecKind codec;
    unsigned n_threads;
    GThread **threads; /* started at the first batch */
    GAsyncQueue *queue;
};

static gboolean read_one(ChunkLogReaders *r, ChunkLogReadJob *j, uint8_t *bounce, Fingerprinter *fpr,
                         CacheCodec *codec)
{
    GError *local = NULL;
    gboolean compressed = j->stored < j->len;
    const uint8_t *src = j->dst;
    if (r->o_direct) {
        off_t start = j->off - j->off % ALIGN;
        size_t span = ((size_t)(j->off - start) + j->stored + ALIGN - 1) / ALIGN * ALIGN;
        g_assert(span <= (size_t)r->max_len + 2 * ALIGN);
        if (!file_pread_all(r->fd, bounce, span, start, r->path, &local)) {
            g_clear_error(&local);
            return FALSE;
        }
        src = bounce + (j->off - start);
    } else if (!file_pread_all(r->fd, compressed ? bounce : j->dst, j->stored, j->off, r->path, &local)) {
        g_clear_error(&local);
        return FALSE;
    } else if (compressed) {
        src = bounce;
    }
    if (compressed) {
        double t0 = thread_cpu_seconds();
        gboolean ok = cache_codec_decompress(codec, r->codec, src, j->stored, j->dst, j->len);
        j->cpu_decompress_s = thread_cpu_seconds() - t0;
        if (!ok)
            return FALSE;
        src = j->dst;
    }
    Fingerprint got;
    fingerprinter_compute(fpr, src, j->len, &got);
    if (memcmp(got.bytes, j->fp->bytes, FP_SLOT) != 0)
        return FALSE;
    if (src != j->dst)
        memcpy(j->dst, src, j->len);
    return TRUE;
}

static gpointer reader_main(gpointer data)
{
    ChunkLogReaders *r = data;
    uint8_t *bounce = NULL;
    if ((r->o_direct || r->codec != CACHE_CODEC_NONE) && posix_memalign((void **)&bounce, ALIGN, (size_t)r->max_len + 2 * ALIGN) != 0)
        g_error("allocate a chunk log reader's buffer");
    Fingerprinter *fpr = fingerprinter_new(r->alg);
    CacheCodec *codec = cache_codec_new(r->codec, 0);
    for (;;) {
        Work *w = g_async_queue_pop(r->queue);
        if (w->job == NULL) {
            g_free(w);
            break;
        }
        w->job->cpu_decompress_s = 0.0;
        w->job->ok = read_one(r, w->job, bounce, fpr, codec);
        g_mutex_lock(&w->batch->lock);
        if (--w->batch->remaining == 0)
            g_cond_signal(&w->batch->done);
        g_mutex_unlock(&w->batch->lock);
        g_free(w);
    }
    fingerprinter_free(fpr);
    cache_codec_free(codec);
    free(bounce);
    return NULL;
}

ChunkLogReaders *chunk_log_readers_new(int fd, const char *path, gboolean o_direct, uint32_t max_len,
                                       FingerprintAlgorithm alg, CacheCodecKind codec, unsigned threads)
{
    g_assert(threads > 0);
    ChunkLogReaders *r = g_new0(ChunkLogReaders, 1);
    r->fd = fd;
    r->path = g_strdup(path);
    r->o_direct = o_direct;
    r->max_len = max_len;
    r->alg = alg;
    r->codec = codec;
    r->n_threads = threads;
    r->queue = g_async_queue_new();
    return r;
}

void chunk_log_readers_run(ChunkLogReaders *r, ChunkLogReadJob *jobs, size_t n)
{
    if (n == 0)
        return;
    if (r->threads == NULL) {
        r->threads = g_new(GThread *, r->n_threads);
        for (unsigned i = 0; i < r->n_threads; i++)
            r->threads[i] = g_thread_new("chunk-log-reader", reader_main, r);
    }
    Batch b;
    g_mutex_init(&b.lock);
    g_cond_init(&b.done);
    b.remaining = n;
    for (size_t i = 0; i < n; i++) {
        Work *w = g_new(Work, 1);
        w->job = &jobs[i];
        w->batch = &b;
        g_async_queue_push(r->queue, w);
    }
    g_mutex_lock(&b.lock);
    while (b.remaining > 0)
        g_cond_wait(&b.done, &b.lock);
    g_mutex_unlock(&b.lock);
    g_mutex_clear(&b.lock);
    g_cond_clear(&b.done);
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
