/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lock_file.h: one process at a time: an exclusive, non-blocking flock()
 * on a lock file, held for as long as its descriptor stays open (and
 * released by the kernel if the process dies). Used for the store's single
 * writer and for an SSD cache directory. */
#ifndef DESTOR_LOCK_FILE_H
#define DESTOR_LOCK_FILE_H

#include <glib.h>

/* Open (creating) and lock `path`. Returns the descriptor to keep open, or
 * -1 with a LOCKED error whose message is `busy` when another process holds
 * it (an IO error otherwise). */
int lock_file_take(const char *path, const char *busy, GError **err);

#endif
