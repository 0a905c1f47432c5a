/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_lru.c: hash table + recency queue of container buffers (or, over
 * a source that maps, of mappings); the victim is the queue's tail, or,
 * given next uses, the farthest used. A clear keeps the slots' buffers for
 * the next fills (a reader clears between requests: a fresh 2 MiB buffer
 * each time cost the kernel's page faults and zeroing, more than the read
 * into it from the SSD cache). */
#include "read/container_lru.h"

typedef struct {
    ContainerId id;
    uint8_t *buf;          /* over a source that reads */
    const uint8_t *mapped; /* over a source that maps: the container, until unmapped */
    GList link; /* in the recency queue; data points back at the slot */
} Slot;

struct ContainerLru {
    ContainerSource *src;
    guint capacity;
    GHashTable *slots; /* id -> Slot* */
    GQueue recency;    /* head = most recent */
    GSList *spare;     /* Slot*: emptied by a clear, their buffers kept (at most capacity) */
    uint64_t fetches;
    gboolean ids_only; /* slots hold no bytes */
    ContainerNextUse next_use; /* NULL: evict the least recent */
    void *next_use_ctx;
};

ContainerLru *container_lru_new(ContainerSource *src, guint capacity)
{
    ContainerLru *lru = g_new0(ContainerLru, 1);
    lru->src = src;
    lru->capacity = capacity > 0 ? capacity : 1;
    lru->slots = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_queue_init(&lru->recency);
    return lru;
}

static void slot_free(ContainerLru *lru, Slot *s)
{
    container_source_unmap(lru->src, s->mapped);
    container_buffer_free(s->buf);
    g_free(s);
}

void container_lru_clear(ContainerLru *lru)
{
    GList *l;
    while ((l = g_queue_pop_head_link(&lru->recency)) != NULL) {
        Slot *s = l->data;
        container_source_unmap(lru->src, s->mapped);
        s->mapped = NULL;
        lru->spare = g_slist_prepend(lru->spare, s);
    }
    g_hash_table_remove_all(lru->slots);
    g_assert(g_slist_length(lru->spare) <= lru->capacity);
}

ContainerLru *container_lru_new_ids_only(ContainerSource *src, guint capacity)
{
    ContainerLru *lru = container_lru_new(src, capacity);
    lru->ids_only = TRUE;
    return lru;
}

ContainerLru *container_lru_new_by_next_use(ContainerSource *src, guint capacity, gboolean ids_only,
                                            ContainerNextUse next_use, void *ctx)
{
    ContainerLru *lru = container_lru_new(src, capacity);
    lru->ids_only = ids_only;
    lru->next_use = next_use;
    lru->next_use_ctx = ctx;
    return lru;
}

/* The slot to give up: the least recent, or the one used farthest ahead
 * (the least recent of those never used again). */
static GList *victim(ContainerLru *lru)
{
    GList *pick = lru->recency.tail;
    if (lru->next_use == NULL)
        return pick;
    uint64_t farthest = 0;
    for (GList *l = lru->recency.tail; l != NULL; l = l->prev) {
        uint64_t when = lru->next_use(lru->next_use_ctx, ((Slot *)l->data)->id);
        if (when > farthest) {
            farthest = when;
            pick = l;
        }
        if (when == G_MAXUINT64)
            break;
    }
    return pick;
}

void container_lru_free(ContainerLru *lru)
{
    if (lru == NULL)
        return;
    container_lru_clear(lru);
    for (GSList *l = lru->spare; l != NULL; l = l->next)
        slot_free(lru, l->data);
    g_slist_free(lru->spare);
    g_hash_table_destroy(lru->slots);
    g_free(lru);
}

static Slot *lookup_or_fetch(ContainerLru *lru, ContainerId id, GError **err)
{
    Slot *s = g_hash_table_lookup(lru->slots, GUINT_TO_POINTER(id));
    if (s != NULL) {
        g_queue_unlink(&lru->recency, &s->link);
        g_queue_push_head_link(&lru->recency, &s->link);
        return s;
    }
    if (g_hash_table_size(lru->slots) >= lru->capacity) {
        GList *old = victim(lru);
        g_queue_unlink(&lru->recency, old);
        s = old->data;
        g_hash_table_remove(lru->slots, GUINT_TO_POINTER(s->id));
        container_source_unmap(lru->src, s->mapped);
        s->mapped = NULL;
    } else if (lru->spare != NULL) {
        s = lru->spare->data;
        lru->spare = g_slist_delete_link(lru->spare, lru->spare);
    } else {
        s = g_new0(Slot, 1);
        s->buf = lru->ids_only || container_source_maps(lru->src) ? NULL : container_buffer_new(lru->src->container_size);
        s->link.data = s;
    }
    lru->fetches++;
    gboolean ok = lru->ids_only ? container_source_read(lru->src, id, NULL, err)
                : s->buf == NULL ? container_source_map(lru->src, id, &s->mapped, err)
                                 : container_source_read_buffer(lru->src, id, &s->buf, err);
    if (!ok) {
        slot_free(lru, s);
        return NULL;
    }
    s->id = id;
    g_hash_table_insert(lru->slots, GUINT_TO_POINTER(id), s);
    g_queue_push_head_link(&lru->recency, &s->link);
    return s;
}

const uint8_t *container_lru_get(ContainerLru *lru, ContainerId id, GError **err)
{
    g_assert(!lru->ids_only);
    Slot *s = lookup_or_fetch(lru, id, err);
    return s == NULL ? NULL : s->mapped != NULL ? s->mapped : s->buf;
}

const uint8_t *container_lru_reread(ContainerLru *lru, ContainerId id, GError **err)
{
    g_assert(!lru->ids_only);
    Slot *s = g_hash_table_lookup(lru->slots, GUINT_TO_POINTER(id));
    g_assert(s != NULL); /* just given by get() */
    /* a source that maps is the store's own: it keeps no copies to reread */
    g_assert(s->mapped == NULL || lru->src->reread == NULL);
    if (s->mapped == NULL && container_source_reread(lru->src, id, s->buf, err))
        return s->buf;
    /* a failed read leaves the buffer undefined: forget it */
    g_queue_unlink(&lru->recency, &s->link);
    g_hash_table_remove(lru->slots, GUINT_TO_POINTER(id));
    slot_free(lru, s);
    return NULL;
}

gboolean container_lru_touch(ContainerLru *lru, ContainerId id, GError **err)
{
    return lookup_or_fetch(lru, id, err) != NULL;
}

uint64_t container_lru_fetches(const ContainerLru *lru)
{
    return lru->fetches;
}

size_t container_lru_container_size(const ContainerLru *lru)
{
    return lru->src->container_size;
}
