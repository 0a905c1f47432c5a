/* SPDX-License-Identifier: GPL-3.0-or-later */
/* samples_file.h: the sampled index's table saved beside the DB
 * (index/samples), so a job need not read every container to find its
 * samples again. Derived data, like the DB: a missing, stale or damaged
 * file is rebuilt from the containers (docs/FORMAT.md). */
#ifndef DESTOR_SAMPLES_FILE_H
#define DESTOR_SAMPLES_FILE_H

#include "index/fp_index_params.h"
#include "index/fp_table.h"

typedef struct {
    SamplingMethod method;
    uint32_t ratio;
    uint32_t fp_len;
    uint32_t containers; /* the samples are those of containers [0, containers) */
} SamplesStamp;

/* Write the table atomically (a new file renamed over the old, fsynced). */
gboolean samples_file_save(const char *path, const SamplesStamp *stamp, const FpTable *t, GError **err);
/* Fill t from the file if it exists, is sound and has exactly this stamp:
 * *loaded says so. Anything else leaves t empty and *loaded FALSE, with
 * *why saying what (NULL when the file is just missing). */
void samples_file_load(const char *path, const SamplesStamp *stamp, FpTable *t, gboolean *loaded, char **why);

#endif
