/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.c: write errors on standard output become errors of the command. */
#include "util/output.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>

static int first_errno; /* errno when the first failure was seen */

static gboolean set_lost(GError **err)
{
    if (first_errno != 0)
        destor_set_errno(err, first_errno, "cannot write standard output");
    else
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "cannot write standard output: output lost");
    return FALSE;
}

gboolean output_failed(GError **err)
{
    if (!ferror(stdout))
        return FALSE;
    if (first_errno == 0) { /* flushing the pending bytes again tells why */
        errno = 0;
        fflush(stdout);
        first_errno = errno;
    }
    set_lost(err);
    return TRUE;
}

gboolean output_finish(GError **err)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (first_errno == 0)
            first_errno = errno;
        fclose(stdout);
        return set_lost(err);
    }
    if (fclose(stdout) != 0) {
        first_errno = errno;
        return set_lost(err);
    }
    return TRUE;
}
