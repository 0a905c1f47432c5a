/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefetch_source.c: a reader thread filling a ring of container buffers. */
#include "read/prefetch_source.h"
#include "util/bounded_queue.h"

#include <string.h>

typedef struct {
    ContainerId id;
    uint8_t *buf;
    GError *error; /* the backing read's failure, handed to the consumer */
} Prefetched;

/* Pushed by the thread as its last item, however it stops. */
static Prefetched end_of_prefetch;

struct PrefetchSource {
    ContainerSource source; /* first: a PrefetchSource * is a ContainerSource * */
    ContainerSource *backing;
    GArray *order;
    guint next;              /* index in order of the next planned read */
    BoundedQueue *free_bufs; /* buffers the thread may fill */
    BoundedQueue *ready;     /* Prefetched*, in plan order, then end_of_prefetch */
    GThread *thread;
    gint stop;
    guint depth;
};

static gpointer prefetch_thread(gpointer data)
{
    PrefetchSource *p = data;
    for (guint i = 0; i < p->order->len; i++) {
        uint8_t *buf = bounded_queue_pop(p->free_bufs);
        if (g_atomic_int_get(&p->stop)) {
            bounded_queue_push(p->free_bufs, buf);
            break;
        }
        Prefetched *item = g_new0(Prefetched, 1);
        item->id = g_array_index(p->order, ContainerId, i);
        item->buf = buf;
        container_source_read(p->backing, item->id, buf, &item->error);
        bounded_queue_push(p->ready, item);
    }
    bounded_queue_push(p->ready, &end_of_prefetch);
    return NULL;
}

static gboolean prefetch_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    PrefetchSource *p = (PrefetchSource *)src;
    if (p->next >= p->order->len || g_array_index(p->order, ContainerId, p->next) != id)
        return container_source_read(p->backing, id, buf, err);
    Prefetched *item = bounded_queue_pop(p->ready);
    p->next++;
    gboolean ok = item->error == NULL;
    if (ok)
        memcpy(buf, item->buf, src->container_size);
    else
        g_propagate_error(err, item->error);
    bounded_queue_push(p->free_bufs, item->buf);
    g_free(item);
    return ok;
}

PrefetchSource *prefetch_source_new(ContainerSource *backing, GArray *order, guint depth)
{
    PrefetchSource *p = g_new0(PrefetchSource, 1);
    p->source.read = prefetch_read;
    p->source.container_size = backing->container_size;
    p->backing = backing;
    p->order = order;
    p->depth = depth;
    p->free_bufs = bounded_queue_new(depth);
    p->ready = bounded_queue_new(depth + 1); /* room for end_of_prefetch */
    for (guint i = 0; i < depth; i++)
        bounded_queue_push(p->free_bufs, g_malloc(backing->container_size));
    p->thread = g_thread_new("prefetch", prefetch_thread, p);
    return p;
}

ContainerSource *prefetch_source_source(PrefetchSource *p)
{
    return &p->source;
}

void prefetch_source_free(PrefetchSource *p)
{
    if (p == NULL)
        return;
    /* Hand back whatever the thread filled until it says it is done; it
     * stops at its next free buffer once `stop` is set. */
    g_atomic_int_set(&p->stop, 1);
    Prefetched *item;
    while ((item = bounded_queue_pop(p->ready)) != &end_of_prefetch) {
        g_clear_error(&item->error);
        bounded_queue_push(p->free_bufs, item->buf);
        g_free(item);
    }
    g_thread_join(p->thread);
    for (guint i = 0; i < p->depth; i++)
        g_free(bounded_queue_pop(p->free_bufs));
    bounded_queue_free(p->free_bufs);
    bounded_queue_free(p->ready);
    g_array_unref(p->order);
    g_free(p);
}
