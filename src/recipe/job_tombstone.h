/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_tombstone.h: a deleted job. `destor delete` publishes
 * jobs/NNNNNNNN/deleted (atomically) beside the manifest; from then on the
 * job is gone for every reader, while its manifest stays so that job ids
 * and container counts are never given out twice. Its presence is the
 * fact; its bytes (docs/FORMAT.md) say when, for people. */
#ifndef DESTOR_JOB_TOMBSTONE_H
#define DESTOR_JOB_TOMBSTONE_H

#include <glib.h>
#include <stdint.h>

#define JOB_DELETED_FILE "deleted"

#define JOB_TOMBSTONE_SIZE 28

/* The tombstone's bytes for job `job_id` deleted at `when`. */
void job_tombstone_encode(uint32_t job_id, int64_t when, uint8_t out[JOB_TOMBSTONE_SIZE]);
/* Mark job `job_id` deleted at `when` (Unix seconds), durably. */
gboolean job_tombstone_publish(const char *workdir, uint32_t job_id, int64_t when, GError **err);
/* TRUE when job `job_id` carries a tombstone. */
gboolean job_is_deleted(const char *workdir, uint32_t job_id);

#endif
