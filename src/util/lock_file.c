/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lock_file.c: flock-based exclusive locks. */
#include "util/lock_file.h"
#include "util/error.h"
#include "util/file_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

int lock_file_take(const char *path, const char *busy, GError **err)
{
    int fd = file_open_own(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) {
        file_open_own_error(err, errno, "open lock file", path);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            g_set_error_literal(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED, busy);
        else
            destor_set_errno(err, errno, "lock %s", path);
        close(fd);
        return -1;
    }
    return fd;
}
