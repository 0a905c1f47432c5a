/* SPDX-License-Identifier: GPL-3.0-or-later */
/* safe_path.c: component-by-component openat walk under a root. */
#include "read/safe_path.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean safe_path_is_plain(const char *path, size_t len)
{
    if (len == 0 || path[0] == '/' || memchr(path, '\0', len) != NULL)
        return FALSE;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || path[i] == '/') {
            size_t n = i - start;
            if (n == 0 || (n == 1 && path[start] == '.') || (n == 2 && path[start] == '.' && path[start + 1] == '.'))
                return FALSE;
            start = i + 1;
        }
    }
    return TRUE;
}

int safe_path_open_parent(int root_fd, const char *path, const char **name)
{
    int dir = dup(root_fd);
    const char *p = path;
    const char *slash;
    while (dir >= 0 && (slash = strchr(p, '/')) != NULL) {
        char *comp = g_strndup(p, (gsize)(slash - p));
        if (mkdirat(dir, comp, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            g_free(comp);
            close(dir);
            errno = e;
            return -1;
        }
        int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        g_free(comp);
        close(dir);
        errno = e;
        dir = next;
        p = slash + 1;
    }
    *name = p;
    return dir;
}
