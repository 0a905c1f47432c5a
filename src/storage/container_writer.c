/* container_writer.c: one thread, one container in flight (see container_writer.h). */
#include "storage/container_writer.h"
#include "util/thread_cpu.h"

struct ContainerWriter {
    ContainerPool *pool;
    GThread *thread;
    GMutex lock;
    GCond changed;      /* a submission, a finished write, or stop */
    const uint8_t *buf; /* the container to write; NULL: none in flight */
    ContainerId id;
    GError *error;      /* the failed write's, until waited for */
    double cpu_seconds; /* the thread's, after its last write */
    gboolean stop;
};

static gpointer writer_run(gpointer data)
{
    ContainerWriter *w = data;
    g_mutex_lock(&w->lock);
    for (;;) {
        while (w->buf == NULL && !w->stop)
            g_cond_wait(&w->changed, &w->lock);
        if (w->buf == NULL)
            break;
        const uint8_t *buf = w->buf;
        ContainerId id = w->id;
        g_mutex_unlock(&w->lock);
        GError *error = NULL;
        container_pool_write(w->pool, id, buf, &error);
        double cpu = thread_cpu_seconds();
        g_mutex_lock(&w->lock);
        w->cpu_seconds = cpu;
        w->error = error;
        w->buf = NULL;
        g_cond_broadcast(&w->changed);
    }
    g_mutex_unlock(&w->lock);
    return NULL;
}

ContainerWriter *container_writer_new(ContainerPool *pool)
{
    ContainerWriter *w = g_new0(ContainerWriter, 1);
    w->pool = pool;
    g_mutex_init(&w->lock);
    g_cond_init(&w->changed);
    w->thread = g_thread_new("write", writer_run, w);
    return w;
}

void container_writer_submit(ContainerWriter *w, ContainerId id, const uint8_t *buf)
{
    g_mutex_lock(&w->lock);
    g_assert(w->buf == NULL && w->error == NULL);
    w->buf = buf;
    w->id = id;
    g_cond_broadcast(&w->changed);
    g_mutex_unlock(&w->lock);
}

gboolean container_writer_wait(ContainerWriter *w, GError **err)
{
    g_mutex_lock(&w->lock);
    while (w->buf != NULL)
        g_cond_wait(&w->changed, &w->lock);
    GError *error = w->error;
    w->error = NULL;
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
    g_free(w);
}
