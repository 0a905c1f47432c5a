/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_dir.c: listing a job's directory by seeks in its recipe index. */
#include "mount/mount_dir.h"

#include <string.h>

/* "dir/" (or "" for the top) as a key prefix. */
static GByteArray *prefix_of(const char *dir)
{
    GByteArray *p = g_byte_array_new();
    size_t len = strlen(dir);
    if (len > 0) {
        g_byte_array_append(p, (const guint8 *)dir, (guint)len);
        g_byte_array_append(p, (const guint8 *)"/", 1);
    }
    return p;
}

static gboolean starts_with(const GByteArray *key, const GByteArray *prefix)
{
    return prefix->len == 0 || (key->len >= prefix->len && memcmp(key->data, prefix->data, prefix->len) == 0);
}

static gboolean plain_name(const guint8 *name, size_t len)
{
    if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return FALSE;
    return memchr(name, '\0', len) == NULL;
}

gboolean mount_dir_has_entries(Job *job, const char *dir, gboolean *has, GError **err)
{
    GByteArray *prefix = prefix_of(dir), *key = g_byte_array_new();
    uint64_t offset;
    uint32_t length;
    gboolean found;
    gboolean ok = recipe_index_seek(job->recipes, prefix->data, prefix->len, key, &offset, &length, &found, err);
    *has = ok && found && starts_with(key, prefix);
    g_byte_array_unref(key);
    g_byte_array_unref(prefix);
    return ok;
}

gboolean mount_dir_list(Job *job, const char *dir, GByteArray *from, MountDirFn fn, void *ctx, gboolean *ended,
                        GError **err)
{
    GByteArray *prefix = prefix_of(dir), *key = g_byte_array_new();
    GByteArray *at = g_byte_array_new(); /* the seek's key that found the entry at hand */
    if (from->len == 0)
        g_byte_array_append(from, prefix->data, prefix->len);
    uint64_t offset;
    uint32_t length;
    gboolean found, ok, go = TRUE;
    /* from is where a seek would find the next entry; after a file's key
     * it is that key and a 0 byte, found by a step of the cursor instead */
    gboolean step = FALSE;
    RecipeIndexCursor *cur = recipe_index_cursor_open(job->recipes, err);
    ok = cur != NULL;
    while (ok && go &&
           (ok = step ? recipe_index_cursor_next(cur, key, &offset, &length, &found, err)
                      : recipe_index_cursor_seek(cur, from->data, from->len, key, &offset, &length, &found, err)) &&
           found && starts_with(key, prefix)) {
        g_byte_array_set_size(at, 0);
        g_byte_array_append(at, from->data, from->len);
        const guint8 *name = key->data + prefix->len;
        size_t rest = key->len - prefix->len;
        const guint8 *slash = rest > 0 ? memchr(name, '/', rest) : NULL;
        size_t len = slash != NULL ? (size_t)(slash - name) : rest;
        g_byte_array_set_size(from, 0);
        g_byte_array_append(from, key->data, (guint)(prefix->len + len));
        gboolean own = TRUE; /* the child has a record, listed when its key was */
        uint64_t other_offset;
        uint32_t other_length;
        if (slash != NULL &&
            !recipe_index_get(job->recipes, from->data, from->len, &other_offset, &other_length, &own, err)) {
            ok = FALSE;
            break;
        }
        if ((slash == NULL || !own) && plain_name(name, len)) {
            char *shown = g_strndup((const char *)name, len);
            MountDirEntry e = { .name = shown, .path = slash == NULL ? key : from, .has_record = slash == NULL,
                                .offset = offset, .length = length };
            go = fn(ctx, &e);
            g_free(shown);
        }
        /* next: the key just after this one, or past all of the child's
         * entries (every key with prefix "child/" sorts before "child0");
         * an entry refused is where the next listing starts */
        if (go) {
            g_byte_array_append(from, slash != NULL ? (const guint8 *)"0" : (const guint8 *)"", 1);
            step = slash == NULL;
        } else {
            g_byte_array_set_size(from, 0);
            g_byte_array_append(from, at->data, at->len);
        }
    }
    *ended = ok && go;
    recipe_index_cursor_close(cur);
    g_byte_array_unref(at);
    g_byte_array_unref(key);
    g_byte_array_unref(prefix);
    return ok;
}
