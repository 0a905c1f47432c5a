/* SPDX-License-Identifier: GPL-3.0-or-later */
/* retention.c: the live jobs past the newest `keep`, deleted, then gc. */
#include "lifecycle/retention.h"
#include "lifecycle/job_delete.h"
#include "recipe/job_catalog.h"

#include <string.h>

gboolean lifecycle_retain(Store *store, guint keep, double live_threshold, RetentionReport *r, GError **err)
{
    g_assert(keep > 0);
    memset(r, 0, sizeof *r);
    r->deleted = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *live = job_catalog_list_live(store->dir, err);
    if (live == NULL)
        return FALSE;
    if (live->len > keep)
        g_array_append_vals(r->deleted, live->data, live->len - keep);
    g_array_unref(live);
    if (r->deleted->len == 0)
        return TRUE;
    if (!lifecycle_delete(store, (const uint32_t *)(const void *)r->deleted->data, r->deleted->len, err))
        return FALSE;
    r->collected = TRUE;
    return lifecycle_gc(store, live_threshold, NULL, NULL, &r->gc, err);
}

void retention_report_clear(RetentionReport *r)
{
    if (r->deleted != NULL)
        g_array_unref(r->deleted);
    r->deleted = NULL;
}
