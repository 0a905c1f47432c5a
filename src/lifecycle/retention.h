/* SPDX-License-Identifier: GPL-3.0-or-later */
/* retention.h: backup-retention-time (Destor's key), run by backup after a
 * job commits: keep the `keep` newest live jobs, delete the older ones
 * (job_delete.h) and collect (gc.h). Upstream deletes the one job that
 * falls out of the window after each backup; deleting every live job older
 * than the window also covers a setting made smaller, or jobs kept while
 * it was not set. Each step is the command's own, so a kill anywhere leaves
 * what a kill of `destor delete` or `destor gc` leaves. */
#ifndef DESTOR_RETENTION_H
#define DESTOR_RETENTION_H

#include "lifecycle/gc.h"
#include "store/store.h"

#include <glib.h>

typedef struct {
    GArray *deleted; /* uint32_t job ids, ascending */
    gboolean collected; /* gc ran (something was deleted) */
    GcReport gc;
} RetentionReport;

/* With the store open as the writer: *r->deleted is always set (free it
 * with retention_report_clear). gc's `deferred` (a reader holds the store)
 * is no failure: the next gc frees the space. */
gboolean lifecycle_retain(Store *store, guint keep, double live_threshold, RetentionReport *r, GError **err);
void retention_report_clear(RetentionReport *r);

#endif
