/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_replace.c: a unique new file beside the target, renamed over it;
 * or a file of its own opened in place. */
#include "util/file_replace.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_TRIES 64 /* names tried before giving up (EEXIST each time) */

static void free_names(FileReplace *r)
{
    g_clear_pointer(&r->tmp_name, g_free);
    g_clear_pointer(&r->name, g_free);
    g_clear_pointer(&r->shown, g_free);
}

/* A fresh ".destor-XXXXXXXXXX.tmp" name for dir_fd: random, so two
 * writers in one directory never pick the same one twice in a row. */
static char *random_name(void)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char suffix[11];
    for (size_t i = 0; i < sizeof suffix - 1; i++)
        suffix[i] = alnum[g_random_int_range(0, (gint32)sizeof alnum - 1)];
    suffix[sizeof suffix - 1] = '\0';
    return g_strdup_printf(".destor-%s.tmp", suffix);
}

gboolean file_replace_begin(FileReplace *r, int dir_fd, const char *name, const char *shown, mode_t mode,
                            GError **err)
{
    *r = (FileReplace){ .dir_fd = dir_fd, .fd = -1, .name = g_strdup(name),
                        .shown = g_strdup(shown != NULL ? shown : name) };
    for (int attempt = 0; attempt < TMP_TRIES; attempt++) {
        g_free(r->tmp_name);
        r->tmp_name = random_name();
        /* O_EXCL: never an existing file, never through a link */
        r->fd = openat(dir_fd, r->tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (r->fd >= 0)
            return TRUE;
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    destor_set_errno(err, e, "create a new file beside %s", r->shown);
    free_names(r);
    errno = e;
    return FALSE;
}

gboolean file_replace_symlink(int dir_fd, const char *name, const char *target)
{
    for (int attempt = 0; attempt < TMP_TRIES; attempt++) {
        char *tmp = random_name();
        if (symlinkat(target, dir_fd, tmp) == 0) {
            gboolean ok = renameat(dir_fd, tmp, dir_fd, name) == 0;
            int e = errno;
            if (!ok)
                unlinkat(dir_fd, tmp, 0);
            g_free(tmp);
            errno = e;
            return ok;
        }
        g_free(tmp);
        if (errno != EEXIST)
            return FALSE;
    }
    return FALSE;
}

void file_replace_abort(FileReplace *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    if (r->tmp_name != NULL)
        unlinkat(r->dir_fd, r->tmp_name, 0);
    free_names(r);
}

gboolean file_replace_commit(FileReplace *r, gboolean durable, GError **err)
{
    g_assert(r->fd >= 0 && r->tmp_name != NULL);
    if (durable && !file_fsync(r->fd, r->shown, err)) {
        int e = errno;
        file_replace_abort(r);
        errno = e;
        return FALSE;
    }
    int closed = close(r->fd);
    r->fd = -1;
    if (closed != 0) {
        int e = errno;
        destor_set_errno(err, e, "write %s", r->shown);
        file_replace_abort(r);
        errno = e;
        return FALSE;
    }
    if (renameat(r->dir_fd, r->tmp_name, r->dir_fd, r->name) != 0) {
        int e = errno;
        destor_set_errno(err, e, "put %s in place", r->shown);
        file_replace_abort(r);
        errno = e;
        return FALSE;
    }
    free_names(r);
    return TRUE;
}

/* file_publish_atomic, the file fsynced only when `durable`, its directory
 * only when `sync_dir` too. */
static gboolean publish(const char *path, const void *data, size_t len, gboolean durable, gboolean sync_dir,
                        GError **err)
{
    char *dir = g_path_get_dirname(path);
    char *base = g_path_get_basename(path);
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    gboolean ok = FALSE;
    FileReplace r;
    if (dir_fd < 0)
        destor_set_errno(err, errno, "open directory %s", dir);
    else if (file_replace_begin(&r, dir_fd, base, path, 0644, err)) {
        if (file_write_all(r.fd, data, len, path, err))
            ok = file_replace_commit(&r, durable, err) && (!sync_dir || file_fsync(dir_fd, dir, err));
        else
            file_replace_abort(&r);
    }
    if (dir_fd >= 0)
        close(dir_fd);
    g_free(base);
    g_free(dir);
    return ok;
}

gboolean file_publish_atomic(const char *path, const void *data, size_t len, GError **err)
{
    return publish(path, data, len, TRUE, TRUE, err);
}

gboolean file_publish_unsynced_dir(const char *path, const void *data, size_t len, GError **err)
{
    return publish(path, data, len, TRUE, FALSE, err);
}

gboolean file_publish_cached(const char *path, const void *data, size_t len, GError **err)
{
    return publish(path, data, len, FALSE, FALSE, err);
}

int file_open_own(const char *path, int flags, mode_t mode)
{
    /* O_TRUNC only once the file is known to be ours: open would truncate a
     * hard link's other file before fstat could refuse it. */
    int fd = open(path, (flags & ~O_TRUNC) | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = ENXIO;
    else if (st.st_nlink > 1)
        e = EMLINK;
    else if ((flags & O_TRUNC) && st.st_size > 0 && ftruncate(fd, 0) != 0)
        e = errno;
    return fd_kept(fd, e);
}

void file_open_own_error(GError **err, int errnum, const char *what, const char *path)
{
    struct stat st;
    const char *why = NULL;
    if (errnum == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        why = "it is a symbolic link";
    else if (errnum == EMLINK)
        why = "another hard link names the same file";
    else if (errnum == ENXIO)
        why = "it is not a regular file";
    if (why == NULL)
        destor_set_errno(err, errnum, "%s %s", what, path);
    else
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_PLANTED, "%s %s: %s, which destor never writes through (remove it)",
                    what, path, why);
}
