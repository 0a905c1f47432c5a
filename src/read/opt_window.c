/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_window.c: a ring of the next reads, each linked to the next read of
 * its container, and each container's first read in the ring. */
#include "read/opt_window.h"

typedef struct {
    ContainerId id;
    uint32_t offset;
    gsize next; /* position of the next read of the same container; 0: none yet */
} Entry;

struct OptWindow {
    ChunkStream *future;
    guint size;
    gboolean ended;
    Entry *ring;
    gsize cap;        /* a power of two */
    gsize head, tail; /* positions of the first read held and one past the last */
    GHashTable *first; /* id -> position of its first read held */
    GHashTable *last;  /* id -> position of its last read held */
};

#define AT(w, p) (&(w)->ring[(p) & ((w)->cap - 1)])

OptWindow *opt_window_new(ChunkStream *future, guint size)
{
    g_assert(size > 0);
    OptWindow *w = g_new0(OptWindow, 1);
    w->future = future;
    w->size = size;
    w->cap = 1024;
    w->ring = g_new(Entry, w->cap);
    w->head = w->tail = 1;
    w->first = g_hash_table_new(g_direct_hash, g_direct_equal);
    w->last = g_hash_table_new(g_direct_hash, g_direct_equal);
    return w;
}

void opt_window_free(OptWindow *w)
{
    if (w == NULL)
        return;
    chunk_stream_free(w->future);
    g_hash_table_destroy(w->first);
    g_hash_table_destroy(w->last);
    g_free(w->ring);
    g_free(w);
}

static void grow(OptWindow *w)
{
    Entry *ring = g_new(Entry, w->cap * 2);
    for (gsize p = w->head; p < w->tail; p++)
        ring[p & (w->cap * 2 - 1)] = *AT(w, p);
    g_free(w->ring);
    w->ring = ring;
    w->cap *= 2;
}

static void append(OptWindow *w, ContainerId id, uint32_t offset)
{
    if (w->tail - w->head == w->cap)
        grow(w);
    gsize p = w->tail++;
    *AT(w, p) = (Entry){ id, offset, 0 };
    gpointer key = GUINT_TO_POINTER(id);
    gsize last = GPOINTER_TO_SIZE(g_hash_table_lookup(w->last, key));
    if (last != 0)
        AT(w, last)->next = p;
    else
        g_hash_table_insert(w->first, key, GSIZE_TO_POINTER(p));
    g_hash_table_insert(w->last, key, GSIZE_TO_POINTER(p));
}

static void pop(OptWindow *w)
{
    g_assert(w->head < w->tail);
    Entry *e = AT(w, w->head);
    gpointer key = GUINT_TO_POINTER(e->id);
    g_assert(GPOINTER_TO_SIZE(g_hash_table_lookup(w->first, key)) == w->head);
    if (e->next != 0) {
        g_hash_table_insert(w->first, key, GSIZE_TO_POINTER(e->next));
    } else {
        g_hash_table_remove(w->first, key);
        g_hash_table_remove(w->last, key);
    }
    w->head++;
}

static gboolean fill(OptWindow *w, GError **err)
{
    while (!w->ended && w->tail - w->head < w->size) {
        ChunkRef ref;
        GError *local = NULL;
        if (!chunk_stream_next(w->future, &ref, &local)) {
            w->ended = TRUE;
            if (local != NULL) {
                g_propagate_error(err, local);
                return FALSE;
            }
            break;
        }
        append(w, ref.container, ref.offset);
    }
    return TRUE;
}

gboolean opt_window_advance(OptWindow *w, ContainerId id, uint32_t offset, GError **err)
{
    if (!fill(w, err))
        return FALSE;
    for (gsize p = w->head; p < w->tail; p++) {
        const Entry *e = AT(w, p);
        if (e->id == id && e->offset == offset) {
            while (w->head <= p)
                pop(w);
            break;
        }
    }
    return fill(w, err);
}

uint64_t opt_window_next_use(const OptWindow *w, ContainerId id)
{
    gsize p = GPOINTER_TO_SIZE(g_hash_table_lookup(w->first, GUINT_TO_POINTER(id)));
    return p != 0 ? (uint64_t)p : OPT_NEVER;
}
