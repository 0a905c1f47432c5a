/* SPDX-License-Identifier: GPL-3.0-or-later */
/* safe_path.h: opening stored paths under a target directory without ever
 * leaving it. Stored paths are untrusted: each component must be a plain
 * name (not empty, ".", ".."), and every directory on the way is opened
 * with O_NOFOLLOW, so neither "../x", "/etc/x" nor a symlink restored
 * earlier can redirect a write outside the target. */
#ifndef DESTOR_SAFE_PATH_H
#define DESTOR_SAFE_PATH_H

#include <glib.h>
#include <stddef.h>

/* TRUE if `path` (len bytes) is relative and made of plain components. */
gboolean safe_path_is_plain(const char *path, size_t len);

/* Open (creating missing directories, mode 0700 until fixed up) the parent
 * directory of `path` under root_fd. Returns a directory fd and sets *name
 * to the last component (points into path). -1 and errno on failure. */
int safe_path_open_parent(int root_fd, const char *path, const char **name);

#endif
