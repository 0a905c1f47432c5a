/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_migrate.c: moving an older rados store's metadata into its namespace (rados_migrate.h). */
#include "commands/rados_migrate.h"
#include "store/store.h"

#include <stdio.h>

gboolean rados_migrate_run(const Config *cfg, GError **err)
{
    uint32_t jobs;
    Store *store = store_open_migrate(cfg, &jobs, err);
    if (store == NULL)
        return FALSE;
    printf("%u jobs moved into RADOS pool %s namespace '%s'\n", jobs, store->rados.pool, store->rados.ns);
    store_close(store);
    return TRUE;
}
