/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reader_lock.h: readers against garbage collection.
 *
 * A reader (restore, read-file, a trace replay, verify, stat, list) holds a
 * shared flock() on WORKDIR/READERS from the moment it opens the store until
 * it closes it; gc frees containers only while it holds the lock exclusively,
 * taken without waiting. So a reader that opened a job before the job was
 * deleted keeps every container the job names until it is done, and one
 * that opens the store later finds the job deleted (its tombstone is
 * published before gc runs). The writer (which may create files) creates
 * the file; a reader only opens it, so reading changes nothing in the store. */
#ifndef DESTOR_READER_LOCK_H
#define DESTOR_READER_LOCK_H

#include <glib.h>

#define READER_LOCK_FILE "READERS"

/* Hold the readers' lock shared (waiting out a gc's short exclusive hold):
 * the descriptor to keep open, or -1 with *err unset when the file does not
 * exist yet (no writer of this version has opened the store, so no gc can
 * free anything under this reader without first creating it; see *created
 * below), or -1 with *err set. */
int reader_lock_shared(const char *workdir, GError **err);
/* Writers: make sure the file exists; *created: it did not before. */
gboolean reader_lock_create(const char *workdir, gboolean *created, GError **err);
/* gc: the lock exclusively, without waiting: the descriptor (close it to
 * release), or -1 with *busy set when a reader holds it, or -1 with *err. */
int reader_lock_try_exclusive(const char *workdir, gboolean *busy, GError **err);

#endif
