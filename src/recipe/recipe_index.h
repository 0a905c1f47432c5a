/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recipe_index.h: a job's recipe offset index, path -> (offset, length) of
 * the file's record in job_meta_data, kept in a Berkeley DB btree with page
 * checksums. Reading one file's recipe costs one lookup and one pread. */
#ifndef DESTOR_RECIPE_INDEX_H
#define DESTOR_RECIPE_INDEX_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RecipeIndex RecipeIndex;

RecipeIndex *recipe_index_create(const char *path, GError **err);
RecipeIndex *recipe_index_open(const char *path, GError **err);
/* Flush to disk and close (fsyncs the file). */
gboolean recipe_index_finish(RecipeIndex *idx, GError **err);
void recipe_index_close(RecipeIndex *idx);

gboolean recipe_index_put(RecipeIndex *idx, const void *path, size_t path_len,
                          uint64_t offset, uint32_t length, GError **err);
/* *found is FALSE when the path is not in the job. */
gboolean recipe_index_get(RecipeIndex *idx, const void *path, size_t path_len,
                          uint64_t *offset, uint32_t *length, gboolean *found, GError **err);

#endif
