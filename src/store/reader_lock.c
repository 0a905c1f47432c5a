/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reader_lock.c: the shared readers' lock gc takes exclusively (see
 * reader_lock.h). */
#include "store/reader_lock.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

static char *lock_path(const char *workdir)
{
    return g_build_filename(workdir, READER_LOCK_FILE, NULL);
}

static int lock_fd(const char *path, int fd, int how, GError **err)
{
    int rc;
    do
        rc = flock(fd, how);
    while (rc != 0 && errno == EINTR);
    if (rc == 0)
        return fd;
    if (errno != EWOULDBLOCK)
        destor_set_errno(err, errno, "lock %s", path);
    close(fd);
    return -1;
}

int reader_lock_shared(const char *workdir, GError **err)
{
    char *path = lock_path(workdir);
    int fd = file_open_read(path);
    if (fd < 0) {
        if (errno != ENOENT)
            file_open_read_error(err, errno, "open", path);
    } else {
        fd = lock_fd(path, fd, LOCK_SH, err);
    }
    g_free(path);
    return fd;
}

gboolean reader_lock_create(const char *workdir, gboolean *created, GError **err)
{
    char *path = lock_path(workdir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = file_open_read(path);
    gboolean ok = fd >= 0;
    if (!ok)
        file_open_read_error(err, errno, "create", path);
    else
        close(fd);
    ok = ok && (!*created || dir_fsync(workdir, err));
    g_free(path);
    return ok;
}

int reader_lock_try_exclusive(const char *workdir, gboolean *busy, GError **err)
{
    char *path = lock_path(workdir);
    *busy = FALSE;
    int fd = file_open_read(path);
    if (fd < 0) {
        file_open_read_error(err, errno, "open", path);
    } else {
        GError *local = NULL;
        fd = lock_fd(path, fd, LOCK_EX | LOCK_NB, &local);
        *busy = fd < 0 && local == NULL;
        if (local != NULL)
            g_propagate_error(err, local);
    }
    g_free(path);
    return fd;
}
