/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gc.c: opening the store as the writer, collecting, reporting. */
#include "commands/gc.h"
#include "lifecycle/gc.h"
#include "store/store.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <stdio.h>
#include <unistd.h>

/* On a terminal, one line rewritten in place. */
static void show_progress(const GcReport *r, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "\rgc: %u/%u jobs scanned, %u/%u sparse containers copied, %u containers freed ",
            r->jobs_scanned, r->live_jobs, r->compact.containers_copied, r->sparse, r->freed);
    fflush(stderr);
}

static void print_json(const GcReport *r)
{
    JsonBuilder *doc = json_doc_new("destor.gc", 1);
    json_doc_uint(doc, "containers", r->containers);
    json_doc_uint(doc, "live_jobs", r->live_jobs);
    json_doc_uint(doc, "recipe_bytes_read", r->recipe_bytes_read);
    json_doc_uint(doc, "containers_referenced", r->referenced);
    json_doc_uint(doc, "containers_already_freed", r->already_freed);
    json_doc_uint(doc, "containers_dead", r->dead);
    json_doc_uint(doc, "containers_sparse", r->sparse);
    json_doc_uint(doc, "containers_copied", r->compact.containers_copied);
    json_doc_uint(doc, "containers_written", r->compact.containers_written);
    json_doc_uint(doc, "chunks_moved", r->compact.chunks_moved);
    json_doc_uint(doc, "container_bytes_read", r->compact.container_bytes_read);
    json_doc_uint(doc, "container_bytes_written", r->compact.container_bytes_written);
    json_doc_uint(doc, "jobs_rewritten", r->compact.jobs_rewritten);
    json_doc_uint(doc, "containers_freed", r->freed);
    json_doc_uint(doc, "reclaimed_bytes", r->reclaimed_bytes);
    json_doc_uint(doc, "index_entries_removed", r->index_entries_removed);
    json_doc_uint(doc, "index_entries_restored", r->index_entries_restored);
    json_doc_uint(doc, "jobs_collected", r->jobs_collected);
    json_doc_uint(doc, "uncommitted_objects_removed", r->uncommitted_objects);
    json_doc_bool(doc, "deferred", r->deferred);
    json_doc_print(doc, stdout);
}

static void print_text(const GcReport *r)
{
    char reclaimed[32], read[32], written[32];
    printf("gc: read the records of %u live jobs (%llu bytes); %u of %u containers referenced, %u freed "
           "before\n",
           r->live_jobs, (unsigned long long)r->recipe_bytes_read, r->referenced, r->containers, r->already_freed);
    if (r->uncommitted_objects > 0)
        printf("gc: removed %u objects of jobs killed before their commit\n", r->uncommitted_objects);
    if (r->deferred) {
        printf("gc: %u dead and %u sparse containers left for the next gc: a reader has the store open "
               "(nothing freed)\n", r->dead, r->sparse);
        return;
    }
    if (r->sparse > 0)
        printf("gc: copied %llu live chunks out of %u sparse containers into %u new ones (%s read, %s written), "
               "rewrote the records of %u jobs\n",
               (unsigned long long)r->compact.chunks_moved, r->compact.containers_copied,
               r->compact.containers_written, size_format(r->compact.container_bytes_read, read, sizeof read),
               size_format(r->compact.container_bytes_written, written, sizeof written), r->compact.jobs_rewritten);
    printf("gc: freed %u containers (%s reclaimed), removed %llu index entries, collected %u deleted jobs\n",
           r->freed, size_format(r->reclaimed_bytes, reclaimed, sizeof reclaimed),
           (unsigned long long)r->index_entries_removed, r->jobs_collected);
    if (r->index_entries_restored > 0)
        printf("gc: put %llu index entries back at the older copy of a rewritten chunk\n",
               (unsigned long long)r->index_entries_restored);
}

gboolean gc_run(const Config *cfg, gboolean json, GError **err)
{
    Store *store = store_open_repair(cfg, err);
    if (store == NULL)
        return FALSE;
    gboolean tty = !json && isatty(STDERR_FILENO);
    GcReport r;
    gboolean ok = lifecycle_gc(store, cfg->gc_live_threshold, tty ? show_progress : NULL, NULL, &r, err);
    store_close(store);
    if (tty)
        fputc('\n', stderr);
    if (ok && json)
        print_json(&r);
    else if (ok)
        print_text(&r);
    return ok;
}
