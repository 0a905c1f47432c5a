/* bdb_error.c: mapping Berkeley DB failures onto the error domain. */
#include "util/bdb_error.h"
#include "util/error.h"

#include <db.h>
#include <errno.h>

gboolean bdb_fail(GError **err, int ret, const char *what, const char *path)
{
    gboolean damaged = ret == DB_RUNRECOVERY || ret == DB_VERIFY_BAD || ret == EINVAL || ret == DB_OLD_VERSION;
    g_set_error(err, DESTOR_ERROR, damaged ? DESTOR_ERROR_INTEGRITY : DESTOR_ERROR_IO, "%s %s: %s", what, path,
                db_strerror(ret));
    return FALSE;
}
