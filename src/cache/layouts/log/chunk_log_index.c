/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_index.c: the chunk log's fingerprint table (chunk_log_index.h). */
#include "cache/layouts/log/chunk_log_index.h"

#include <glib.h>
#include <string.h>

#define INITIAL_TABLE 1024u

static uint32_t home(const ChunkLogIndex *x, const Fingerprint *fp)
{
    uint64_t h;
    memcpy(&h, fp->bytes, sizeof h);
    return (uint32_t)(h ^ (h >> 32)) & x->mask;
}

void chunk_log_index_init(ChunkLogIndex *x)
{
    memset(x, 0, sizeof *x);
    x->free_head = CHUNK_LOG_NO_ENTRY;
    x->table = g_new0(uint32_t, INITIAL_TABLE);
    x->mask = INITIAL_TABLE - 1;
}

void chunk_log_index_clear(ChunkLogIndex *x)
{
    g_free(x->entries);
    g_free(x->table);
    memset(x, 0, sizeof *x);
}

uint32_t chunk_log_index_find(const ChunkLogIndex *x, const Fingerprint *fp)
{
    for (uint32_t i = home(x, fp);; i = (i + 1) & x->mask) {
        uint32_t v = x->table[i];
        if (v == 0)
            return CHUNK_LOG_NO_ENTRY;
        if (memcmp(x->entries[v - 1].fp.bytes, fp->bytes, FP_SLOT) == 0)
            return v - 1;
    }
}

static void place(ChunkLogIndex *x, uint32_t e)
{
    uint32_t i = home(x, &x->entries[e].fp);
    while (x->table[i] != 0)
        i = (i + 1) & x->mask;
    x->table[i] = e + 1;
}

static void grow(ChunkLogIndex *x)
{
    uint32_t *old = x->table;
    uint32_t old_size = x->mask + 1;
    g_assert(old_size <= UINT32_MAX / 2);
    x->table = g_new0(uint32_t, (size_t)old_size * 2);
    x->mask = old_size * 2 - 1;
    for (uint32_t i = 0; i < old_size; i++)
        if (old[i] != 0)
            place(x, old[i] - 1);
    g_free(old);
}

uint32_t chunk_log_index_add(ChunkLogIndex *x, const Fingerprint *fp, uint32_t segment, uint32_t offset,
                             uint32_t length, uint32_t stored)
{
    g_assert(length > 0 && stored > 0 && stored <= length);
    if ((uint64_t)(x->used + 1) * 10 > (uint64_t)(x->mask + 1) * 7)
        grow(x);
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
    place(x, e);
    x->used++;
    return e;
}

void chunk_log_index_remove(ChunkLogIndex *x, uint32_t e)
{
    g_assert(e < x->n_entries && x->entries[e].length > 0);
    uint32_t i = home(x, &x->entries[e].fp);
    while (x->table[i] != e + 1) {
        g_assert(x->table[i] != 0);
        i = (i + 1) & x->mask;
    }
    /* Backward shift: move later members of the run into the hole when
     * their home is not between the hole and them. */
    for (uint32_t j = (i + 1) & x->mask; x->table[j] != 0; j = (j + 1) & x->mask) {
        uint32_t k = home(x, &x->entries[x->table[j] - 1].fp);
        gboolean stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            x->table[i] = x->table[j];
            i = j;
        }
    }
    x->table[i] = 0;
    x->entries[e].length = 0;
    x->entries[e].offset = x->free_head;
    x->free_head = e;
    x->used--;
}

size_t chunk_log_index_bytes_of(const ChunkLogIndex *x)
{
    return (size_t)x->cap_entries * sizeof(ChunkLogEntry) + ((size_t)x->mask + 1) * sizeof(uint32_t);
}
