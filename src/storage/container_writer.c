/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_writer.c: one thread writing a ring of submitted containers in
 * order (see container_writer.h). */
#include "storage/container_writer.h"
#include "util/thread_cpu.h"

typedef struct {
    ContainerId id;
    const uint8_t *buf;
} Submission;

struct ContainerWriter {
    ContainerStore *store;
    GThread *thread;
    GMutex lock;
    GCond changed;      /* a submission, a finished write, or stop */
    Submission *ring;   /* `depth` slots */
    guint depth;
    guint head;         /* the oldest unfinished submission */
    guint unfinished;   /* submitted and not yet written (or dropped) */
    GError *error;      /* the first failed write's: every later write is
                           dropped and every wait reports it */
    double cpu_seconds; /* the thread's, after its last write */
    gboolean stop;
};

static gpointer writer_run(gpointer data)
{
    ContainerWriter *w = data;
    g_mutex_lock(&w->lock);
    for (;;) {
        while (w->unfinished == 0 && !w->stop)
            g_cond_wait(&w->changed, &w->lock);
        if (w->unfinished == 0)
            break;
        Submission s = w->ring[w->head];
        gboolean drop = w->error != NULL;
        g_mutex_unlock(&w->lock);
        GError *error = NULL;
        if (!drop)
            container_store_write(w->store, s.id, s.buf, &error);
        double cpu = thread_cpu_seconds();
        g_mutex_lock(&w->lock);
        w->cpu_seconds = cpu;
        if (error != NULL)
            w->error = error;
        w->head = (w->head + 1) % w->depth;
        w->unfinished--;
        g_cond_broadcast(&w->changed);
    }
    g_mutex_unlock(&w->lock);
    return NULL;
}

ContainerWriter *container_writer_new(ContainerStore *store, guint depth)
{
    g_assert(depth > 0);
    ContainerWriter *w = g_new0(ContainerWriter, 1);
    w->store = store;
    w->ring = g_new0(Submission, depth);
    w->depth = depth;
    g_mutex_init(&w->lock);
    g_cond_init(&w->changed);
    w->thread = g_thread_new("write", writer_run, w);
    return w;
}

void container_writer_submit(ContainerWriter *w, ContainerId id, const uint8_t *buf)
{
    g_mutex_lock(&w->lock);
    g_assert(w->unfinished < w->depth);
    w->ring[(w->head + w->unfinished) % w->depth] = (Submission){ id, buf };
    w->unfinished++;
    g_cond_broadcast(&w->changed);
    g_mutex_unlock(&w->lock);
}

gboolean container_writer_wait(ContainerWriter *w, guint unfinished, GError **err)
{
    g_mutex_lock(&w->lock);
    while (w->unfinished > unfinished)
        g_cond_wait(&w->changed, &w->lock);
    GError *error = w->error ? g_error_copy(w->error) : NULL;
    g_mutex_unlock(&w->lock);
    if (error == NULL)
        return TRUE;
    g_propagate_error(err, error);
    return FALSE;
}

double container_writer_cpu_seconds(ContainerWriter *w)
{
    g_mutex_lock(&w->lock);
    double s = w->cpu_seconds;
    g_mutex_unlock(&w->lock);
    return s;
}

void container_writer_free(ContainerWriter *w)
{
    if (w == NULL)
        return;
    g_mutex_lock(&w->lock);
    w->stop = TRUE;
    g_cond_broadcast(&w->changed);
    g_mutex_unlock(&w->lock);
    g_thread_join(w->thread);
    g_clear_error(&w->error);
    g_mutex_clear(&w->lock);
    g_cond_clear(&w->changed);
    g_free(w->ring);
    g_free(w);
}
