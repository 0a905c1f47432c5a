/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gc.c: finding the containers no live job references and freeing them in
 * the order gc.h gives. */
#include "lifecycle/gc.h"
#include "index/fp_index.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "recipe/job_tombstone.h"
#include "store/freed_list.h"
#include "store/reader_lock.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_FREES 64

typedef struct {
    Store *store;
    GcReport *r;
    GcProgressFn progress;
    void *ctx;
    gboolean *referenced; /* r->containers entries */
    GArray *freed;        /* ascending: the earlier list, then with this gc's */
} Gc;

static void report_progress(Gc *gc)
{
    if (gc->progress != NULL)
        gc->progress(gc->r, gc->ctx);
}

/* Mark every container job `job_id`'s records name. */
static gboolean scan_job(Gc *gc, uint32_t job_id, GError **err)
{
    char *dir = job_dir_path(gc->store->dir, job_id);
    char *path = g_build_filename(dir, JOB_META_FILE, NULL);
    JobMetaReader *meta = job_meta_reader_open(path, job_id, err);
    g_free(path);
    g_free(dir);
    if (meta == NULL)
        return FALSE;
    FileRecord *rec;
    GError *local = NULL;
    while ((rec = job_meta_reader_next(meta, &local)) != NULL) {
        for (guint i = 0; i < rec->chunks->len; i++) {
            ContainerId c = g_array_index(rec->chunks, ChunkRef, i).container;
            if (c < gc->r->containers)
                gc->referenced[c] = TRUE;
        }
        file_record_free(rec);
    }
    gc->r->recipe_bytes_read += job_meta_reader_offset(meta);
    job_meta_reader_close(meta);
    if (local == NULL)
        return TRUE;
    g_propagate_prefixed_error(err, local, "gc stopped, nothing freed: job %u: ", job_id);
    return FALSE;
}

static gboolean scan_live_jobs(Gc *gc, GError **err)
{
    GArray *live = job_catalog_list_live(gc->store->dir, err);
    if (live == NULL)
        return FALSE;
    gc->r->live_jobs = live->len;
    gboolean ok = TRUE;
    for (guint i = 0; i < live->len && ok; i++) {
        ok = scan_job(gc, g_array_index(live, uint32_t, i), err);
        gc->r->jobs_scanned++;
        report_progress(gc);
    }
    g_array_unref(live);
    return ok;
}

/* The unreferenced containers still holding data, ascending. */
static GArray *find_dead(Gc *gc, GError **err)
{
    GArray *dead = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    for (ContainerId c = 0; c < gc->r->containers; c++) {
        gc->r->referenced += gc->referenced[c];
        if (freed_list_has(gc->freed, c)) {
            gc->r->already_freed++;
            continue;
        }
        gboolean live = FALSE;
        if (!gc->referenced[c] && !container_store_live(gc->store->containers, c, &live, err)) {
            g_array_unref(dead);
            return NULL;
        }
        if (live)
            g_array_append_val(dead, c);
    }
    gc->r->dead = dead->len;
    return dead;
}

static gint compare_id(gconstpointer a, gconstpointer b)
{
    ContainerId x = *(const ContainerId *)a, y = *(const ContainerId *)b;
    return x < y ? -1 : x > y;
}

static gboolean is_freed(ContainerId id, void *ctx)
{
    return freed_list_has(ctx, id);
}

/* Steps 1 to 4 of gc.h for the containers in `dead`. */
static gboolean free_dead(Gc *gc, const GArray *dead, GError **err)
{
    Store *s = gc->store;
    char *dir = g_build_filename(s->dir, "index", NULL);
    FpIndex *idx = fp_index_open(dir, fingerprint_length(s->fingerprint), container_store_source(s->containers),
                                 gc->r->containers, err);
    g_free(dir);
    if (idx == NULL || !fp_index_begin_job(idx, err))
        goto fail;
    g_array_append_vals(gc->freed, dead->data, dead->len);
    g_array_sort(gc->freed, compare_id);
    if (!freed_list_publish(s->dir, gc->freed, err))
        goto fail;
    for (guint i = 0; i < dead->len; i++) {
        if (!container_store_free(s->containers, g_array_index(dead, ContainerId, i), err))
            goto fail;
        gc->r->freed++;
        gc->r->reclaimed_bytes += s->container_size;
        if (gc->r->freed % PROGRESS_FREES == 0)
            report_progress(gc);
    }
    if (!container_store_sync(s->containers, err) ||
        !fp_index_drop_containers(idx, is_freed, gc->freed, &gc->r->index_entries_removed, err) ||
        !fp_index_commit_job(idx, err))
        goto fail;
    fp_index_close(idx);
    return TRUE;
fail:
    fp_index_close(idx);
    return FALSE;
}

/* Step 5: what deleted jobs still hold besides manifest, tombstone and
 * reference counts. */
static gboolean collect_deleted_jobs(Gc *gc, GError **err)
{
    GArray *all = job_catalog_list(gc->store->dir, err);
    gboolean ok = all != NULL;
    for (guint i = 0; ok && i < all->len; i++) {
        uint32_t id = g_array_index(all, uint32_t, i);
        if (!job_is_deleted(gc->store->dir, id))
            continue;
        char *dir = job_dir_path(gc->store->dir, id);
        char *meta = g_build_filename(dir, JOB_META_FILE, NULL);
        char *ridx = g_build_filename(dir, JOB_RECIPE_INDEX_FILE, NULL);
        gboolean had = g_file_test(meta, G_FILE_TEST_EXISTS) || g_file_test(ridx, G_FILE_TEST_EXISTS);
        if ((unlink(ridx) != 0 && errno != ENOENT) || (unlink(meta) != 0 && errno != ENOENT)) {
            destor_set_errno(err, errno, "remove the records of deleted job %u in %s", id, dir);
            ok = FALSE;
        }
        ok = ok && (!had || dir_fsync(dir, err));
        gc->r->jobs_collected += ok && had;
        g_free(ridx);
        g_free(meta);
        g_free(dir);
    }
    if (all != NULL)
        g_array_unref(all);
    return ok;
}

gboolean lifecycle_gc(Store *store, GcProgressFn progress, void *ctx, GcReport *r, GError **err)
{
    g_assert(store->lock_fd >= 0); /* the writer */
    memset(r, 0, sizeof *r);
    Gc gc = { .store = store, .r = r, .progress = progress, .ctx = ctx };
    if (!container_store_count(store->containers, &r->containers, err))
        return FALSE;
    gc.referenced = g_new0(gboolean, MAX(r->containers, 1));
    gc.freed = freed_list_load(store->dir, err);
    GArray *dead = NULL;
    int readers = -1;
    gboolean ok = gc.freed != NULL && scan_live_jobs(&gc, err) && (dead = find_dead(&gc, err)) != NULL;
    if (ok && !store->readers_lock_new)
        readers = reader_lock_try_exclusive(store->dir, &r->deferred, err);
    r->deferred = r->deferred || store->readers_lock_new;
    ok = ok && (readers >= 0 || r->deferred);
    if (ok && !r->deferred)
        ok = (dead->len == 0 || free_dead(&gc, dead, err)) && collect_deleted_jobs(&gc, err);
    if (readers >= 0)
        close(readers);
    report_progress(&gc);
    if (dead != NULL)
        g_array_unref(dead);
    if (gc.freed != NULL)
        g_array_unref(gc.freed);
    g_free(gc.referenced);
    return ok;
}
