/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fragmentation.c: an LRU of container ids over the job's chunk references
 * (see fragmentation.h). */
#include "backup/fragmentation.h"

struct FragmentationMeter {
    unsigned capacity;
    GQueue lru;         /* container ids, most recent first */
    GHashTable *where;  /* container id -> its GList link in lru */
    uint64_t reads, bytes;
};

FragmentationMeter *fragmentation_meter_new(unsigned cache_containers)
{
    g_assert(cache_containers > 0);
    FragmentationMeter *m = g_new0(FragmentationMeter, 1);
    m->capacity = cache_containers;
    g_queue_init(&m->lru);
    m->where = g_hash_table_new(g_direct_hash, g_direct_equal);
    return m;
}

void fragmentation_meter_free(FragmentationMeter *m)
{
    if (m == NULL)
        return;
    g_queue_clear(&m->lru);
    g_hash_table_unref(m->where);
    g_free(m);
}

gboolean fragmentation_meter_touch(FragmentationMeter *m, ContainerId container, uint32_t length)
{
    gpointer key = GUINT_TO_POINTER(container);
    m->bytes += length;
    if (m->lru.head != NULL && m->lru.head->data == key)
        return TRUE; /* the common case: the chunk before was in the same container */
    GList *link = g_hash_table_lookup(m->where, key);
    if (link != NULL) {
        g_queue_unlink(&m->lru, link);
        g_queue_push_head_link(&m->lru, link);
        return TRUE;
    }
    m->reads++;
    if (m->lru.length == m->capacity) {
        gpointer victim = g_queue_pop_tail(&m->lru);
        g_hash_table_remove(m->where, victim);
    }
    g_queue_push_head(&m->lru, key);
    g_hash_table_insert(m->where, key, m->lru.head);
    return FALSE;
}

gboolean fragmentation_meter_holds(const FragmentationMeter *m, ContainerId container)
{
    return g_hash_table_contains(m->where, GUINT_TO_POINTER(container));
}

void fragmentation_meter_add_file(FragmentationMeter *m, const FileRecord *r)
{
    for (guint i = 0; i < r->chunks->len; i++) {
        const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        fragmentation_meter_touch(m, c->container, c->length);
    }
}

uint64_t fragmentation_meter_reads(const FragmentationMeter *m)
{
    return m->reads;
}

double fragmentation_meter_per_mib(const FragmentationMeter *m)
{
    return m->bytes ? (double)m->reads / ((double)m->bytes / (1024.0 * 1024.0)) : 0.0;
}
