/* SPDX-License-Identifier: GPL-3.0-or-later */
/* index_survivors.c: reading the live records again for the references to
 * fingerprints whose index entries gc removed (see index_survivors.h). */
#include "lifecycle/index_survivors.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "store/freed_list.h"

static gint by_value(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static gboolean removed_has(const GArray *removed, uint64_t prefix)
{
    guint lo = 0, hi = removed->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        uint64_t v = g_array_index(removed, uint64_t, mid);
        if (v == prefix)
            return TRUE;
        if (v < prefix)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FALSE;
}

static gboolean restore_job(Store *s, FpIndex *idx, const GArray *removed, const GArray *freed, uint32_t containers,
                            uint32_t job_id, uint64_t *put, GError **err)
{
    JobMetaReader *meta = job_catalog_open_records(s->dir, job_id, err);
    if (meta == NULL)
        return FALSE;
    FileRecord *rec;
    GError *local = NULL;
    gboolean ok = TRUE;
    while (ok && (rec = job_meta_reader_next(meta, &local)) != NULL) {
        for (guint i = 0; i < rec->chunks->len && ok; i++) {
            const ChunkRef *c = &g_array_index(rec->chunks, ChunkRef, i);
            if (c->container >= containers || freed_list_has(freed, c->container) ||
                !removed_has(removed, fp_index_prefix(&c->fp)))
                continue;
            ChunkLocation loc = { c->container, c->offset, c->length };
            ChunkLocation at;
            gboolean found;
            ok = fp_index_lookup(idx, &c->fp, &at, &found, err) && (found || fp_index_put(idx, &c->fp, &loc, err));
            *put += ok && !found;
        }
        file_record_free(rec);
    }
    job_meta_reader_close(meta);
    if (local != NULL) {
        g_propagate_prefixed_error(err, local, "job %u: ", job_id);
        return FALSE;
    }
    return ok;
}

gboolean index_survivors_restore(Store *s, FpIndex *idx, GArray *removed, const GArray *freed, uint32_t containers,
                                 uint64_t *put, GError **err)
{
    *put = 0;
    if (removed->len == 0)
        return TRUE;
    g_array_sort(removed, by_value);
    GArray *jobs = job_catalog_list_live(s->dir, err);
    if (jobs == NULL)
        return FALSE;
    gboolean ok = TRUE;
    for (guint i = 0; i < jobs->len && ok; i++)
        ok = restore_job(s, idx, removed, freed, containers, g_array_index(jobs, uint32_t, i), put, err);
    g_array_unref(jobs);
    return ok;
}
