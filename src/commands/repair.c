/* SPDX-License-Identifier: GPL-3.0-or-later */
/* repair.c: rebuilding the derived structures of a store (see repair.h). */
#include "commands/repair.h"
#include "index/fp_index.h"
#include "recipe/job_catalog.h"
#include "recipe/job_tombstone.h"
#include "recipe/job_meta.h"
#include "recipe/recipe_index.h"
#include "store/store_index.h"
#include "store/freed_list.h"
#include "store/store.h"
#include "util/bdb_error.h"
#include "util/error.h"
#include "util/json_doc.h"
#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#define RECIPE_INDEX_NEW "recipe_index.db.new"

static gboolean is_freed(ContainerId id, void *ctx)
{
    return freed_list_has(ctx, id);
}

/* From every container but the ones gc freed: they are not read (a freed
 * slot reads as nothing, or as what it held before), so no chunk of theirs
 * comes back into the index for a backup to deduplicate against. */
static gboolean rebuild_fingerprint_index(Store *store, JsonBuilder *json, GArray **unreadable, GError **err)
{
    uint32_t slots;
    GArray *freed = NULL;
    if (!container_store_count(store->containers, &slots, err) ||
        (freed = freed_list_load(store->dir, NULL, err)) == NULL)
        return FALSE;
    char *dir = g_build_filename(store->dir, "index", NULL);
    FpIndex *idx = fp_index_rebuild(dir, fingerprint_length(store->fingerprint), container_store_source(store->containers),
                                    slots, is_freed, freed, err);
    g_free(dir);
    uint64_t entries = 0;
    gboolean ok = idx != NULL && fp_index_count(idx, &entries, err);
    if (ok) {
        const GArray *left_out = fp_index_unreadable(idx);
        *unreadable = g_array_new(FALSE, FALSE, sizeof(ContainerId));
        if (left_out != NULL)
            g_array_append_vals(*unreadable, left_out->data, left_out->len);
    }
    fp_index_close(idx);
    /* a rados store's shards in the cluster, rewritten from it */
    ok = ok && store_index_from_local(store, TRUE, err);
    g_array_unref(freed);
    if (ok && json != NULL) {
        json_doc_uint(json, "containers", slots);
        json_doc_uint(json, "index_chunks", entries);
    } else if (ok) {
        printf("fingerprint index rebuilt from %u containers: %llu chunks\n", slots, (unsigned long long)entries);
    }
    return ok;
}

/* One job: a new recipe index from its records, published by rename, and
 * the records counted into `counts` (containers_total of the job). */
static gboolean rebuild_job(Store *store, uint32_t job_id, uint32_t *counts, uint32_t n, GError **err)
{
    char *dir = job_dir_path(store->dir, job_id);
    char *meta_path = g_build_filename(dir, JOB_META_FILE, NULL);
    char *fresh = g_build_filename(dir, RECIPE_INDEX_NEW, NULL);
    char *final = g_build_filename(dir, JOB_RECIPE_INDEX_FILE, NULL);
    JobMetaReader *meta = NULL;
    RecipeIndex *idx = NULL;
    gboolean ok = bdb_remove_creation_leftovers(dir, err) && (meta = job_meta_reader_open(meta_path, job_id, err)) &&
                  (idx = recipe_index_create(fresh, err));
    FileRecord *r;
    GError *local = NULL;
    uint64_t offset = meta ? job_meta_reader_offset(meta) : 0;
    while (ok && (r = job_meta_reader_next(meta, &local)) != NULL) {
        uint64_t next = job_meta_reader_offset(meta);
        ok = recipe_index_put(idx, r->path->data, r->path->len, offset, (uint32_t)(next - offset), err);
        refcount_add_file(counts, n, r);
        offset = next;
        file_record_free(r);
    }
    if (local != NULL) {
        g_propagate_error(err, local);
        ok = FALSE;
    }
    if (ok) {
        ok = recipe_index_finish(idx, err);
        idx = NULL;
    }
    if (ok && rename(fresh, final) != 0) {
        destor_set_errno(err, errno, "rename %s to %s", fresh, final);
        ok = FALSE;
    }
    ok = ok && refcount_save(dir, counts, n, err) && dir_fsync(dir, err);
    recipe_index_close(idx);
    if (!ok)
        (void)unlink(fresh);
    job_meta_reader_close(meta);
    g_free(final);
    g_free(fresh);
    g_free(meta_path);
    g_free(dir);
    return ok;
}

/* The containers the index's rebuild could not read back that a live job
 * names (counts: the live jobs' references, n of them): their chunks are
 * lost, which no rebuild mends: an INTEGRITY error naming the first and
 * how many. None: TRUE (the rest were torn by an interrupted backup or
 * freed by gc: nothing names them). */
static gboolean no_live_container_lost(const GArray *unreadable, const uint32_t *counts, uint32_t n, GError **err)
{
    guint lost = 0;
    ContainerId first = 0;
    for (guint i = 0; i < unreadable->len; i++) {
        ContainerId id = g_array_index(unreadable, ContainerId, i);
        if (id >= n || counts[id] == 0)
            continue;
        if (lost++ == 0)
            first = id;
    }
    if (lost == 0)
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                "%u container(s) that live jobs name do not read back (the first: %u): their chunks are lost, "
                "which repair cannot mend; `verify` names the files",
                lost, first);
    return FALSE;
}

/* Jobs in order, reference counts carried from each to the next; then the
 * containers that did not read back (unreadable) held against them. */
static gboolean rebuild_jobs(Store *store, JsonBuilder *json, const GArray *unreadable, GError **err)
{
    /* a rados store's live records as the cluster holds them, never a local copy */
    if (!store_refresh_records(store, err))
        return FALSE;
    GArray *ids = job_catalog_list(store->dir, err);
    if (ids == NULL)
        return FALSE;
    uint32_t *counts = NULL, n = 0, by_gc = 0;
    /* records gc rewrote may name its copies, past their job's own count */
    GArray *freed = freed_list_load(store->dir, &by_gc, err);
    gboolean ok = freed != NULL;
    if (freed != NULL)
        g_array_unref(freed);
    for (guint i = 0; i < ids->len && ok; i++) {
        uint32_t id = g_array_index(ids, uint32_t, i);
        JobManifest m;
        GError *local = NULL;
        ok = job_manifest_load_any(store->dir, id, &m, &local);
        if (ok) {
            uint32_t size = MAX(MAX(n, m.containers_total), by_gc);
            counts = g_renew(uint32_t, counts, MAX(size, 1));
            for (uint32_t c = n; c < size; c++)
                counts[c] = 0;
            n = size;
            /* a deleted job adds nothing; its copy is the live jobs' before it */
            if (job_is_deleted(store->dir, id)) {
                char *dir = job_dir_path(store->dir, id);
                ok = refcount_save(dir, counts, size, &local) && dir_fsync(dir, &local);
                g_free(dir);
            } else {
                ok = rebuild_job(store, id, counts, size, &local) && store_publish_recipe(store, id, &local);
            }
            job_manifest_clear(&m);
            ok = ok && store_publish_refcount(store, id, &local);
        }
        if (!ok) {
            g_set_error(err, DESTOR_ERROR, local->code == DESTOR_ERROR_IO ? DESTOR_ERROR_IO : DESTOR_ERROR_INTEGRITY,
                        "job %u: %s; its recipe index and the reference counts from it on were left as they were",
                        id, local->message);
            g_error_free(local);
        }
    }
    if (ok && json != NULL)
        json_doc_uint(json, "jobs", ids->len);
    else if (ok)
        printf("recipe indexes and reference counts rebuilt for %u jobs\n", ids->len);
    ok = ok && no_live_container_lost(unreadable, counts, n, err);
    g_free(counts);
    g_array_unref(ids);
    return ok;
}

gboolean repair_run(const Config *cfg, gboolean json, GError **err)
{
    Store *store = store_open_repair(cfg, err);
    if (store == NULL)
        return FALSE;
    JsonBuilder *doc = json ? json_doc_new("destor.repair", 1) : NULL;
    GArray *unreadable = NULL;
    gboolean ok = rebuild_fingerprint_index(store, doc, &unreadable, err) && rebuild_jobs(store, doc, unreadable, err);
    if (unreadable != NULL)
        g_array_unref(unreadable);
    if (doc != NULL && ok)
        json_doc_print(doc, stdout);
    else if (doc != NULL)
        g_object_unref(doc);
    store_close(store);
    return ok;
}
