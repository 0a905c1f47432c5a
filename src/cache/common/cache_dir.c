/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_dir.c: claiming an SSD cache directory for one format, the
 * registry of the formats, and opening a format's file (cache_dir.h). */
#include "cache/common/cache_dir.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/lock_file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every format a cache directory may hold (the registry: cache_dir.h). */
#define LAYOUT_FORMAT(kind, name) &chunk_##name##_dir_format,
static const CacheDirFormat *const formats[] = { &ssd_store_dir_format, CACHE_DIR_CHUNK_LAYOUTS(LAYOUT_FORMAT) };

static gboolean holds(const char *dir, const CacheDirFormat *f)
{
    gboolean found = FALSE;
    for (const char *const *name = f->files; *name != NULL && !found; name++) {
        char *p = g_build_filename(dir, *name, NULL);
        found = g_file_test(p, G_FILE_TEST_EXISTS);
        g_free(p);
    }
    return found;
}

gboolean cache_dir_remove(const char *dir, const CacheDirFormat *f, GError **err)
{
    gboolean had = FALSE;
    for (const char *const *name = f->files; *name != NULL; name++) {
        char *p = g_build_filename(dir, *name, NULL);
        if (g_unlink(p) == 0) {
            had = TRUE;
        } else if (errno != ENOENT) {
            destor_set_errno(err, errno, "remove %s", p);
            g_free(p);
            return FALSE;
        }
        g_free(p);
    }
    return had;
}

int cache_dir_claim(const char *dir, const CacheDirFormat *mine, GError **err)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        destor_set_errno(err, errno, "create SSD cache directory %s", dir);
        return -1;
    }
    char *path = g_build_filename(dir, CACHE_DIR_LOCK_FILE, NULL);
    char *busy = g_strdup_printf("SSD cache directory %s is in use by another process", dir);
    int fd = lock_file_take(path, busy, err);
    g_free(busy);
    g_free(path);
    for (size_t i = 0; fd >= 0 && i < G_N_ELEMENTS(formats); i++) {
        if (formats[i] == mine || !holds(dir, formats[i]))
            continue;
        destor_warning("SSD cache %s holds %s; rebuilding it as %s", dir, formats[i]->held, mine->becomes);
        GError *local = NULL;
        if (!cache_dir_remove(dir, formats[i], &local) && local != NULL) {
            g_propagate_error(err, local);
            close(fd); /* releases the lock */
            fd = -1;
        }
    }
    return fd;
}

gboolean cache_dir_size_file(int fd, const char *path, off_t size, gboolean grow, GError **err)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", path);
        return FALSE;
    }
    if ((st.st_size > size || (grow && st.st_size < size)) && ftruncate(fd, size) != 0) {
        destor_set_errno(err, errno, "truncate %s", path);
        return FALSE;
    }
    return TRUE;
}

int cache_dir_open_file(const char *path, gboolean o_direct, GError **err)
{
    int fd = file_open_own(path, O_RDWR | O_CREAT | (o_direct ? O_DIRECT : 0), 0644);
    if (fd >= 0)
        return fd;
    if (o_direct && errno == EINVAL)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                    "open %s: the file system does not support O_DIRECT (ssd-cache-o-direct)", path);
    else
        file_open_own_error(err, errno, "open", path);
    return -1;
}
