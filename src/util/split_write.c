/* SPDX-License-Identifier: GPL-3.0-or-later */
/* split_write.c: a large write as pieces in flight at once (split_write.h). */
#include "util/split_write.h"
#include "util/fileio.h"

struct SplitWriter {
    GThreadPool *threads; /* pieces - 1 threads; the caller writes a piece too */
    guint pieces;
};

/* One write's pieces: how many are unfinished, and the first error. */
typedef struct {
    GMutex lock;
    GCond done;
    guint pending;
    GError *error;
} SplitJob;

typedef struct {
    SplitJob *job;
    int fd;
    const uint8_t *buf;
    size_t len;
    off_t off;
    const char *path;
} Piece;

static void piece_finish(SplitJob *job, GError *error)
{
    g_mutex_lock(&job->lock);
    if (error != NULL && job->error == NULL)
        job->error = error;
    else if (error != NULL)
        g_error_free(error);
    job->pending--;
    g_cond_signal(&job->done);
    g_mutex_unlock(&job->lock);
}

static void piece_write(gpointer data, gpointer user_data)
{
    (void)user_data;
    Piece *p = data;
    GError *error = NULL;
    file_pwrite_all(p->fd, p->buf, p->len, p->off, p->path, &error);
    piece_finish(p->job, error);
}

SplitWriter *split_writer_new(guint pieces, GError **err)
{
    g_assert(pieces >= 1);
    SplitWriter *w = g_new0(SplitWriter, 1);
    w->pieces = pieces;
    if (pieces > 1 && (w->threads = g_thread_pool_new(piece_write, NULL, (gint)pieces - 1, TRUE, err)) == NULL) {
        g_free(w);
        return NULL;
    }
    return w;
}

gboolean split_writer_pwrite(SplitWriter *w, int fd, const uint8_t *buf, size_t len, off_t off, size_t align,
                             const char *path, GError **err)
{
    g_assert(align > 0 && len % align == 0 && (size_t)off % align == 0);
    size_t units = len / align;
    guint n = w->threads == NULL ? 1 : (guint)MIN((size_t)w->pieces, units);
    if (n <= 1)
        return file_pwrite_all(fd, buf, len, off, path, err);
    SplitJob job = { .pending = n };
    g_mutex_init(&job.lock);
    g_cond_init(&job.done);
    Piece pieces[n];
    size_t at = 0;
    for (guint i = 0; i < n; i++) { /* the units shared out as evenly as they go */
        size_t end = units * (i + 1) / n * align;
        pieces[i] = (Piece){ &job, fd, buf + at, end - at, off + (off_t)at, path };
        at = end;
    }
    g_assert(at == len);
    for (guint i = 1; i < n; i++)
        g_thread_pool_push(w->threads, &pieces[i], NULL);
    piece_write(&pieces[0], NULL);
    g_mutex_lock(&job.lock);
    while (job.pending > 0)
        g_cond_wait(&job.done, &job.lock);
    g_mutex_unlock(&job.lock);
    g_mutex_clear(&job.lock);
    g_cond_clear(&job.done);
    if (job.error == NULL)
        return TRUE;
    g_propagate_error(err, job.error);
    return FALSE;
}

void split_writer_free(SplitWriter *w)
{
    if (w == NULL)
        return;
    if (w->threads != NULL)
        g_thread_pool_free(w->threads, FALSE, TRUE);
    g_free(w);
}
