/* SPDX-License-Identifier: GPL-3.0-or-later */
/* locality_cache.c: one fingerprint table over every cached container's
 * chunks, and per container the list of its fingerprints so eviction can
 * take them out again. */
#include "index/locality_cache.h"
#include "index/fp_table.h"
#include "storage/container.h"

typedef struct {
    ContainerId id;
    Fingerprint *fps;
    guint n;
} Cached;

struct LocalityCache {
    guint capacity;
    FpTable *chunks;   /* fingerprint -> location, over all cached containers */
    GQueue lru;        /* Cached*, most recent at the head */
    GHashTable *by_id; /* ContainerId -> GList* in lru */
    size_t list_bytes; /* the Cached records and their fingerprint lists */
};

LocalityCache *locality_cache_new(guint containers)
{
    g_assert(containers >= 1);
    LocalityCache *c = g_new0(LocalityCache, 1);
    c->capacity = containers;
    c->chunks = fp_table_new();
    g_queue_init(&c->lru);
    c->by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
    return c;
}

static void drop(LocalityCache *c, GList *link)
{
    Cached *e = link->data;
    for (guint i = 0; i < e->n; i++)
        fp_table_remove_in(c->chunks, &e->fps[i], e->id);
    g_hash_table_remove(c->by_id, GUINT_TO_POINTER(e->id));
    g_queue_delete_link(&c->lru, link);
    c->list_bytes -= sizeof *e + e->n * sizeof(Fingerprint);
    g_free(e->fps);
    g_free(e);
}

void locality_cache_free(LocalityCache *c)
{
    if (c == NULL)
        return;
    while (c->lru.head != NULL)
        drop(c, c->lru.head);
    fp_table_free(c->chunks);
    g_hash_table_destroy(c->by_id);
    g_free(c);
}

void locality_cache_touch(LocalityCache *c, ContainerId id)
{
    GList *link = g_hash_table_lookup(c->by_id, GUINT_TO_POINTER(id));
    if (link == NULL)
        return;
    g_queue_unlink(&c->lru, link);
    g_queue_push_head_link(&c->lru, link);
}

gboolean locality_cache_lookup(LocalityCache *c, const Fingerprint *fp, ChunkLocation *loc)
{
    const ChunkLocation *hit = fp_table_get(c->chunks, fp);
    if (hit == NULL)
        return FALSE;
    *loc = *hit;
    g_assert(locality_cache_holds(c, hit->container)); /* every table entry belongs to a cached container */
    locality_cache_touch(c, hit->container);
    return TRUE;
}

gboolean locality_cache_holds(const LocalityCache *c, ContainerId id)
{
    return g_hash_table_contains(c->by_id, GUINT_TO_POINTER(id));
}

void locality_cache_insert(LocalityCache *c, const uint8_t *container, size_t size)
{
    ContainerId id = container_id_of(container);
    if (locality_cache_holds(c, id))
        return;
    if (c->lru.length == c->capacity)
        drop(c, c->lru.tail);
    Cached *e = g_new(Cached, 1);
    e->id = id;
    e->n = container_chunk_count(container);
    e->fps = g_new(Fingerprint, e->n);
    ChunkLocation loc = { .container = id };
    for (guint i = 0; i < e->n; i++) {
        container_chunk_entry(container, size, i, &e->fps[i], &loc.offset, &loc.length);
        fp_table_put(c->chunks, &e->fps[i], &loc);
    }
    c->list_bytes += sizeof *e + e->n * sizeof(Fingerprint);
    g_queue_push_head(&c->lru, e);
    g_hash_table_insert(c->by_id, GUINT_TO_POINTER(id), c->lru.head);
}

size_t locality_cache_bytes(const LocalityCache *c)
{
    return fp_table_bytes(c->chunks) + c->list_bytes + c->lru.length * (sizeof(GList) + 3 * sizeof(gpointer));
}

gboolean locality_cache_prefetch(LocalityCache *c, ContainerSource *pool, ContainerId id, uint8_t *buf,
                                 GError **err)
{
    gboolean sound;
    if (!fp_index_read_sound(pool, id, buf, &sound, err))
        return FALSE;
    if (sound)
        locality_cache_insert(c, buf, pool->container_size);
    return TRUE;
}
