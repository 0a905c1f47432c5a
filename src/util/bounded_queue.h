/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bounded_queue.h: a blocking FIFO (or LIFO) of pointers with a fixed
 * capacity, the link between two pipeline stages and the pool of a stage's
 * buffers. A full queue blocks the producer, so a fast stage cannot run
 * ahead and fill memory. */
#ifndef DESTOR_BOUNDED_QUEUE_H
#define DESTOR_BOUNDED_QUEUE_H

#include <glib.h>

typedef struct BoundedQueue BoundedQueue;

BoundedQueue *bounded_queue_new(guint capacity);
/* The same, but a producer blocked on the full queue is woken only once
 * the queue has drained to half, so it then pushes many items per wake-up
 * instead of one (a wake-up is two system calls and a context switch). For
 * a consumer that keeps popping without waiting for the next push. */
BoundedQueue *bounded_queue_new_batched(guint capacity);
/* A stack instead: pop takes the item pushed last. For pools of buffers,
 * where the one given back last is the one still in the cache, and buffers
 * never needed at once are never touched (nor counted in the RSS). */
BoundedQueue *bounded_queue_new_lifo(guint capacity);
void bounded_queue_free(BoundedQueue *q);

/* Blocks while the queue is full. `item` must not be NULL. */
void bounded_queue_push(BoundedQueue *q, gpointer item);
/* Pushes items[0..n) in order, as many at a time as there is room for,
 * waking the consumers once per lot instead of once per item. Blocks while
 * the queue is full. No item may be NULL. A lot is not atomic: once the
 * queue fills, another producer's items may come between its items. */
void bounded_queue_push_many(BoundedQueue *q, gpointer const *items, guint n);
/* Blocks while the queue is empty. The oldest item, or the newest if LIFO. */
gpointer bounded_queue_pop(BoundedQueue *q);
/* Blocks while the queue is empty, then takes up to `max` items at once
 * (the oldest first; not for a LIFO queue) into items[], under one lock
 * where as many pops took as many: a consumer faster than its producer
 * then no longer contends for the lock once per item. Returns how many. */
guint bounded_queue_pop_many(BoundedQueue *q, gpointer *items, guint max);

#endif
