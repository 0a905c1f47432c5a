/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dir_within.c: a ".." walk comparing (st_dev, st_ino). */
#include "util/dir_within.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 4096 /* deeper than any path a Linux file system resolves */

static gboolean same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

gboolean dir_fd_within(int dir_fd, const char *outer)
{
    struct stat target;
    if (stat(outer, &target) != 0 || !S_ISDIR(target.st_mode))
        return FALSE;
    int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    gboolean within = FALSE;
    for (int depth = 0; fd >= 0 && depth < MAX_DEPTH; depth++) {
        struct stat here, up;
        if (fstat(fd, &here) != 0)
            break;
        if (same_file(&here, &target)) {
            within = TRUE;
            break;
        }
        int parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = parent;
        if (fd < 0 || fstat(fd, &up) != 0 || same_file(&up, &here))
            break; /* the root: its ".." is itself */
    }
    if (fd >= 0)
        close(fd);
    return within;
}

gboolean dir_path_within(const char *inner, const char *outer)
{
    char *path = g_strdup(inner);
    int fd;
    while ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 && errno == ENOENT) {
        char *up = g_path_get_dirname(path);
        gboolean top = strcmp(up, path) == 0; /* "/" or "." */
        g_free(path);
        path = up;
        if (top)
            break;
    }
    g_free(path);
    if (fd < 0)
        return FALSE;
    gboolean within = dir_fd_within(fd, outer);
    close(fd);
    return within;
}
