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

/* One entry of a directory. */
typedef struct {
    const char *name;        /* a plain name: not empty, ".", ".." and without '/' or NUL (stored
                                names that are not are never listed) */
    const GByteArray *path;  /* its path in the job, as the recipe index holds it */
    gboolean has_record;     /* FALSE: a directory the job has entries below, without a record */
    uint64_t offset;         /* the record's place in job_meta_data (job_record_at) */
    uint32_t length;
} MountDirEntry;

/* FALSE stops the listing. */
typedef gboolean (*MountDirFn)(void *ctx, const MountDirEntry *e);

/* Each entry of the directory `dir` of job ("" its top, no leading or
 * trailing '/'), in byte order: the entries with a record, and the
 * directories the job has entries below without one. The listing starts
 * at `from` (empty: the first entry) and leaves there the entry fn
 * refused (FALSE), so that a listing read a buffer at a time goes on from
 * where it stopped without reading its start again; *ended: fn took every
 * entry to the last. */
gboolean mount_dir_list(Job *job, const char *dir, GByteArray *from, MountDirFn fn, void *ctx, gboolean *ended,
                        GError **err);

/* Has the job entries below `dir` (a directory without a record of its
 * own still is one)? */
gboolean mount_dir_has_entries(Job *job, const char *dir, gboolean *has, GError **err);

#endif
