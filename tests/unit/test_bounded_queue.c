/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_bounded_queue.c: the pipeline's queue (src/util/bounded_queue.c):
 * FIFO order across the ring's wrap, LIFO order, and push_many of more items
 * than the queue holds, drained meanwhile by a consumer thread (one item a
 * pop or a lot at a time with pop_many), arriving whole and in order. */
#include "util/bounded_queue.h"
#include "unit.h"

#define CAP 5

/* Fill and drain in steps, so a FIFO's head wraps around the ring. */
static void test_fifo_and_lifo_order(void)
{
    int items[3 * CAP];
    BoundedQueue *fifo = bounded_queue_new(CAP), *lifo = bounded_queue_new_lifo(CAP);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < CAP - 1; i++) {
            bounded_queue_push(fifo, &items[round * CAP + i]);
            bounded_queue_push(lifo, &items[round * CAP + i]);
        }
        for (int i = 0; i < CAP - 1; i++) {
            CU_ASSERT_PTR_EQUAL(bounded_queue_pop(fifo), &items[round * CAP + i]);
            CU_ASSERT_PTR_EQUAL(bounded_queue_pop(lifo), &items[round * CAP + CAP - 2 - i]);
        }
    }
    bounded_queue_free(fifo);
    bounded_queue_free(lifo);
}

#define MANY 1000
static int many[MANY];

static gpointer consume(gpointer q)
{
    int wrong = 0;
    for (int i = 0; i < MANY; i++)
        wrong += bounded_queue_pop(q) != &many[i];
    return GINT_TO_POINTER(wrong);
}

/* As consume, up to 3 items a pop; a lot never exceeds what was asked. */
static gpointer consume_many(gpointer q)
{
    int wrong = 0;
    gpointer got[3];
    for (int i = 0; i < MANY;) {
        guint n = bounded_queue_pop_many(q, got, G_N_ELEMENTS(got));
        wrong += n == 0 || n > G_N_ELEMENTS(got);
        for (guint k = 0; k < n && i < MANY; k++, i++)
            wrong += got[k] != &many[i];
    }
    return GINT_TO_POINTER(wrong);
}

/* 1,000 items pushed in lots of 1 to 37 into a queue of 5 (batched or
 * not), popped one or up to 3 at a time: push_many blocks on the full
 * queue, goes on as it drains, and every item arrives once, in order. */
static void test_push_many_through_small_queue(void)
{
    for (int mode = 0; mode < 4; mode++) {
        gboolean batched = mode & 1, lots = mode & 2;
        BoundedQueue *q = batched ? bounded_queue_new_batched(CAP) : bounded_queue_new(CAP);
        GThread *t = g_thread_new("consume", lots ? consume_many : consume, q);
        gpointer lot[37];
        for (int i = 0, n = 1; i < MANY; i += n, n = n % 37 + 1) {
            n = MIN(n, MANY - i);
            for (int k = 0; k < n; k++)
                lot[k] = &many[i + k];
            bounded_queue_push_many(q, lot, (guint)n);
        }
        CU_ASSERT_EQUAL(GPOINTER_TO_INT(g_thread_join(t)), 0);
        bounded_queue_free(q);
    }
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("bounded_queue", NULL, NULL);
    CU_add_test(s, "FIFO and LIFO order", test_fifo_and_lifo_order);
    CU_add_test(s, "push_many through a small queue, pop and pop_many", test_push_many_through_small_queue);
}

UNIT_MAIN(add_suites)
