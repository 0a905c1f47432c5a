/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_dir.h: a directory of a job, listed from its recipe index when it
 * is visited: the paths below "dir/" are one run of the index's keys in
 * byte order, and each child's own entries below it are skipped by one
 * seek, so listing costs a seek per child, whatever lies deeper, and the
 * job is never read whole. */
#ifndef DESTOR_MOUNT_DIR_H
#define DESTOR_MOUNT_DIR_H

#include "read/job.h"

#include <glib.h>

/* One entry's name (a plain name: not empty, ".", ".." and without '/'
 * or NUL; stored names that are not are never listed). FALSE stops the
 * listing. */
typedef gboolean (*MountDirFn)(void *ctx, const char *name);

/* Each entry of the directory `dir` of job ("" its top, no leading or
 * trailing '/'), in byte order: the entries with a record, and the
 * directories the job has entries below without one. */
gboolean mount_dir_list(Job *job, const char *dir, MountDirFn fn, void *ctx, GError **err);

/* Has the job entries below `dir` (a directory without a record of its
 * own still is one)? */
gboolean mount_dir_has_entries(Job *job, const char *dir, gboolean *has, GError **err);

#endif
