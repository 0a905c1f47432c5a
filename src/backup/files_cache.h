/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files_cache.h: backup's files cache, as restic's and borg's. A later
 * backup of the same source path takes the newest live job of that path
 * (the parent) and walks its records alongside the tree, both in walk
 * order; a regular file whose device, inode, size, mtime, ctime (ns) and
 * permission bits all equal its parent record's status is not read: the
 * parent's record, equal field by field to the one a read would make, is
 * the new job's, and the store stage takes its chunk list as if the file
 * had been read and cut (job_writer_add_known_file: a chunk the index no
 * longer finds is read from where the record names it, checked against its
 * fingerprint), so the job is what a full backup would have written. No parent: a job of another path, a
 * deleted one, one without a file_status (older, or the files cache off),
 * or cut with other chunking parameters. A parent's entry is not trusted
 * when the file changed while it was read, or its ctime lies within
 * FILES_CACHE_RACY_NS of that job's start: a change in the same timestamp
 * tick as the parent's read would leave the status as it was ("racy git").
 * Used by the walker thread only. */
#ifndef DESTOR_FILES_CACHE_H
#define DESTOR_FILES_CACHE_H

#include "config/config.h"
#include "recipe/file_record.h"

#include <glib.h>
#include <stdint.h>
#include <sys/stat.h>

/* 2 s: the coarsest timestamp of common file systems (FAT's mtime). */
#define FILES_CACHE_RACY_NS 2000000000LL

typedef struct FilesCache FilesCache;

/* The files cache of a backup of `source_root` into the store in workdir,
 * or NULL (err unset) when no job can be its parent; a parent whose status
 * cannot be read is warned about and not used. */
FilesCache *files_cache_open(const char *workdir, const char *source_root, const Config *cfg, GError **err);
uint32_t files_cache_parent(const FilesCache *fc);
/* The parent's record of the regular file at `rel` (its path in the tree)
 * whose status is *st, when the file is unchanged since the parent read it
 * (its permission bits too), else NULL: a record equal to the one a read
 * of the file would make, stored as it is. Calls come in walk order. The
 * caller owns the record. */
FileRecord *files_cache_take(FilesCache *fc, const char *rel, size_t rel_len, const struct stat *st);
/* Once the walk is over: stop the thread that reads the parent's records
 * ahead (files_cache_take no longer applies) and give its CPU time. */
double files_cache_reader_cpu_seconds(FilesCache *fc);
void files_cache_close(FilesCache *fc);

/* Walk order of two paths: component by component, names by their bytes,
 * a directory before what it holds (<0, 0, >0). */
int files_cache_walk_order(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
