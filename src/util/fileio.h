/* fileio.h: whole-buffer I/O and durable publication.
 *
 * Durability by ordering: data is written and fsynced first, then a small
 * file is published with file_publish_atomic() (write to a temporary name,
 * fsync, rename, fsync the directory), so a crash leaves the old or the new
 * version, never a torn one. */
#ifndef DESTOR_FILEIO_H
#define DESTOR_FILEIO_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Write/read exactly len bytes at offset, retrying short transfers. A read
 * that meets end of file fails with an INTEGRITY error naming `path`. */
gboolean file_pwrite_all(int fd, const void *buf, size_t len, off_t off, const char *path, GError **err);
gboolean file_pread_all(int fd, void *buf, size_t len, off_t off, const char *path, GError **err);
gboolean file_write_all(int fd, const void *buf, size_t len, const char *path, GError **err);

gboolean file_fsync(int fd, const char *path, GError **err);
gboolean dir_fsync(const char *dir, GError **err);

/* Replace `path` with `data` atomically and durably. */
gboolean file_publish_atomic(const char *path, const void *data, size_t len, GError **err);

/* Read a whole (small) file. */
gboolean file_read_whole(const char *path, uint8_t **data, size_t *len, GError **err);

#endif
