/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dir_within.h: is one directory the same as, or below, another? Answered
 * by walking ".." from the inner one and comparing device and inode
 * numbers, so symlinks, bind mounts of the same tree and odd spellings of a
 * path (trailing slashes, "..", relative names) cannot hide the answer.
 * Used to keep what a command writes (restore targets, -o files) out of the
 * store's working directory and the SSD cache's directory. */
#ifndef DESTOR_DIR_WITHIN_H
#define DESTOR_DIR_WITHIN_H

#include <glib.h>

/* TRUE if the directory open at dir_fd is `outer` or lies below it. A
 * missing `outer` contains nothing. */
gboolean dir_fd_within(int dir_fd, const char *outer);

/* TRUE if directory `inner` is `outer` or lies below it. An `inner` that
 * does not exist yet is judged by its nearest existing ancestor (where it
 * would be made); a missing `outer` contains nothing. */
gboolean dir_path_within(const char *inner, const char *outer);

#endif
