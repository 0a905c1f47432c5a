/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_delete.h: deleting committed jobs (`destor delete`, and later a
 * retention rule run after each backup).
 *
 * A delete is immediate for readers and changes no container: each job
 * gets its tombstone (job_tombstone.h) and the current reference counts are
 * counted again over the jobs left (refcount_recount.h, bracketed by its
 * mark so that a kill at any step leaves either the old counts marked
 * stale or the new ones). The space comes back at the next `destor gc`.
 * There is no undelete: a tombstone is final (gc may have freed the
 * containers behind it by the time anyone asks). */
#ifndef DESTOR_JOB_DELETE_H
#define DESTOR_JOB_DELETE_H

#include "store/store.h"

#include <glib.h>
#include <stdint.h>

/* Delete jobs ids[0..n) of the store opened as a writer. Every id must be a
 * committed job not deleted yet, and named once: otherwise a USAGE error
 * naming it, and nothing changed. */
gboolean lifecycle_delete(Store *store, const uint32_t *ids, guint n, GError **err);

#endif
