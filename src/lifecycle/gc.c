/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gc.c: finding the dead and the sparse containers from the live records,
 * then emptying and freeing them in the order gc.h gives. */
#include "lifecycle/gc.h"
#include "lifecycle/index_survivors.h"
#include "index/fp_index.h"
#include "lifecycle/live_chunks.h"
#include "recipe/file_status.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "recipe/job_tombstone.h"
#include "recipe/refcount_recount.h"
#include "store/freed_list.h"
#include "store/store_index.h"
#include "storage/rados_lock.h"
#include "store/reader_lock.h"
#include "storage/container.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_FREES 64

typedef struct {
    Store *store;
    GcReport *r;
    GcProgressFn progress;
    void *ctx;
    GArray *live;         /* LiveChunk: what live records name (sealed after the scan) */
    uint64_t *live_bytes; /* per container (r->containers) */
    GArray *freed;        /* ascending: the earlier list, then with this gc's */
    GArray *dead;         /* ContainerId, ascending */
    GArray *sparse;       /* ContainerId, ascending */
    GArray *unlisted;     /* ContainerId, ascending: freed, not listed (a gc stopped between) */
    RadosLock *lease;     /* a rados store's readers' lock, held exclusively (rados_lock.h) */
    gboolean advised;     /* the error already says what the user can do (take_copies_back) */
} Gc;

static void report_progress(Gc *gc)
{
    if (gc->progress != NULL)
        gc->progress(gc->r, gc->ctx);
}

/* Every chunk job `job_id`'s records name. */
static gboolean scan_job(Gc *gc, uint32_t job_id, GError **err)
{
    JobMetaReader *meta = job_catalog_open_records(gc->store->dir, job_id, err);
    if (meta == NULL)
        return FALSE;
    FileRecord *rec;
    GError *local = NULL;
    while ((rec = job_meta_reader_next(meta, &local)) != NULL) {
        for (guint i = 0; i < rec->chunks->len; i++) {
            const ChunkRef *c = &g_array_index(rec->chunks, ChunkRef, i);
            if (c->container < gc->r->containers)
                live_chunks_add(gc->live, c->container, c->offset, c->length);
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
    GArray *jobs = job_catalog_list_live(gc->store->dir, err);
    if (jobs == NULL)
        return FALSE;
    gc->r->live_jobs = jobs->len;
    gboolean ok = TRUE;
    for (guint i = 0; i < jobs->len && ok; i++) {
        ok = scan_job(gc, g_array_index(jobs, uint32_t, i), err);
        gc->r->jobs_scanned++;
        report_progress(gc);
    }
    g_array_unref(jobs);
    live_chunks_seal(gc->live);
    for (guint i = 0; i < gc->live->len; i++) {
        const LiveChunk *c = &g_array_index(gc->live, LiveChunk, i);
        gc->live_bytes[c->container] += c->length;
    }
    return ok;
}

/* Copying the sparse containers' live chunks must need fewer containers
 * than it empties (counting each chunk's metadata entry and the header);
 * otherwise gc would copy a lone sparse container, such as the part-full
 * last copy of the previous gc, again at every run. */
static gboolean copying_pays(const Gc *gc)
{
    uint64_t need = 0, room = gc->store->container_size - CONTAINER_HEADER_SIZE;
    const LiveChunk *c = (const LiveChunk *)gc->live->data;
    for (guint i = 0; i < gc->sparse->len; i++) {
        ContainerId id = g_array_index(gc->sparse, ContainerId, i);
        for (guint j = live_chunks_first(gc->live, id); j < gc->live->len && c[j].container == id; j++)
            need += c[j].length + CONTAINER_META_ENTRY_SIZE;
    }
    /* chunks do not split, so the copies may take one more; that last one
     * is then the only sparse copy, which this rule never copies alone */
    return (need + room - 1) / room < gc->sparse->len;
}

/* Sort the containers not freed yet: dead (no live chunk, data still
 * there) and sparse (live chunks below the threshold). */
static gboolean classify(Gc *gc, double threshold, GError **err)
{
    uint64_t below = (uint64_t)(threshold * (double)gc->store->container_size);
    for (ContainerId c = 0; c < gc->r->containers; c++) {
        gc->r->referenced += gc->live_bytes[c] > 0;
        if (freed_list_has(gc->freed, c)) {
            gc->r->already_freed++;
            continue;
        }
        gboolean holds = TRUE;
        if (gc->live_bytes[c] == 0 && !container_store_live(gc->store->containers, c, &holds, err))
            return FALSE;
        if (gc->live_bytes[c] == 0 && holds)
            g_array_append_val(gc->dead, c);
        else if (gc->live_bytes[c] == 0)
            g_array_append_val(gc->unlisted, c);
        else if (gc->live_bytes[c] > 0 && gc->live_bytes[c] < below)
            g_array_append_val(gc->sparse, c);
    }
    gc->r->dead = gc->dead->len;
    gc->r->sparse = gc->sparse->len;
    if (!copying_pays(gc))
        g_array_set_size(gc->sparse, 0);
    return TRUE;
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

/* Steps 2, 4 and 5 for `ids` (dead, or emptied by the copy): listed with
 * every earlier free, then freed and synced. Listing takes a little room;
 * when it fails (a full disk), the containers are freed first and listed
 * after, in the room their freeing made. A kill between leaves them freed
 * and not listed: no live record names them, the index (DIRTY) is rebuilt
 * without them, and the next gc lists them (classify), or a later one when
 * it frees nothing itself and finds no room for the list.
 * With `list_later` (step 2 when copies follow), they are freed unlisted,
 * their room given back at once but made durable by the copies' own sync,
 * and listed by the copies' publication of the list (step 3): one
 * publication (two fsyncs and a rename) and one sync less. Safe by the
 * same argument: a kill before that sync finds them still holding data,
 * or not, and unlisted either way; no live record names them, so the next
 * gc frees or lists them. */
static gboolean free_containers(Gc *gc, const GArray *ids, gboolean list_later, GError **err)
{
    Store *s = gc->store;
    uint32_t containers;
    if (ids->len == 0 && gc->unlisted->len == 0)
        return TRUE;
    g_array_append_vals(gc->freed, ids->data, ids->len);
    g_array_append_vals(gc->freed, gc->unlisted->data, gc->unlisted->len);
    g_array_set_size(gc->unlisted, 0);
    g_array_sort(gc->freed, compare_id);
    if (!container_store_count(s->containers, &containers, err))
        return FALSE;
    gboolean listed = list_later || store_publish_freed(s, gc->freed, containers, NULL);
    for (guint i = 0; i < ids->len; i++) {
        /* readers elsewhere are out only while the lock is still this gc's */
        if ((gc->lease != NULL && !rados_lock_kept(gc->lease, err)) ||
            !container_store_free(s->containers, g_array_index(ids, ContainerId, i), err))
            return FALSE;
        gc->r->freed++;
        gc->r->reclaimed_bytes += s->container_size;
        if (gc->r->freed % PROGRESS_FREES == 0)
            report_progress(gc);
    }
    if (list_later)
        return container_store_release(s->containers, err);
    return container_store_sync(s->containers, err) &&
           (listed || ids->len == 0 || store_publish_freed(s, gc->freed, containers, err));
}

/* Did the file system fill up? The error's code says so from the failed
 * call's errno (destor_set_errno, bdb_fail), whatever its message. */
static gboolean disk_full(const GError *e)
{
    return g_error_matches(e, DESTOR_ERROR, DESTOR_ERROR_NO_SPACE);
}

static void append_message(GError *e, const char *more)
{
    char *m = g_strconcat(e->message, more, NULL);
    g_free(e->message);
    e->message = m;
}

/* The copies from id `first` on removed after a failure, giving their space
 * back, unless the store vouches for them already (the freed list put in
 * place before its publication failed): those the next gc frees. `err`
 * says what failed, and what the user can do. */
static void take_copies_back(Gc *gc, ContainerId first, GError **err)
{
    GError *local = NULL;
    char *removed = NULL;
    uint32_t committed = 0;
    if (store_committed_containers(gc->store, &committed, &local) && committed > first) {
        removed = g_strdup("its copies stay counted, the next gc frees them");
    } else if (local == NULL && container_store_discard(gc->store->containers, first, &local)) {
        removed = g_strdup("its partial copies removed");
    } else {
        removed = g_strdup_printf("removing its partial copies failed too (%s), the next gc frees them",
                                  local->message);
        g_error_free(local);
    }
    if (err == NULL) {
        g_free(removed);
        return;
    }
    char *what = g_strdup_printf("gc stopped copying the live chunks of %u sparse containers (%u empty ones "
                                 "freed before): %s; %s; %s run gc with gc-live-threshold 0 to free only empty "
                                 "containers", gc->sparse->len, gc->r->freed, (*err)->message, removed,
                                 disk_full(*err) ? "make room on the file system and run gc again, or" : "meanwhile,");
    g_free((*err)->message);
    (*err)->message = what;
    gc->advised = TRUE;
    g_free(removed);
}

/* Step 3: the sparse containers' live chunks into new containers, and the
 * records pointed at them. A failure before the copies are committed takes
 * them back. */
static gboolean empty_sparse(Gc *gc, FpIndex *idx, GError **err)
{
    ContainerId first;
    if (gc->sparse->len == 0)
        return TRUE;
    if (!store_next_container(gc->store, &first, err))
        return FALSE;
    GArray *moved = g_array_sized_new(FALSE, FALSE, sizeof(LiveChunk), gc->live->len);
    g_array_append_vals(moved, gc->live->data, gc->live->len);
    gboolean *is_sparse = g_new0(gboolean, MAX(gc->r->containers, 1));
    for (guint i = 0; i < gc->sparse->len; i++)
        is_sparse[g_array_index(gc->sparse, ContainerId, i)] = TRUE;
    uint32_t containers;
    /* the list, as it was, republished with the count that vouches for the
     * copies before any record names them */
    gboolean ok = compact_copy(gc->store, idx, first, gc->sparse, gc->live, moved, &gc->r->compact, err) &&
                  container_store_count(gc->store->containers, &containers, err) &&
                  store_publish_freed(gc->store, gc->freed, containers, err);
    if (!ok)
        take_copies_back(gc, first, err);
    ok = ok && store_mark_refcounts_stale(gc->store, err) &&
         compact_rewrite_jobs(gc->store, is_sparse, gc->r->containers, gc->live, moved, &gc->r->compact, err);
    g_free(is_sparse);
    g_array_unref(moved);
    return ok;
}

/* Step 6 for every container freed by now. */
static gboolean drop_freed(Gc *gc, FpIndex *idx, GError **err)
{
    uint32_t containers;
    GArray *removed = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    gboolean ok = fp_index_drop_containers(idx, is_freed, gc->freed, removed, &gc->r->index_entries_removed, err) &&
                  container_store_count(gc->store->containers, &containers, err) &&
                  index_survivors_restore(gc->store, idx, removed, gc->freed, containers,
                                          &gc->r->index_entries_restored, err);
    g_array_unref(removed);
    return ok;
}

/* Steps 1 to 6: what changes containers, under the index's DIRTY mark.
 * The dead containers are freed before anything is copied, so that a full
 * disk gets their room first. */
static gboolean collect_containers(Gc *gc, GError **err)
{
    Store *s = gc->store;
    if (gc->dead->len == 0 && gc->sparse->len == 0 && gc->unlisted->len == 0)
        return TRUE;
    char *dir = g_build_filename(s->dir, "index", NULL);
    FpIndex *idx = fp_index_open(dir, fingerprint_length(s->fingerprint), container_store_source(s->containers),
                                 gc->r->containers, NULL, err);
    g_free(dir);
    gboolean ok = idx != NULL && fp_index_begin_job(idx, err) &&
                  free_containers(gc, gc->dead, gc->sparse->len > 0, err) && empty_sparse(gc, idx, err) &&
                  free_containers(gc, gc->sparse, FALSE, err) && drop_freed(gc, idx, err) &&
                  fp_index_commit_job(idx, err) && store_settle_refcounts(s, err);
    fp_index_close(idx);
    /* the DB is current against the new freed list: the cluster's index from it */
    ok = ok && store_index_from_local(s, FALSE, err);
    return ok;
}

/* Step 7: what deleted jobs still hold besides manifest, tombstone and
 * reference counts: records, recipe index, file_status. The removals are
 * not synced (one fsync a job less): a crash that undoes one brings back
 * the records of a job whose tombstone is durable, which no reader, verify,
 * gc's scan or files cache reads, and the next gc removes them again;
 * nothing after this step depends on them. */
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
        char *status = g_build_filename(dir, JOB_FILE_STATUS_FILE, NULL);
        gboolean had = g_file_test(meta, G_FILE_TEST_EXISTS) || g_file_test(ridx, G_FILE_TEST_EXISTS);
        if (had && !store_drop_records(gc->store, id, err))
            ok = FALSE;
        else if ((unlink(ridx) != 0 && errno != ENOENT) || (unlink(meta) != 0 && errno != ENOENT) ||
                 (unlink(status) != 0 && errno != ENOENT)) {
            destor_set_errno(err, errno, "remove the records of deleted job %u in %s", id, dir);
            ok = FALSE;
        }
        gc->r->jobs_collected += ok && had;
        g_free(status);
        g_free(ridx);
        g_free(meta);
        g_free(dir);
    }
    if (all != NULL)
        g_array_unref(all);
    return ok;
}

gboolean lifecycle_gc(Store *store, double live_threshold, GcProgressFn progress, void *ctx, GcReport *r,
                      GError **err)
{
    g_assert(store->lock_fd >= 0); /* the writer */
    g_assert(live_threshold >= 0.0 && live_threshold <= 1.0);
    memset(r, 0, sizeof *r);
    Gc gc = { .store = store, .r = r, .progress = progress, .ctx = ctx };
    if (!container_store_count(store->containers, &r->containers, err))
        return FALSE;
    gc.live = live_chunks_new();
    gc.live_bytes = g_new0(uint64_t, MAX(r->containers, 1));
    gc.dead = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    gc.sparse = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    gc.unlisted = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    gc.freed = freed_list_load(store->dir, NULL, err);
    int readers = -1;
    gboolean ok = gc.freed != NULL && store_refresh_records(store, err) && scan_live_jobs(&gc, err) &&
                  classify(&gc, live_threshold, err);
    if (ok && !store->readers_lock_new)
        readers = reader_lock_try_exclusive(store->dir, &r->deferred, err);
    r->deferred = r->deferred || store->readers_lock_new;
    ok = ok && (readers >= 0 || r->deferred);
    if (ok && !r->deferred && store->cluster != NULL) {
        /* readers on other machines: waited for as long as a dead one's lease runs */
        unsigned lease = store->rados.lock_duration;
        gc.lease = rados_readers_exclude(store_cluster_connection(store->cluster), lease, lease, &r->deferred, err);
        ok = gc.lease != NULL || r->deferred;
    }
    if (ok && !r->deferred)
        ok = collect_containers(&gc, err) && collect_deleted_jobs(&gc, err);
    /* no reader reads them: removed whether or not readers held gc off */
    ok = ok && store_drop_uncommitted(store, &r->uncommitted_objects, err);
    rados_lock_release(gc.lease);
    if (readers >= 0)
        close(readers);
    if (!ok && err != NULL && !gc.advised && disk_full(*err))
        append_message(*err, "; make room on the file system and run gc again");
    report_progress(&gc);
    if (gc.freed != NULL)
        g_array_unref(gc.freed);
    g_array_unref(gc.unlisted);
    g_array_unref(gc.sparse);
    g_array_unref(gc.dead);
    g_free(gc.live_bytes);
    g_array_unref(gc.live);
    return ok;
}
