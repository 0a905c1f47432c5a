/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fileio.h: whole-buffer I/O and fsync helpers. Files are published by
 * name through util/file_replace.h. */
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
/* Read exactly a_len bytes into a, then b_len into b, from off on, in one
 * preadv (retried on short transfers): the same errors as
 * file_pread_all. */
gboolean file_pread2_all(int fd, void *a, size_t a_len, void *b, size_t b_len, off_t off, const char *path,
                         GError **err);
/* The len bytes at off (a multiple of the page size) mapped read-only and
 * read in, or NULL with the error file_pread_all gives for them: the same
 * INTEGRITY error when the file ends before off + len (a mapping past the
 * end would fault when touched), EIO when a page cannot be read. Undo with
 * file_unmap. */
const uint8_t *file_map_read(int fd, size_t len, off_t off, const char *path, GError **err);
void file_unmap(const uint8_t *p, size_t len);

gboolean file_fsync(int fd, const char *path, GError **err);
gboolean dir_fsync(const char *dir, GError **err);

/* Open `path` to read it: a regular file (a symlink to one is followed),
 * never a FIFO or device (whose open or read could wait forever or never
 * end): -1 with errno ENXIO for one, or open's own errno. */
int file_open_read(const char *path);
/* The end of a checked open: fd when the check found nothing (e == 0),
 * else fd closed and -1 with errno e. */
int fd_kept(int fd, int e);
/* *err for a failed file_open_read(): "<what> <path>: <why>"; a file that is
 * not a regular one is a DESTOR_ERROR_PLANTED (exit 1). */
void file_open_read_error(GError **err, int errnum, const char *what, const char *path);

/* Read a whole (small) file, opened by file_open_read(). */
gboolean file_read_whole(const char *path, uint8_t **data, size_t *len, GError **err);

#endif
