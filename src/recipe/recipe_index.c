/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recipe_index.c: the Berkeley DB btree behind the recipe offset index. */
#include "recipe/recipe_index.h"
#include "util/bdb_error.h"
#include "util/error.h"
#include "util/le.h"

#include <db.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct RecipeIndex {
    DB *db;
    char *path;
};

static RecipeIndex *open_index(const char *path, u_int32_t flags, GError **err)
{
    RecipeIndex *idx = g_new0(RecipeIndex, 1);
    idx->path = g_strdup(path);
    int ret = bdb_create(&idx->db);
    if (ret == 0) {
        idx->db->set_flags(idx->db, DB_CHKSUM);
        ret = idx->db->open(idx->db, NULL, path, NULL, DB_BTREE, flags, 0644);
    }
    if (ret != 0) {
        bdb_fail(err, ret, "open recipe index", path);
        recipe_index_close(idx);
        return NULL;
    }
    return idx;
}

RecipeIndex *recipe_index_create(const char *path, GError **err)
{
    if (unlink(path) != 0 && errno != ENOENT) {
        destor_set_errno(err, errno, "remove stale %s", path);
        return NULL;
    }
    return open_index(path, DB_CREATE | DB_EXCL, err);
}

RecipeIndex *recipe_index_open(const char *path, GError **err)
{
    return open_index(path, DB_RDONLY, err);
}

void recipe_index_close(RecipeIndex *idx)
{
    if (idx == NULL)
        return;
    if (idx->db != NULL)
        idx->db->close(idx->db, 0);
    g_free(idx->path);
    g_free(idx);
}

gboolean recipe_index_finish(RecipeIndex *idx, GError **err)
{
    /* No fsync of ours after it: Berkeley DB's close (without DB_NOSYNC)
     * writes the cache's dirty pages and fdatasyncs the file (its
     * memp_fsync, then again as it closes the file it wrote), which makes
     * its bytes and its size durable; an fsync after that only committed
     * the inode's times, one journal commit a job for nothing a reader
     * uses. The file's name is its directory's to sync (the caller's). */
    int ret = idx->db->close(idx->db, 0);
    idx->db = NULL;
    gboolean ok = ret == 0 ? TRUE : bdb_fail(err, ret, "close", idx->path);
    recipe_index_close(idx);
    return ok;
}

gboolean recipe_index_put(RecipeIndex *idx, const void *path, size_t path_len,
                          uint64_t offset, uint32_t length, GError **err)
{
    uint8_t val[12];
    le64_put(val, offset);
    le32_put(val + 8, length);
    DBT key = { .data = (void *)path, .size = (u_int32_t)path_len };
    DBT data = { .data = val, .size = sizeof val };
    int ret = idx->db->put(idx->db, NULL, &key, &data, 0);
    return ret == 0 ? TRUE : bdb_fail(err, ret, "write to", idx->path);
}

/* An entry's value: its record's offset and length, checked. */
static gboolean entry_value(RecipeIndex *idx, const DBT *data, const uint8_t *val, uint64_t *offset,
                            uint32_t *length, GError **err)
{
    if (data->size != 12) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is damaged: malformed entry", idx->path);
        return FALSE;
    }
    *offset = le64_get(val);
    *length = le32_get(val + 8);
    return TRUE;
}

gboolean recipe_index_get(RecipeIndex *idx, const void *path, size_t path_len,
                          uint64_t *offset, uint32_t *length, gboolean *found, GError **err)
{
    uint8_t val[12];
    DBT key = { .data = (void *)path, .size = (u_int32_t)path_len };
    DBT data = { .data = val, .ulen = sizeof val, .flags = DB_DBT_USERMEM };
    int ret = idx->db->get(idx->db, NULL, &key, &data, 0);
    if (ret == DB_NOTFOUND) {
        *found = FALSE;
        return TRUE;
    }
    if (ret != 0)
        return bdb_fail(err, ret, "read", idx->path);
    *found = TRUE;
    return entry_value(idx, &data, val, offset, length, err);
}

struct RecipeIndexCursor {
    RecipeIndex *idx;
    DBC *cur;
};

RecipeIndexCursor *recipe_index_cursor_open(RecipeIndex *idx, GError **err)
{
    DBC *cur = NULL;
    int ret = idx->db->cursor(idx->db, NULL, &cur, 0);
    if (ret != 0) {
        bdb_fail(err, ret, "read", idx->path);
        return NULL;
    }
    RecipeIndexCursor *c = g_new(RecipeIndexCursor, 1);
    *c = (RecipeIndexCursor){ .idx = idx, .cur = cur };
    return c;
}

void recipe_index_cursor_close(RecipeIndexCursor *c)
{
    if (c == NULL)
        return;
    c->cur->close(c->cur);
    g_free(c);
}

/* One step of the cursor: to the first key at or after `from` (DB_SET_RANGE,
 * DB_FIRST when from_len is 0) or to the next key (DB_NEXT). */
static gboolean step(RecipeIndexCursor *c, u_int32_t how, const void *from, size_t from_len, GByteArray *path,
                     uint64_t *offset, uint32_t *length, gboolean *found, GError **err)
{
    RecipeIndex *idx = c->idx;
    uint8_t val[12];
    /* Berkeley DB hands the key found back in a buffer of its malloc */
    DBT key = { .data = from_len > 0 ? malloc(from_len) : NULL, .size = (u_int32_t)from_len,
                .flags = DB_DBT_REALLOC };
    DBT data = { .data = val, .ulen = sizeof val, .flags = DB_DBT_USERMEM };
    if (from_len > 0 && key.data == NULL) {
        destor_set_errno(err, ENOMEM, "read %s", idx->path);
        return FALSE;
    }
    if (from_len > 0)
        memcpy(key.data, from, from_len);
    int ret = c->cur->get(c->cur, &key, &data, how);
    gboolean ok = TRUE;
    *found = ret == 0;
    if (ret == 0) {
        g_byte_array_set_size(path, 0);
        g_byte_array_append(path, key.data, key.size);
        ok = entry_value(idx, &data, val, offset, length, err);
    } else if (ret != DB_NOTFOUND) {
        ok = bdb_fail(err, ret, "read", idx->path);
    }
    free(key.data);
    return ok;
}

gboolean recipe_index_cursor_seek(RecipeIndexCursor *c, const void *from, size_t from_len, GByteArray *path,
                                  uint64_t *offset, uint32_t *length, gboolean *found, GError **err)
{
    return step(c, from_len > 0 ? DB_SET_RANGE : DB_FIRST, from, from_len, path, offset, length, found, err);
}

gboolean recipe_index_cursor_next(RecipeIndexCursor *c, GByteArray *path, uint64_t *offset, uint32_t *length,
                                  gboolean *found, GError **err)
{
    return step(c, DB_NEXT, NULL, 0, path, offset, length, found, err);
}

gboolean recipe_index_seek(RecipeIndex *idx, const void *from, size_t from_len, GByteArray *path,
                           uint64_t *offset, uint32_t *length, gboolean *found, GError **err)
{
    RecipeIndexCursor *c = recipe_index_cursor_open(idx, err);
    if (c == NULL)
        return FALSE;
    gboolean ok = recipe_index_cursor_seek(c, from, from_len, path, offset, length, found, err);
    recipe_index_cursor_close(c);
    return ok;
}
