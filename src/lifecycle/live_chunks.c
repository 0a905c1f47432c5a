/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_chunks.c: a sorted set of chunk locations (see live_chunks.h). */
#include "lifecycle/live_chunks.h"

static gint by_location(gconstpointer a, gconstpointer b)
{
    const LiveChunk *x = a, *y = b;
    if (x->container != y->container)
        return x->container < y->container ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

GArray *live_chunks_new(void)
{
    return g_array_new(FALSE, FALSE, sizeof(LiveChunk));
}

void live_chunks_add(GArray *chunks, ContainerId container, uint32_t offset, uint32_t length)
{
    LiveChunk c = { container, offset, length };
    g_array_append_val(chunks, c);
}

void live_chunks_seal(GArray *chunks)
{
    g_array_sort(chunks, by_location);
    guint kept = 0;
    LiveChunk *c = (LiveChunk *)chunks->data;
    for (guint i = 0; i < chunks->len; i++)
        if (kept == 0 || by_location(&c[kept - 1], &c[i]) != 0)
            c[kept++] = c[i];
    g_array_set_size(chunks, kept);
}

guint live_chunks_first(const GArray *chunks, ContainerId container)
{
    const LiveChunk *c = (const LiveChunk *)chunks->data;
    guint lo = 0, hi = chunks->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (c[mid].container < container)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

gint64 live_chunks_find(const GArray *chunks, ContainerId container, uint32_t offset)
{
    const LiveChunk key = { container, offset, 0 };
    const LiveChunk *c = (const LiveChunk *)chunks->data;
    guint lo = 0, hi = chunks->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        int cmp = by_location(&c[mid], &key);
        if (cmp == 0)
            return mid;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
