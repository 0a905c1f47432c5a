/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job.h: a committed job opened for reading: its manifest, job_meta_data
 * and recipe offset index. Lookup of one path costs one index probe and one
 * record read, whatever the job's size. */
#ifndef DESTOR_JOB_H
#define DESTOR_JOB_H

#include "recipe/file_record.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "recipe/recipe_index.h"
#include "store/store.h"

typedef struct {
    JobManifest manifest;
    JobMetaReader *meta;
    RecipeIndex *recipes;
} Job;

/* A missing or deleted job is a USAGE error. */
Job *job_open(const Store *store, uint32_t job_id, GError **err);
/* A deleted job too, while its records are there (verify of a snapshot). */
Job *job_open_any(const Store *store, uint32_t job_id, GError **err);
void job_close(Job *job);

/* The entry stored under `path` ("a/b", leading "/" or "./" ignored). A path
 * not in the job is a USAGE error. */
FileRecord *job_find(Job *job, const char *path, GError **err);

/* The record the recipe index puts at (offset, length) for `path`
 * (path_len bytes, as the index holds it): an INTEGRITY error when the
 * record there is another path's (a damaged index). Read through the
 * caller's window of records when w is not NULL (job_meta.h). */
FileRecord *job_record_at(Job *job, JobMetaWindow *w, const void *path, size_t path_len, uint64_t offset,
                          uint32_t length, GError **err);

/* Parse a job id argument; USAGE error naming it otherwise. */
gboolean job_id_parse(const char *text, uint32_t *id, GError **err);

#endif
