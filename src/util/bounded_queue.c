/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bounded_queue.c: ring buffer guarded by one mutex and two conditions;
 * a LIFO one pops from the end it pushes to. */
#include "util/bounded_queue.h"

struct BoundedQueue {
    GMutex lock;
    GCond not_full;
    GCond not_empty;
    gpointer *ring;
    guint capacity;
    guint head;  /* next slot to pop */
    guint count; /* items held */
    guint wake_pushers_at; /* a pop wakes a blocked producer once count is at most this */
    gboolean lifo;         /* pop the newest item, not the oldest */
    guint pushers_waiting, poppers_waiting; /* signal only when someone waits:
                                              a GCond signal is a syscall */
};

BoundedQueue *bounded_queue_new(guint capacity)
{
    g_assert(capacity > 0);
    BoundedQueue *q = g_new0(BoundedQueue, 1);
    g_mutex_init(&q->lock);
    g_cond_init(&q->not_full);
    g_cond_init(&q->not_empty);
    q->ring = g_new0(gpointer, capacity);
    q->capacity = capacity;
    q->wake_pushers_at = capacity - 1;
    return q;
}

BoundedQueue *bounded_queue_new_batched(guint capacity)
{
    BoundedQueue *q = bounded_queue_new(capacity);
    q->wake_pushers_at = capacity / 2;
    return q;
}

BoundedQueue *bounded_queue_new_lifo(guint capacity)
{
    BoundedQueue *q = bounded_queue_new(capacity);
    q->lifo = TRUE;
    return q;
}

void bounded_queue_free(BoundedQueue *q)
{
    if (q == NULL)
        return;
    g_mutex_clear(&q->lock);
    g_cond_clear(&q->not_full);
    g_cond_clear(&q->not_empty);
    g_free(q->ring);
    g_free(q);
}

void bounded_queue_push_many(BoundedQueue *q, gpointer const *items, guint n)
{
    g_mutex_lock(&q->lock);
    for (guint done = 0; done < n;) {
        while (q->count == q->capacity) {
            q->pushers_waiting++;
            g_cond_wait(&q->not_full, &q->lock);
            q->pushers_waiting--;
        }
        guint pushed = 0;
        for (; done < n && q->count < q->capacity; done++, pushed++) {
            g_assert(items[done] != NULL);
            q->ring[(q->head + q->count) % q->capacity] = items[done];
            q->count++;
        }
        if (q->poppers_waiting > 1 && pushed > 1)
            g_cond_broadcast(&q->not_empty);
        else if (q->poppers_waiting > 0)
            g_cond_signal(&q->not_empty);
    }
    g_mutex_unlock(&q->lock);
}

void bounded_queue_push(BoundedQueue *q, gpointer item)
{
    bounded_queue_push_many(q, &item, 1);
}

guint bounded_queue_pop_many(BoundedQueue *q, gpointer *items, guint max)
{
    g_assert(!q->lifo && max > 0);
    g_mutex_lock(&q->lock);
    while (q->count == 0) {
        q->poppers_waiting++;
        g_cond_wait(&q->not_empty, &q->lock);
        q->poppers_waiting--;
    }
    guint n = MIN(max, q->count);
    for (guint i = 0; i < n; i++) {
        items[i] = q->ring[q->head];
        q->head = (q->head + 1) % q->capacity;
    }
    q->count -= n;
    if (q->pushers_waiting > 1 && n > 1 && q->count <= q->wake_pushers_at)
        g_cond_broadcast(&q->not_full);
    else if (q->pushers_waiting > 0 && q->count <= q->wake_pushers_at)
        g_cond_signal(&q->not_full);
    g_mutex_unlock(&q->lock);
    return n;
}

gpointer bounded_queue_pop(BoundedQueue *q)
{
    g_mutex_lock(&q->lock);
    while (q->count == 0) {
        q->poppers_waiting++;
        g_cond_wait(&q->not_empty, &q->lock);
        q->poppers_waiting--;
    }
    gpointer item;
    if (q->lifo) {
        item = q->ring[(q->head + q->count - 1) % q->capacity];
    } else {
        item = q->ring[q->head];
        q->head = (q->head + 1) % q->capacity;
    }
    q->count--;
    if (q->pushers_waiting > 0 && q->count <= q->wake_pushers_at)
        g_cond_signal(&q->not_full);
    g_mutex_unlock(&q->lock);
    return item;
}
