/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_delete.c: tombstones and a recount (see job_delete.h). */
#include "lifecycle/job_delete.h"
#include "recipe/job_catalog.h"
#include "util/error.h"

/* Every id committed, live and named once; nothing is written before. */
static gboolean check_ids(const Store *store, const uint32_t *ids, guint n, GError **err)
{
    for (guint i = 0; i < n; i++) {
        for (guint j = 0; j < i; j++)
            if (ids[j] == ids[i]) {
                g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "job %u is named twice", ids[i]);
                return FALSE;
            }
        JobManifest m;
        if (!job_manifest_load(store->dir, ids[i], &m, err))
            return FALSE;
        job_manifest_clear(&m);
    }
    return TRUE;
}

gboolean lifecycle_delete(Store *store, const uint32_t *ids, guint n, GError **err)
{
    g_assert(store->lock_fd >= 0); /* the writer */
    if (!check_ids(store, ids, n, err) || !store_mark_refcounts_stale(store, err))
        return FALSE;
    int64_t now = g_get_real_time() / G_USEC_PER_SEC;
    for (guint i = 0; i < n; i++)
        if (!store_publish_tombstone(store, ids[i], now, err))
            return FALSE;
    return store_settle_refcounts(store, err);
}
