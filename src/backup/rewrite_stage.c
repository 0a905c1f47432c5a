/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rewrite_stage.c: the rewrite buffer (see rewrite_stage.h). Memory: the
 * segment's chunk data plus about 100 bytes a held chunk. */
#include "backup/rewrite_stage.h"

#include <string.h>

/* One held chunk: what it is, where the index found it, where its data is
 * in the segment, and the reference it fills in. */
typedef struct {
    Fingerprint fp;
    ChunkLocation stored; /* meaningful if its item's container is not REWRITE_NOT_STORED */
    gsize data_off;
    GArray *chunks;       /* the owning record's chunk list (a reference) */
    guint ref_index;
    gint repeat_of;       /* the earlier held chunk of the same fingerprint, or -1 */
    gboolean own;         /* stored in one of this job's own containers: never rewritten */
} Held;

struct RewriteStage {
    RewritePolicy policy;
    unsigned capacity;    /* chunks a segment holds */
    ContainerId own_from; /* this job's first container */
    RewriteSink sink;
    GArray *held;         /* Held */
    GArray *items;        /* RewriteItem, one per held chunk */
    GByteArray *data;
    GHashTable *first;    /* fingerprint (owned copy) -> held index + 1 */
    GQueue waiting;       /* FileRecord shallow copies, in order */
    RewriteTotals totals;
};

RewriteStage *rewrite_stage_new(const RewriteConfig *cfg, size_t container_size, ContainerId own_from,
                                GHashTable *har_sparse, unsigned restore_cache_containers, const RewriteSink *sink)
{
    g_assert(cfg->buffer_chunks > 0);
    RewriteStage *s = g_new0(RewriteStage, 1);
    rewrite_policy_init(&s->policy, cfg, container_size, har_sparse, restore_cache_containers);
    s->capacity = cfg->buffer_chunks;
    s->own_from = own_from;
    s->sink = *sink;
    s->held = g_array_new(FALSE, FALSE, sizeof(Held));
    s->items = g_array_new(FALSE, FALSE, sizeof(RewriteItem));
    s->data = g_byte_array_new();
    s->first = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, g_free, NULL);
    g_queue_init(&s->waiting);
    return s;
}

static void drop_held(RewriteStage *s)
{
    for (guint i = 0; i < s->held->len; i++)
        g_array_unref(g_array_index(s->held, Held, i).chunks);
    g_array_set_size(s->held, 0);
    g_array_set_size(s->items, 0);
    g_byte_array_set_size(s->data, 0);
    g_hash_table_remove_all(s->first);
}

void rewrite_stage_free(RewriteStage *s)
{
    if (s == NULL)
        return;
    drop_held(s);
    g_array_unref(s->held);
    g_array_unref(s->items);
    g_byte_array_unref(s->data);
    g_hash_table_unref(s->first);
    g_queue_clear_full(&s->waiting, (GDestroyNotify)file_record_free);
    rewrite_policy_clear(&s->policy);
    g_free(s);
}

/* Decide the segment, place its chunks in order, then record the entries
 * that waited for them. */
gboolean rewrite_stage_flush(RewriteStage *s, GError **err)
{
    RewriteItem *items = (RewriteItem *)s->items->data;
    rewrite_policy_decide(&s->policy, items, s->items->len);
    gboolean ok = TRUE;
    for (guint i = 0; i < s->held->len && ok; i++) {
        Held *h = &g_array_index(s->held, Held, i);
        ChunkRef *ref = &g_array_index(h->chunks, ChunkRef, h->ref_index);
        ChunkLocation loc = h->stored;
        if (h->repeat_of >= 0) {
            g_assert((guint)h->repeat_of < i);
            const ChunkRef *earlier = &g_array_index(g_array_index(s->held, Held, h->repeat_of).chunks, ChunkRef,
                                                     g_array_index(s->held, Held, h->repeat_of).ref_index);
            loc = (ChunkLocation){ earlier->container, earlier->offset, earlier->length };
        } else if (h->own) {
            g_assert(!items[i].rewrite);
        } else if (items[i].container == REWRITE_NOT_STORED || items[i].rewrite) {
            ok = s->sink.store(s->sink.ctx, &h->fp, s->data->data + h->data_off, items[i].length, &loc, err);
            if (ok && items[i].rewrite) {
                g_assert(loc.container != h->stored.container);
                s->totals.rewritten_chunks++;
                s->totals.rewritten_bytes += items[i].length;
            }
        }
        g_assert(!ok || loc.length == items[i].length);
        ref->container = loc.container;
        ref->offset = loc.offset;
        ref->length = loc.length;
    }
    drop_held(s);
    while (ok && !g_queue_is_empty(&s->waiting)) {
        FileRecord *r = g_queue_pop_head(&s->waiting);
        ok = s->sink.record(s->sink.ctx, r, err);
        file_record_free(r);
    }
    return ok;
}

gboolean rewrite_stage_add_chunk(RewriteStage *s, FileRecord *r, const Fingerprint *fp, const uint8_t *data,
                                 size_t len, const ChunkLocation *stored, GError **err)
{
    ChunkRef placeholder = { .fp = *fp, .container = REWRITE_NOT_STORED, .length = (uint32_t)len };
    g_array_append_val(r->chunks, placeholder);
    Held h = { .fp = *fp, .data_off = s->data->len, .chunks = g_array_ref(r->chunks),
               .ref_index = r->chunks->len - 1, .repeat_of = -1 };
    RewriteItem item = { .container = REWRITE_NOT_STORED, .length = (uint32_t)len };
    gpointer first = g_hash_table_lookup(s->first, fp);
    if (first != NULL) {
        h.repeat_of = GPOINTER_TO_INT(first) - 1;
        item.repeat = TRUE;
    } else if (stored != NULL && stored->container >= s->own_from) {
        /* written by this job already: the policy sees it as placed */
        h.stored = *stored;
        h.own = TRUE;
        item.repeat = TRUE;
    } else {
        g_hash_table_insert(s->first, g_memdup2(fp, sizeof *fp), GINT_TO_POINTER((gint)s->held->len + 1));
        g_byte_array_append(s->data, data, (guint)len);
        if (stored != NULL) {
            h.stored = *stored;
            item.container = stored->container;
        }
    }
    g_array_append_val(s->held, h);
    g_array_append_val(s->items, item);
    return s->held->len < s->capacity || rewrite_stage_flush(s, err);
}

gboolean rewrite_stage_add_entry(RewriteStage *s, const FileRecord *r, GError **err)
{
    if (s->held->len == 0 && g_queue_is_empty(&s->waiting))
        return s->sink.record(s->sink.ctx, r, err);
    g_queue_push_tail(&s->waiting, file_record_share(r)); /* its chunk list is filled in later */
    return TRUE;
}

RewriteTotals rewrite_stage_totals(const RewriteStage *s)
{
    return s->totals;
}
