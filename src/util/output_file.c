/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output_file.c: write beside OUT and rename, or write into OUT. */
#include "util/output_file.h"
#include "util/dir_within.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean output_file_open(OutputFile *o, const char *path, const char *const *protected, guint n_protected,
                          GError **err)
{
    *o = (OutputFile){ .fd = STDOUT_FILENO, .name = "standard output", .dir_fd = -1 };
    if (path == NULL || strcmp(path, "-") == 0)
        return TRUE;
    o->path = o->name = path;
    o->fd = -1;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0)
            destor_set_errno(err, errno, "open %s", path);
        return o->fd >= 0;
    }
    char *dir = g_path_get_dirname(path);
    char *base = g_path_get_basename(path);
    o->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    gboolean ok = o->dir_fd >= 0;
    if (!ok)
        destor_set_errno(err, errno, "open the directory of %s", path);
    for (guint i = 0; ok && i < n_protected; i++) {
        if (protected[i] != NULL && dir_fd_within(o->dir_fd, protected[i])) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "%s is inside %s, which the store uses: write the output elsewhere", path, protected[i]);
            ok = FALSE;
        }
    }
    if (ok && file_replace_begin(&o->replace, o->dir_fd, base, path, 0666, err))
        o->fd = o->replace.fd;
    else if (o->dir_fd >= 0) {
        close(o->dir_fd);
        o->dir_fd = -1;
    }
    g_free(base);
    g_free(dir);
    return o->fd >= 0;
}

gboolean output_file_finish(OutputFile *o, gboolean ok, GError **err)
{
    if (o->path == NULL || o->fd < 0)
        return ok;
    if (o->dir_fd < 0) { /* a device or FIFO, written into */
        if (close(o->fd) != 0 && ok) {
            destor_set_errno(err, errno, "close %s", o->path);
            ok = FALSE;
        }
    } else if (ok) {
        /* Once renamed, OUT holds the whole, good output: a directory that
         * cannot be synced makes it less durable, not wrong, so it is a
         * warning and a failed command never leaves a changed OUT. */
        ok = file_replace_commit(&o->replace, TRUE, err);
        if (ok && fsync(o->dir_fd) != 0)
            destor_warning("%s is written, but its directory could not be synced: %s", o->path,
                           g_strerror(errno));
    } else {
        file_replace_abort(&o->replace);
    }
    if (o->dir_fd >= 0)
        close(o->dir_fd);
    o->fd = o->dir_fd = -1;
    return ok;
}
