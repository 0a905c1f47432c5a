/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefetch_source.c: reader threads filling a ring of container buffers (or,
 * over a source that maps, of mappings) in plan order. */
#include "read/prefetch_source.h"

#include <string.h>

/* The plan's read i goes to slot i % depth once read i - depth is consumed. */
typedef struct {
    uint8_t *buf;          /* over a source that reads */
    const uint8_t *mapped; /* over a source that maps: the read's mapping until taken */
    GError *error;   /* the backing read's failure, handed to the consumer */
    gboolean filled; /* buf (or error) holds the read the consumer waits for */
} Slot;

struct PrefetchSource {
    ContainerSource source; /* first: a PrefetchSource * is a ContainerSource * */
    ContainerSource *backing;
    GArray *order;
    guint depth;
    Slot *slots;
    GMutex lock;   /* guards next, claimed, stop and every slot's filled and error */
    GCond changed; /* a slot was filled or freed, or stop was set */
    guint next;    /* index in order of the next planned read the consumer takes */
    guint claimed; /* index in order of the next read a thread takes on */
    gboolean stop;
    GThread *threads[PREFETCH_THREADS_MAX];
    guint nthreads;
};

/* Each thread takes the next planned read whose slot is free, reads it
 * (the backing source reads concurrently: container_source.h) and marks
 * the slot filled; reads complete in any order, the consumer takes them in
 * plan order. */
static gpointer prefetch_thread(gpointer data)
{
    PrefetchSource *p = data;
    g_mutex_lock(&p->lock);
    while (!p->stop && p->claimed < p->order->len) {
        guint i = p->claimed;
        if (i >= p->next + p->depth) { /* its slot still holds read i - depth */
            g_cond_wait(&p->changed, &p->lock);
            continue;
        }
        p->claimed++;
        Slot *s = &p->slots[i % p->depth];
        g_assert(!s->filled && s->error == NULL && s->mapped == NULL);
        g_mutex_unlock(&p->lock);
        GError *error = NULL;
        ContainerId id = g_array_index(p->order, ContainerId, i);
        if (s->buf == NULL)
            container_source_map(p->backing, id, &s->mapped, &error);
        else
            container_source_read(p->backing, id, s->buf, &error);
        g_mutex_lock(&p->lock);
        s->error = error;
        s->filled = TRUE;
        g_cond_broadcast(&p->changed);
    }
    g_mutex_unlock(&p->lock);
    return NULL;
}

/* The next planned read, `id`: its slot's mapping handed to *mapped, or
 * its buffer exchanged for *buf, or (buf_copy) copied into buf_copy (from
 * the mapping, then unmapped). */
static gboolean take_planned(PrefetchSource *p, const uint8_t **mapped, uint8_t **buf, uint8_t *buf_copy,
                             GError **err)
{
    Slot *s = &p->slots[p->next % p->depth];
    g_mutex_lock(&p->lock);
    while (!s->filled)
        g_cond_wait(&p->changed, &p->lock);
    GError *error = s->error;
    s->error = NULL;
    g_mutex_unlock(&p->lock);
    if (error != NULL) {
        g_propagate_error(err, error);
    } else if (mapped != NULL) {
        *mapped = s->mapped;
        s->mapped = NULL;
    } else if (s->mapped != NULL) {
        memcpy(buf_copy != NULL ? buf_copy : *buf, s->mapped, p->source.container_size);
        container_source_unmap(p->backing, s->mapped);
        s->mapped = NULL;
    } else if (buf_copy != NULL) {
        memcpy(buf_copy, s->buf, p->source.container_size);
    } else {
        uint8_t *mine = s->buf;
        s->buf = *buf;
        *buf = mine;
    }
    g_mutex_lock(&p->lock);
    s->filled = FALSE;
    p->next++;
    g_cond_broadcast(&p->changed);
    g_mutex_unlock(&p->lock);
    return error == NULL;
}

static gboolean planned(const PrefetchSource *p, ContainerId id)
{
    return p->next < p->order->len && g_array_index(p->order, ContainerId, p->next) == id;
}

static gboolean prefetch_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    PrefetchSource *p = (PrefetchSource *)src;
    return planned(p, id) ? take_planned(p, NULL, NULL, buf, err) : container_source_read(p->backing, id, buf, err);
}

static gboolean prefetch_read_exchange(ContainerSource *src, ContainerId id, uint8_t **buf, GError **err)
{
    PrefetchSource *p = (PrefetchSource *)src;
    return planned(p, id) ? take_planned(p, NULL, buf, NULL, err)
                          : container_source_read(p->backing, id, *buf, err);
}

static gboolean prefetch_map(ContainerSource *src, ContainerId id, const uint8_t **bytes, GError **err)
{
    PrefetchSource *p = (PrefetchSource *)src;
    return planned(p, id) ? take_planned(p, bytes, NULL, NULL, err) : container_source_map(p->backing, id, bytes, err);
}

static void prefetch_unmap(ContainerSource *src, const uint8_t *bytes)
{
    container_source_unmap(((PrefetchSource *)src)->backing, bytes);
}

PrefetchSource *prefetch_source_new(ContainerSource *backing, GArray *order, guint depth, guint threads)
{
    g_assert(depth > 0 && threads > 0 && threads <= PREFETCH_THREADS_MAX);
    PrefetchSource *p = g_new0(PrefetchSource, 1);
    p->source.read = prefetch_read;
    p->source.read_exchange = prefetch_read_exchange;
    p->source.container_size = backing->container_size;
    gboolean maps = container_source_maps(backing);
    if (maps) {
        p->source.map = prefetch_map;
        p->source.unmap = prefetch_unmap;
    }
    p->backing = backing;
    p->order = order;
    p->depth = depth;
    p->slots = g_new0(Slot, depth);
    for (guint i = 0; i < depth; i++)
        p->slots[i].buf = maps ? NULL : container_buffer_new(backing->container_size);
    g_mutex_init(&p->lock);
    g_cond_init(&p->changed);
    p->nthreads = MIN(threads, MAX(order->len, 1u));
    for (guint t = 0; t < p->nthreads; t++)
        p->threads[t] = g_thread_new("prefetch", prefetch_thread, p);
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
    /* A thread finishes the read it holds, then stops. */
    g_mutex_lock(&p->lock);
    p->stop = TRUE;
    g_cond_broadcast(&p->changed);
    g_mutex_unlock(&p->lock);
    for (guint t = 0; t < p->nthreads; t++)
        g_thread_join(p->threads[t]);
    for (guint i = 0; i < p->depth; i++) {
        g_clear_error(&p->slots[i].error);
        container_source_unmap(p->backing, p->slots[i].mapped);
        container_buffer_free(p->slots[i].buf);
    }
    g_free(p->slots);
    g_mutex_clear(&p->lock);
    g_cond_clear(&p->changed);
    g_array_unref(p->order);
    g_free(p);
}
