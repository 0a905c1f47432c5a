/* SPDX-License-Identifier: GPL-3.0-or-later */
/* delete.c: opening the store as the writer, deleting, saying so. */
#include "commands/delete.h"
#include "lifecycle/job_delete.h"
#include "store/store.h"
#include "util/json_doc.h"

#include <stdio.h>

gboolean delete_run(const Config *cfg, const uint32_t *ids, guint n, gboolean json, GError **err)
{
    Store *store = store_open_repair(cfg, err);
    if (store == NULL)
        return FALSE;
    gboolean ok = lifecycle_delete(store, ids, n, err);
    store_close(store);
    if (!ok)
        return FALSE;
    if (json) {
        JsonBuilder *doc = json_doc_new("destor.delete", 1);
        json_builder_set_member_name(doc, "jobs");
        json_builder_begin_array(doc);
        for (guint i = 0; i < n; i++)
            json_builder_add_int_value(doc, ids[i]);
        json_builder_end_array(doc);
        json_doc_print(doc, stdout);
    } else {
        for (guint i = 0; i < n; i++)
            printf("job %u deleted\n", ids[i]);
        printf("'destor gc' gives back the space its containers hold\n");
    }
    return TRUE;
}
