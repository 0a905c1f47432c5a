/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bdb_error.c: mapping Berkeley DB failures onto the error domain. */
#include "util/bdb_error.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/file_replace.h"

#include <db.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean bdb_fail(GError **err, int ret, const char *what, const char *path)
{
    if (ret == ELOOP || ret == EMLINK || ret == ENXIO) { /* refused by guarded_open */
        file_open_own_error(err, ret, what, path);
        return FALSE;
    }
    gboolean damaged = ret == DB_RUNRECOVERY || ret == DB_VERIFY_BAD || ret == EINVAL || ret == DB_OLD_VERSION;
    g_set_error(err, DESTOR_ERROR, damaged ? DESTOR_ERROR_INTEGRITY : destor_errno_code(ret), "%s %s: %s", what, path,
                db_strerror(ret));
    return FALSE;
}

static void discard_message(const DB_ENV *env, const char *prefix, const char *msg)
{
    (void)env;
    (void)prefix;
    (void)msg;
}

/* Berkeley DB's open(2): a file opened for writing must be one of its own;
 * one opened to read, a regular file (or directory). */
static int guarded_open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if ((flags & O_ACCMODE) != O_RDONLY)
        return file_open_own(path, flags, mode);
    /* read: never a FIFO or device, whose open could wait for a writer */
    int fd = open(path, flags | O_NONBLOCK, mode);
    struct stat st;
    int e = 0;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        e = ENXIO;
    else if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        e = errno;
    return fd_kept(fd, e);
}

static gpointer install_guarded_open(gpointer unused)
{
    (void)unused;
    db_env_set_func_open(guarded_open);
    return NULL;
}

int bdb_create(DB **db)
{
    static GOnce once = G_ONCE_INIT;
    g_once(&once, install_guarded_open, NULL);
    int ret = db_create(db, NULL, 0);
    if (ret == 0)
        (*db)->set_errcall(*db, discard_message);
    return ret;
}

gboolean bdb_remove_creation_leftovers(const char *dir, GError **err)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return TRUE;
    gboolean ok = TRUE;
    const char *name;
    while (ok && (name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_prefix(name, "__db."))
            continue;
        char *path = g_build_filename(dir, name, NULL);
        if (unlink(path) != 0 && errno != ENOENT) {
            destor_set_errno(err, errno, "remove %s left by an interrupted process", path);
            ok = FALSE;
        }
        g_free(path);
    }
    g_dir_close(d);
    return ok;
}
