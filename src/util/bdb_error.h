/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bdb_error.h: Berkeley DB return codes as destor errors. A damaged database
 * (page checksum failure, which Berkeley DB reports as EINVAL for the meta
 * page, or a request for recovery) is an INTEGRITY error; anything else is
 * an I/O failure. Shared by the fingerprint index and the recipe index. */
#ifndef DESTOR_BDB_ERROR_H
#define DESTOR_BDB_ERROR_H

#include <glib.h>

/* Set *err to "<what> <path>: <Berkeley DB's message>"; returns FALSE. */
gboolean bdb_fail(GError **err, int ret, const char *what, const char *path);

/* db_create() for a handle that does not print Berkeley DB's own
 * diagnostics on stderr (every failure reaches the user as one destor: line
 * built by bdb_fail()). The library's opens for writing go through
 * file_open_own() (util/file_replace.h), so no Berkeley DB file is written
 * through a link planted at its name. Returns Berkeley DB's code. */
struct __db;
int bdb_create(struct __db **db);

/* Berkeley DB creates a database as "__db.NAME" and renames it into place;
 * a process killed in between leaves that file, and every later open with
 * DB_CREATE then waits for its (dead) creator and fails. Remove every such
 * file in `dir`; only for a caller holding the store's writer lock, so no
 * live process owns one. */
gboolean bdb_remove_creation_leftovers(const char *dir, GError **err);

#endif
