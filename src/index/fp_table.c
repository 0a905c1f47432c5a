/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_table.c: an array of entries (a freed one is reused) and an
 * open_table.h of entry numbers over it, at most three quarters full, each
 * bucket tagged with its fingerprint's hash (a probe reads no entry). */
#include "index/fp_table.h"
#include "cache/structures/open_table.h"

#include <string.h>

#define MIN_BUCKETS 64u
#define MAX_LOAD 75 /* percent */

typedef struct {
    Fingerprint fp;
    ChunkLocation loc; /* loc.offset: the next free entry while free */
} Entry;

struct FpTable {
    Entry *entries;
    uint32_t n_entries, cap_entries; /* handed out (used or free); allocated */
    uint32_t free_head;              /* OPEN_TABLE_NONE: none */
    OpenTable table;
};

/* Fingerprints are uniform: eight of their bytes are the hash. */
static uint64_t hash(const Fingerprint *fp)
{
    uint64_t h;
    memcpy(&h, fp->bytes + 4, sizeof h);
    return h ^ (h >> 29);
}

static uint64_t hash_of(const void *entries, uint32_t e)
{
    return hash(&((const Entry *)entries)[e].fp);
}

static gboolean same(const void *entries, uint32_t e, const void *fp)
{
    return memcmp(((const Entry *)entries)[e].fp.bytes, ((const Fingerprint *)fp)->bytes, FP_SLOT) == 0;
}

FpTable *fp_table_new(void)
{
    FpTable *t = g_new0(FpTable, 1);
    t->free_head = OPEN_TABLE_NONE;
    open_table_init(&t->table, MIN_BUCKETS, MAX_LOAD, OPEN_TABLE_TAGGED);
    return t;
}

void fp_table_free(FpTable *t)
{
    if (t == NULL)
        return;
    g_free(t->entries);
    open_table_free(&t->table);
    g_free(t);
}

const ChunkLocation *fp_table_get(const FpTable *t, const Fingerprint *fp)
{
    uint32_t e = open_table_get(&t->table, t->entries, hash(fp), fp, same);
    return e == OPEN_TABLE_NONE ? NULL : &t->entries[e].loc;
}

void fp_table_put(FpTable *t, const Fingerprint *fp, const ChunkLocation *loc)
{
    uint32_t e = open_table_get(&t->table, t->entries, hash(fp), fp, same);
    if (e != OPEN_TABLE_NONE) {
        t->entries[e].loc = *loc;
        return;
    }
    if (t->free_head != OPEN_TABLE_NONE) {
        e = t->free_head;
        t->free_head = t->entries[e].loc.offset;
    } else {
        if (t->n_entries == t->cap_entries) {
            g_assert(t->cap_entries <= UINT32_MAX / 2);
            t->cap_entries = t->cap_entries ? 2 * t->cap_entries : MIN_BUCKETS;
            t->entries = g_renew(Entry, t->entries, t->cap_entries);
        }
        e = t->n_entries++;
    }
    t->entries[e].fp = *fp;
    t->entries[e].loc = *loc;
    open_table_put(&t->table, t->entries, e, hash_of);
}

/* Take out the entry in bucket b. */
static void remove_at(FpTable *t, uint32_t b)
{
    uint32_t e = open_table_entry(&t->table, b);
    open_table_remove_at(&t->table, t->entries, b, hash_of);
    t->entries[e].loc.offset = t->free_head;
    t->free_head = e;
}

void fp_table_remove_in(FpTable *t, const Fingerprint *fp, ContainerId c)
{
    uint32_t b = open_table_find(&t->table, t->entries, hash(fp), fp, same);
    if (b != OPEN_TABLE_NONE && t->entries[open_table_entry(&t->table, b)].loc.container == c)
        remove_at(t, b);
}

void fp_table_remove(FpTable *t, const Fingerprint *fp)
{
    uint32_t b = open_table_find(&t->table, t->entries, hash(fp), fp, same);
    if (b != OPEN_TABLE_NONE)
        remove_at(t, b);
}

/* In bucket order (as segments files list features). */
void fp_table_foreach(const FpTable *t, void (*fn)(const Fingerprint *fp, const ChunkLocation *loc, void *ctx),
                      void *ctx)
{
    for (uint32_t b = 0; b <= t->table.mask; b++) {
        uint32_t e = open_table_entry(&t->table, b);
        if (e != OPEN_TABLE_NONE)
            fn(&t->entries[e].fp, &t->entries[e].loc, ctx);
    }
}

void fp_table_update(FpTable *t, void (*fn)(ChunkLocation *loc, void *ctx), void *ctx)
{
    for (uint32_t b = 0; b <= t->table.mask; b++) {
        uint32_t e = open_table_entry(&t->table, b);
        if (e != OPEN_TABLE_NONE)
            fn(&t->entries[e].loc, ctx);
    }
}

guint fp_table_size(const FpTable *t)
{
    return t->table.used;
}

size_t fp_table_bytes(const FpTable *t)
{
    return sizeof *t + (size_t)t->cap_entries * sizeof(Entry) + open_table_bytes(&t->table);
}
