/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_replace.h: the one way destor writes a file that a user or the store
 * reads by name. The bytes go to a new file of a unique name beside the
 * target (created with O_EXCL, so no planted link or earlier file is ever
 * opened, and two writers never share it), and only a complete file is
 * renamed over the target. The target itself is never opened or truncated:
 * a hard link or symlink at its name is replaced, not written through, and
 * a failed write leaves the old file as it was. The files destor keeps open
 * and writes in place (the container pool, locks, the SSD cache's files,
 * Berkeley DB's files) are opened by file_open_own() instead. */
#ifndef DESTOR_FILE_REPLACE_H
#define DESTOR_FILE_REPLACE_H

#include <glib.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    int dir_fd;     /* the target's directory (borrowed) */
    int fd;         /* the new file, -1 once closed */
    char *tmp_name; /* its unique name in dir_fd */
    char *name;     /* the target's name in dir_fd */
    char *shown;    /* the target's name for errors */
} FileReplace;

/* Create the new file for `name` in dir_fd with `mode` (the umask applies).
 * `shown` names the target in errors (NULL: name). FALSE with errno set. */
gboolean file_replace_begin(FileReplace *r, int dir_fd, const char *name, const char *shown, mode_t mode,
                            GError **err);

/* Put the complete file in place: with `durable`, fsync it before the
 * rename (the caller syncs the directory after, and decides what a failure
 * there means: the file is in place by then). Removes the new file on
 * failure (FALSE with errno set). */
gboolean file_replace_commit(FileReplace *r, gboolean durable, GError **err);

/* Give up: close and remove the new file; the target is untouched. */
void file_replace_abort(FileReplace *r);

/* Replace `path` with `data` atomically and durably: the store's small
 * files. Durability by ordering: data is written and fsynced first, then
 * the file is renamed into place and its directory fsynced, so a crash
 * leaves the old or the new version, never a torn one. */
gboolean file_publish_atomic(const char *path, const void *data, size_t len, GError **err);
/* The same without the directory's fsync: the caller fsyncs it once after
 * the last of the files it puts there, before anything relies on them (a
 * job's files before its manifest). */
gboolean file_publish_unsynced_dir(const char *path, const void *data, size_t len, GError **err);
/* The same without either fsync: for a cache's files, which a crash may
 * leave empty or old, and whose reader must therefore check them against
 * their source (or make them durable itself, e.g. by one syncfs(2) for many)
 * before anything relies on them. */
gboolean file_publish_cached(const char *path, const void *data, size_t len, GError **err);

/* Replace `name` in dir_fd by a symlink to `target` the same way (made
 * under a unique name, renamed over `name`). FALSE with errno set. */
gboolean file_replace_symlink(int dir_fd, const char *name, const char *target);

/* Open `path` to write it in place: `flags` (O_CREAT and O_TRUNC allowed)
 * with O_NOFOLLOW added, the file kept (and only then truncated) when it is
 * a regular file that no other name links to. A symlink or hard link planted at the name is never
 * written through: -1 with errno ELOOP (a symlink), EMLINK (another hard
 * link) or ENXIO (not a regular file), or open's own errno. */
int file_open_own(const char *path, int flags, mode_t mode);

/* *err for a failed file_open_own(): "<what> <path>: <why>"; a planted link
 * or other file is named as such, a DESTOR_ERROR_PLANTED (exit 1, and no
 * falling back to reading without the SSD cache: the user removes it). */
void file_open_own_error(GError **err, int errnum, const char *what, const char *path);

#endif
