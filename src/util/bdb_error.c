/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bdb_error.c: mapping Berkeley DB failures onto the error domain. */
#include "util/bdb_error.h"
#include "util/error.h"

#include <db.h>
#include <errno.h>
#include <unistd.h>

gboolean bdb_fail(GError **err, int ret, const char *what, const char *path)
{
    gboolean damaged = ret == DB_RUNRECOVERY || ret == DB_VERIFY_BAD || ret == EINVAL || ret == DB_OLD_VERSION;
    g_set_error(err, DESTOR_ERROR, damaged ? DESTOR_ERROR_INTEGRITY : DESTOR_ERROR_IO, "%s %s: %s", what, path,
                db_strerror(ret));
    return FALSE;
}

static void discard_message(const DB_ENV *env, const char *prefix, const char *msg)
{
    (void)env;
    (void)prefix;
    (void)msg;
}

void bdb_quiet(DB *db)
{
    db->set_errcall(db, discard_message);
}

gboolean bdb_remove_creation_leftovers(const char *dir, GError **err)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return TRUE;
    gboolean ok = TRUE;
    const char *name;
    while (ok && (name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_prefix(name, "__db."))
            continue;
        char *path = g_build_filename(dir, name, NULL);
        if (unlink(path) != 0 && errno != ENOENT) {
            destor_set_errno(err, errno, "remove %s left by an interrupted process", path);
            ok = FALSE;
        }
        g_free(path);
    }
    g_dir_close(d);
    return ok;
}
