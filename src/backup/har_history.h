/* SPDX-License-Identifier: GPL-3.0-or-later */
/* har_history.h: HAR's memory of the last backup (Fu et al., ATC'14). A
 * job with rewrite-enable-har records how much of each container it used
 * (the bytes of the distinct chunks it references there) in its directory,
 * `container_utilization` (docs/FORMAT.md); the next job reads the newest
 * live job's record and rewrites the duplicates that sit in the containers
 * it found sparse. */
#ifndef DESTOR_HAR_HISTORY_H
#define DESTOR_HAR_HISTORY_H

#include "config/rewrite_config.h"
#include "recipe/file_record.h"

#include <glib.h>
#include <stdint.h>

#define HAR_MAGIC "DPLCHAR1"

typedef struct HarUsage HarUsage;

HarUsage *har_usage_new(void);
void har_usage_free(HarUsage *u);
/* Count the distinct chunks of one recorded entry. */
void har_usage_add_file(HarUsage *u, const FileRecord *r);
/* Publish the record in job_dir (atomically, the bytes durably; the caller
 * fsyncs job_dir before anything relies on the file). */
gboolean har_usage_save(const HarUsage *u, const char *job_dir, uint32_t container_size, GError **err);

/* The containers the newest live job before `job_id` left sparse, the
 * sparsest first as far as rewrite-har-rewrite-limit allows (a set of
 * ContainerId); an empty set when that job left no record. A damaged record
 * is warned about and gives an empty set: HAR only decides what to write
 * again, never what a job references. NULL on an I/O error. */
GHashTable *har_sparse_load(const char *workdir, uint32_t job_id, const RewriteConfig *cfg, GError **err);

#endif
