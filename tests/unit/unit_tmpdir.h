/* SPDX-License-Identifier: GPL-3.0-or-later */
/* unit_tmpdir.h: a scratch directory for a CUnit suite that writes files:
 * make_tmp as the suite's init, remove_tmp as its cleanup, `tmpdir` the
 * directory between them. */
#ifndef DESTOR_UNIT_TMPDIR_H
#define DESTOR_UNIT_TMPDIR_H

#include <glib.h>
#include <stdlib.h>

static char *tmpdir;

static int make_tmp(void)
{
    tmpdir = g_dir_make_tmp("destor-test-XXXXXX", NULL);
    return tmpdir == NULL;
}

static int remove_tmp(void)
{
    char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
    int rc = system(cmd);
    g_free(cmd);
    return rc;
}

#endif
