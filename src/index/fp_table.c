/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_table.c: linear probing over a power-of-two slot array, deletion by
 * backward shift (no tombstones, so a long run of puts and removes never
 * fills the table with dead slots). */
#include "index/fp_table.h"

#include <string.h>

#define MIN_SLOTS 64u

typedef struct {
    Fingerprint fp;
    ChunkLocation loc;
    gboolean used;
} Slot;

struct FpTable {
    Slot *slots;
    guint mask; /* slot count - 1 */
    guint size;
};

FpTable *fp_table_new(void)
{
    FpTable *t = g_new0(FpTable, 1);
    t->slots = g_new0(Slot, MIN_SLOTS);
    t->mask = MIN_SLOTS - 1;
    return t;
}

void fp_table_free(FpTable *t)
{
    if (t == NULL)
        return;
    g_free(t->slots);
    g_free(t);
}

/* Fingerprints are uniform: eight of their bytes are the hash. */
static guint home(const FpTable *t, const Fingerprint *fp)
{
    uint64_t h;
    memcpy(&h, fp->bytes + 4, sizeof h);
    return (guint)(h ^ (h >> 29)) & t->mask;
}

static guint find(const FpTable *t, const Fingerprint *fp)
{
    guint i = home(t, fp);
    while (t->slots[i].used && memcmp(t->slots[i].fp.bytes, fp->bytes, FP_SLOT) != 0)
        i = (i + 1) & t->mask;
    return i;
}

const ChunkLocation *fp_table_get(const FpTable *t, const Fingerprint *fp)
{
    const Slot *s = &t->slots[find(t, fp)];
    return s->used ? &s->loc : NULL;
}

static void grow(FpTable *t)
{
    Slot *old = t->slots;
    guint n = t->mask + 1;
    t->slots = g_new0(Slot, 2 * n);
    t->mask = 2 * n - 1;
    for (guint i = 0; i < n; i++)
        if (old[i].used)
            t->slots[find(t, &old[i].fp)] = old[i];
    g_free(old);
}

void fp_table_put(FpTable *t, const Fingerprint *fp, const ChunkLocation *loc)
{
    if (4 * (t->size + 1) > 3 * (t->mask + 1)) /* at most three quarters full */
        grow(t);
    Slot *s = &t->slots[find(t, fp)];
    if (!s->used) {
        s->used = TRUE;
        s->fp = *fp;
        t->size++;
    }
    s->loc = *loc;
}

static void remove_at(FpTable *t, guint i)
{
    /* Shift back every later slot of the run that may sit at i. */
    guint j = i;
    for (;;) {
        t->slots[i].used = FALSE;
        for (;;) {
            j = (j + 1) & t->mask;
            if (!t->slots[j].used)
                goto done;
            guint k = home(t, &t->slots[j].fp);
            /* j's entry may move to i unless its home lies cyclically in (i, j] */
            if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                continue;
            break;
        }
        t->slots[i] = t->slots[j];
        i = j;
    }
done:
    t->size--;
}

void fp_table_remove_in(FpTable *t, const Fingerprint *fp, ContainerId c)
{
    guint i = find(t, fp);
    if (t->slots[i].used && t->slots[i].loc.container == c)
        remove_at(t, i);
}

void fp_table_remove(FpTable *t, const Fingerprint *fp)
{
    guint i = find(t, fp);
    if (t->slots[i].used)
        remove_at(t, i);
}

void fp_table_foreach(const FpTable *t, void (*fn)(const Fingerprint *fp, const ChunkLocation *loc, void *ctx),
                      void *ctx)
{
    for (guint i = 0; i <= t->mask; i++)
        if (t->slots[i].used)
            fn(&t->slots[i].fp, &t->slots[i].loc, ctx);
}

void fp_table_update(FpTable *t, void (*fn)(ChunkLocation *loc, void *ctx), void *ctx)
{
    for (guint i = 0; i <= t->mask; i++)
        if (t->slots[i].used)
            fn(&t->slots[i].loc, ctx);
}

guint fp_table_size(const FpTable *t)
{
    return t->size;
}

size_t fp_table_bytes(const FpTable *t)
{
    return sizeof *t + (size_t)(t->mask + 1) * sizeof(Slot);
}
