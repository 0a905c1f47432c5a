/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backup.h: `destor backup PATH`: run the pipeline (read -> chunk -> hash
 * -> dedup/store, one thread each, bounded queues between) into a new job,
 * commit it, and print Destor-style statistics. */
#ifndef DESTOR_BACKUP_H
#define DESTOR_BACKUP_H

#include "config/config.h"

#include <glib.h>

typedef struct {
    gboolean one_file_system; /* --one-file-system: stay on the root's file system */
    gboolean json;            /* --json: the summary as a destor.backup document */
    gboolean no_files_cache;  /* --no-files-cache: read every file (backup/files_cache.h) */
} BackupOptions;

/* Entries that cannot be read are skipped with a warning; the job still
 * commits what was read, and then backup_run fails (DESTOR_ERROR_IO, exit
 * 1) naming how many were skipped and the first, so a partial backup never
 * looks like a whole one. */
gboolean backup_run(const Config *cfg, const char *path, const BackupOptions *opt, GError **err);

#endif
