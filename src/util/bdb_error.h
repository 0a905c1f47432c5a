/* bdb_error.h: Berkeley DB return codes as destor errors. A damaged database
 * (page checksum failure, which Berkeley DB reports as EINVAL for the meta
 * page, or a request for recovery) is an INTEGRITY error; anything else is
 * an I/O failure. Shared by the fingerprint index and the recipe index. */
#ifndef DESTOR_BDB_ERROR_H
#define DESTOR_BDB_ERROR_H

#include <glib.h>

/* Set *err to "<what> <path>: <Berkeley DB's message>"; returns FALSE. */
gboolean bdb_fail(GError **err, int ret, const char *what, const char *path);

#endif
