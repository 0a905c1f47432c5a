/* SPDX-License-Identifier: GPL-3.0-or-later */
/* index_list.h: intrusive doubly-linked lists over small dense indices
 * whose number is not known in advance (the chunk cache's slots, a metadata
 * cache's entries): the link arrays grow by doubling when a larger index is
 * added. Several lists may share one IndexLinks (an index is in at most one
 * of them at a time: ARC's T1 and T2). Oldest at the head, newest at the
 * tail. O(1) append, unlink and move; two uint32 links per index. */
#ifndef DESTOR_CACHE_INDEX_LIST_H
#define DESTOR_CACHE_INDEX_LIST_H

#include <glib.h>
#include <stdint.h>

#define INDEX_NONE UINT32_MAX

typedef struct {
    uint32_t *prev, *next;
    uint32_t size; /* indices the arrays hold */
} IndexLinks;

typedef struct {
    uint32_t head, tail; /* head: oldest */
    uint32_t len;
} IndexList;

static inline void index_links_free(IndexLinks *l)
{
    g_free(l->prev);
    g_free(l->next);
    l->prev = l->next = NULL;
    l->size = 0;
}

static inline void index_links_reserve(IndexLinks *l, uint32_t i)
{
    if (i < l->size)
        return;
    uint32_t n = l->size ? l->size : 64;
    while (n <= i)
        n *= 2;
    l->prev = g_renew(uint32_t, l->prev, n);
    l->next = g_renew(uint32_t, l->next, n);
    l->size = n;
}

static inline void index_list_init(IndexList *q)
{
    q->head = q->tail = INDEX_NONE;
    q->len = 0;
}

static inline void index_list_append(IndexLinks *l, IndexList *q, uint32_t i)
{
    index_links_reserve(l, i);
    l->prev[i] = q->tail;
    l->next[i] = INDEX_NONE;
    if (q->tail != INDEX_NONE)
        l->next[q->tail] = i;
    else
        q->head = i;
    q->tail = i;
    q->len++;
}

static inline void index_list_unlink(IndexLinks *l, IndexList *q, uint32_t i)
{
    g_assert(q->len > 0);
    if (l->prev[i] != INDEX_NONE)
        l->next[l->prev[i]] = l->next[i];
    else
        q->head = l->next[i];
    if (l->next[i] != INDEX_NONE)
        l->prev[l->next[i]] = l->prev[i];
    else
        q->tail = l->prev[i];
    q->len--;
}

static inline void index_list_to_tail(IndexLinks *l, IndexList *q, uint32_t i)
{
    if (q->tail == i)
        return;
    index_list_unlink(l, q, i);
    index_list_append(l, q, i);
}

static inline size_t index_links_bytes(const IndexLinks *l)
{
    return (size_t)l->size * 2 * sizeof(uint32_t);
}

#endif
