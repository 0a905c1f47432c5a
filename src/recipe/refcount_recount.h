/* SPDX-License-Identifier: GPL-3.0-or-later */
/* refcount_recount.h: the current reference counts after a deletion.
 *
 * Deleting a job changes the counts of every container it referenced, in
 * the newest committed job's refcount file (the current copy). Two files
 * change (the tombstone, the counts), so the change is bracketed by a mark,
 * jobs/REFCOUNT-DIRTY, published before the first and removed after the
 * last: while it exists the current counts may be stale, verify does not
 * hold them against the recipes, and the next writer (backup, delete, gc,
 * repair) counts them again before it uses them. */
#ifndef DESTOR_REFCOUNT_RECOUNT_H
#define DESTOR_REFCOUNT_RECOUNT_H

#include <glib.h>
#include <stdint.h>

#define REFCOUNT_DIRTY_FILE "REFCOUNT-DIRTY"

/* Publish the mark (durably). */
gboolean refcount_mark_dirty(const char *workdir, GError **err);
gboolean refcount_is_dirty(const char *workdir);
/* Count every live job's records into the newest committed job's refcount
 * (`containers` entries: the containers the store vouches for, store.h),
 * publish it, and remove the mark. */
gboolean refcount_recount(const char *workdir, uint32_t containers, GError **err);
/* refcount_recount() when the mark is there (a delete or gc was stopped). */
gboolean refcount_settle(const char *workdir, uint32_t containers, GError **err);

#endif
