/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recipe_index.h: a job's recipe offset index, path -> (offset, length) of
 * the file's record in job_meta_data, kept in a Berkeley DB btree with page
 * checksums. Reading one file's recipe costs one lookup and one pread; a
 * seek in path order finds a directory's entries. */
#ifndef DESTOR_RECIPE_INDEX_H
#define DESTOR_RECIPE_INDEX_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RecipeIndex RecipeIndex;

RecipeIndex *recipe_index_create(const char *path, GError **err);
RecipeIndex *recipe_index_open(const char *path, GError **err);
/* Write out, make durable (Berkeley DB's close syncs the file) and close. */
gboolean recipe_index_finish(RecipeIndex *idx, GError **err);
void recipe_index_close(RecipeIndex *idx);

gboolean recipe_index_put(RecipeIndex *idx, const void *path, size_t path_len,
                          uint64_t offset, uint32_t length, GError **err);
/* *found is FALSE when the path is not in the job. */
gboolean recipe_index_get(RecipeIndex *idx, const void *path, size_t path_len,
                          uint64_t *offset, uint32_t *length, gboolean *found, GError **err);

/* The first path at or after `from` (from_len bytes) in byte order, put
 * into `path` (replacing what it held), with its record's offset and
 * length; *found is FALSE past the last path. A directory's entries are
 * listed with it (mount): the paths below "dir/" are a run of keys. */
gboolean recipe_index_seek(RecipeIndex *idx, const void *from, size_t from_len, GByteArray *path,
                           uint64_t *offset, uint32_t *length, gboolean *found, GError **err);

/* A walk in path order for one caller at a time: a seek as above, then
 * each next path after the one found last without a search from the top. */
typedef struct RecipeIndexCursor RecipeIndexCursor;

RecipeIndexCursor *recipe_index_cursor_open(RecipeIndex *idx, GError **err);
void recipe_index_cursor_close(RecipeIndexCursor *c);
gboolean recipe_index_cursor_seek(RecipeIndexCursor *c, const void *from, size_t from_len, GByteArray *path,
                                  uint64_t *offset, uint32_t *length, gboolean *found, GError **err);
gboolean recipe_index_cursor_next(RecipeIndexCursor *c, GByteArray *path, uint64_t *offset, uint32_t *length,
                                  gboolean *found, GError **err);

#endif
