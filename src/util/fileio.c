/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fileio.c: retrying read/write loops and fsync helpers. */
#include "util/fileio.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* Write all of buf at `off`, or at the file position when off < 0. */
static gboolean write_all_at(int fd, const void *buf, size_t len, off_t off, const char *path, GError **err)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            destor_set_errno(err, errno, "write %s", path);
            return FALSE;
        }
        p += n;
        len -= (size_t)n;
        if (off >= 0)
            off += n;
    }
    return TRUE;
}

gboolean file_pwrite_all(int fd, const void *buf, size_t len, off_t off, const char *path, GError **err)
{
    return write_all_at(fd, buf, len, off, path, err);
}

gboolean file_write_all(int fd, const void *buf, size_t len, const char *path, GError **err)
{
    return write_all_at(fd, buf, len, -1, path, err);
}

gboolean file_pread_all(int fd, void *buf, size_t len, off_t off, const char *path, GError **err)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            destor_set_errno(err, errno, "read %s", path);
            return FALSE;
        }
        if (n == 0) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                        "%s is truncated: %zu bytes missing at offset %lld", path, len, (long long)off);
            return FALSE;
        }
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return TRUE;
}

gboolean file_fsync(int fd, const char *path, GError **err)
{
    if (fsync(fd) != 0) {
        destor_set_errno(err, errno, "fsync %s", path);
        return FALSE;
    }
    return TRUE;
}

gboolean dir_fsync(const char *dir, GError **err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        destor_set_errno(err, errno, "open directory %s", dir);
        return FALSE;
    }
    gboolean ok = file_fsync(fd, dir, err);
    close(fd);
    return ok;
}

gboolean file_read_whole(const char *path, uint8_t **data, size_t *len, GError **err)
{
    gchar *contents = NULL;
    gsize n = 0;
    GError *local = NULL;
    if (!g_file_get_contents(path, &contents, &n, &local)) {
        int code = local->code == G_FILE_ERROR_NOENT ? ENOENT : EIO;
        if (local->code == G_FILE_ERROR_ACCES)
            code = EACCES;
        g_error_free(local);
        destor_set_errno(err, code, "read %s", path);
        return FALSE;
    }
    *data = (uint8_t *)contents;
    *len = n;
    return TRUE;
}
