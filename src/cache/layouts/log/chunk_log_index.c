/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_index.c: the chunk log's fingerprint table (chunk_log_index.h). */
#include "cache/layouts/log/chunk_log_index.h"

#include <glib.h>
#include <string.h>

#define INITIAL_TABLE 1024u
#define MAX_LOAD 70 /* percent */

static uint64_t hash(const Fingerprint *fp)
{
    uint64_t h;
    memcpy(&h, fp->bytes, sizeof h);
    return h ^ (h >> 32);
}

static uint64_t hash_of(const void *entries, uint32_t e)
{
    return hash(&((const ChunkLogEntry *)entries)[e].fp);
}

static gboolean same(const void *entries, uint32_t e, const void *fp)
{
    return memcmp(((const ChunkLogEntry *)entries)[e].fp.bytes, ((const Fingerprint *)fp)->bytes, FP_SLOT) == 0;
}

void chunk_log_index_init(ChunkLogIndex *x)
{
    memset(x, 0, sizeof *x);
    x->free_head = CHUNK_LOG_NO_ENTRY;
    open_table_init(&x->table, INITIAL_TABLE, MAX_LOAD, OPEN_TABLE_UNTAGGED);
}

void chunk_log_index_clear(ChunkLogIndex *x)
{
    g_free(x->entries);
    open_table_free(&x->table);
    memset(x, 0, sizeof *x);
}

uint32_t chunk_log_index_find(const ChunkLogIndex *x, const Fingerprint *fp)
{
    return open_table_get(&x->table, x->entries, hash(fp), fp, same);
}

uint32_t chunk_log_index_add(ChunkLogIndex *x, const Fingerprint *fp, uint32_t segment, uint32_t offset,
                             uint32_t length, uint32_t stored, uint32_t check)
{
    g_assert(length > 0 && stored > 0 && stored <= length);
    uint32_t e;
    if (x->free_head != CHUNK_LOG_NO_ENTRY) {
        e = x->free_head;
        x->free_head = x->entries[e].offset;
    } else {
        if (x->n_entries == x->cap_entries) {
            x->cap_entries = x->cap_entries ? x->cap_entries * 2 : 1024;
            x->entries = g_renew(ChunkLogEntry, x->entries, x->cap_entries);
        }
        e = x->n_entries++;
    }
    ChunkLogEntry *en = &x->entries[e];
    en->fp = *fp;
    en->segment = segment;
    en->offset = offset;
    en->length = length;
    en->stored = stored;
    en->check = check;
    open_table_put(&x->table, x->entries, e, hash_of);
    return e;
}

void chunk_log_index_remove(ChunkLogIndex *x, uint32_t e)
{
    g_assert(e < x->n_entries && x->entries[e].length > 0);
    open_table_remove(&x->table, x->entries, e, hash_of);
    x->entries[e].length = 0;
    x->entries[e].offset = x->free_head;
    x->free_head = e;
}

uint32_t chunk_log_index_used(const ChunkLogIndex *x)
{
    return x->table.used;
}

size_t chunk_log_index_bytes_of(const ChunkLogIndex *x)
{
    return (size_t)x->cap_entries * sizeof(ChunkLogEntry) + open_table_bytes(&x->table);
}

gboolean chunk_log_index_check(const ChunkLogIndex *x)
{
    uint32_t in_use = 0, free = 0;
    for (uint32_t e = 0; e < x->n_entries; e++) {
        const ChunkLogEntry *en = &x->entries[e];
        if (en->length == 0)
            continue;
        in_use++;
        if (en->stored == 0 || en->stored > en->length || chunk_log_index_find(x, &en->fp) != e)
            return FALSE;
    }
    for (uint32_t e = x->free_head; e != CHUNK_LOG_NO_ENTRY; e = x->entries[e].offset)
        if (e >= x->n_entries || x->entries[e].length != 0 || ++free > x->n_entries)
            return FALSE;
    return in_use == x->table.used && in_use + free == x->n_entries && x->n_entries <= x->cap_entries &&
           open_table_check(&x->table, x->entries, hash_of);
}
