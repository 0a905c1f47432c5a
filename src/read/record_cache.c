/* SPDX-License-Identifier: GPL-3.0-or-later */
/* record_cache.c: a read session's decoded file records, least recent out
 * first (record_cache.h). */
#include "read/record_cache.h"

typedef struct {
    char *key; /* "job:path" */
    FileRecord *record;
    GList *link; /* in order */
} Kept;

struct RecordCache {
    GHashTable *by_key; /* key -> Kept */
    GQueue order;       /* Kept, most recent first */
    size_t chunks, max_chunks;
};

static void kept_free(Kept *k)
{
    file_record_free(k->record);
    g_free(k->key);
    g_free(k);
}

RecordCache *record_cache_new(size_t max_chunks)
{
    RecordCache *rc = g_new0(RecordCache, 1);
    rc->by_key = g_hash_table_new(g_str_hash, g_str_equal);
    g_queue_init(&rc->order);
    rc->max_chunks = max_chunks;
    return rc;
}

void record_cache_free(RecordCache *rc)
{
    if (rc == NULL)
        return;
    g_hash_table_destroy(rc->by_key);
    g_queue_clear_full(&rc->order, (GDestroyNotify)kept_free);
    g_free(rc);
}

static char *key_of(uint32_t job, const char *path)
{
    return g_strdup_printf("%u:%s", job, path);
}

static void forget(RecordCache *rc, Kept *k)
{
    g_hash_table_remove(rc->by_key, k->key);
    g_queue_delete_link(&rc->order, k->link);
    rc->chunks -= k->record->chunks->len;
    kept_free(k);
}

FileRecord *record_cache_get(RecordCache *rc, uint32_t job, const char *path)
{
    char *key = key_of(job, path);
    Kept *k = g_hash_table_lookup(rc->by_key, key);
    g_free(key);
    if (k == NULL)
        return NULL;
    g_queue_unlink(&rc->order, k->link);
    g_queue_push_head_link(&rc->order, k->link);
    return file_record_share(k->record);
}

void record_cache_put(RecordCache *rc, uint32_t job, const char *path, const FileRecord *r)
{
    char *key = key_of(job, path);
    Kept *old = g_hash_table_lookup(rc->by_key, key);
    if (old != NULL)
        forget(rc, old);
    if (r->chunks->len > rc->max_chunks) {
        g_free(key);
        return;
    }
    while (rc->chunks + r->chunks->len > rc->max_chunks)
        forget(rc, g_queue_peek_tail(&rc->order));
    Kept *k = g_new(Kept, 1);
    k->key = key;
    k->record = file_record_share(r);
    g_queue_push_head(&rc->order, k);
    k->link = rc->order.head;
    g_hash_table_insert(rc->by_key, k->key, k);
    rc->chunks += r->chunks->len;
    g_assert(rc->chunks <= rc->max_chunks);
}

size_t record_cache_chunks(const RecordCache *rc)
{
    return rc->chunks;
}
