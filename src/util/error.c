/* error.c: the error domain and the code -> exit status mapping. */
#include "util/error.h"

#include <string.h>

G_DEFINE_QUARK(destor-error-quark, destor_error)

int destor_exit_status(const GError *err)
{
    if (err == NULL)
        return DESTOR_EXIT_OK;
    if (err->domain != DESTOR_ERROR)
        return DESTOR_EXIT_RUNTIME;
    switch ((DestorErrorCode)err->code) {
    case DESTOR_ERROR_USAGE:
    case DESTOR_ERROR_CONFIG:
    case DESTOR_ERROR_NO_STORE:
        return DESTOR_EXIT_USAGE;
    case DESTOR_ERROR_INTEGRITY:
        return DESTOR_EXIT_INTEGRITY;
    case DESTOR_ERROR_IO:
    case DESTOR_ERROR_LOCKED:
        break;
    }
    return DESTOR_EXIT_RUNTIME;
}

void destor_set_errno(GError **err, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "%s: %s", what, g_strerror(errnum));
    g_free(what);
}
