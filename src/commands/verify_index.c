/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verify_index.c: reading the fingerprint index whole and holding it
 * against the containers (see verify_index.h). Memory: one FpIndexEntry
 * (44 bytes) plus 4 bytes per indexed chunk. */
#include "commands/verify_index.h"
#include "index/fp_index.h"
#include "recipe/job_catalog.h"
#include "storage/container.h"
#include "store/store_index.h"
#include "util/error.h"

#include <string.h>
#include <sys/stat.h>

#define READ_TRIES 3

/* What must not change while the index is read for the check to count. */
typedef struct {
    gboolean dirty;
    struct stat db; /* zeroed when the DB is missing */
    int64_t newest_job;
    uint32_t committed; /* containers of the newest job */
} IndexStamp;

static gboolean take_stamp(const Store *store, IndexStamp *st, GError **err)
{
    memset(st, 0, sizeof *st);
    char *dirty = g_build_filename(store->dir, "index", "DIRTY", NULL);
    char *db = g_build_filename(store->dir, "index", "fingerprints.db", NULL);
    st->dirty = g_file_test(dirty, G_FILE_TEST_EXISTS);
    if (stat(db, &st->db) != 0)
        memset(&st->db, 0, sizeof st->db);
    g_free(dirty);
    g_free(db);
    GArray *ids = job_catalog_list(store->dir, err);
    if (ids == NULL)
        return FALSE;
    st->newest_job = ids->len ? (int64_t)g_array_index(ids, uint32_t, ids->len - 1) : -1;
    /* The newest job whose manifest loads: a deleted job's does not (with
     * the newest job deleted, every container went unchecked for chunks
     * missing from the index); a damaged one is verify's job report. */
    for (guint i = ids->len; i > 0; i--) {
        JobManifest m;
        if (job_manifest_load(store->dir, g_array_index(ids, uint32_t, i - 1), &m, NULL)) {
            st->committed = m.containers_total;
            job_manifest_clear(&m);
            break;
        }
    }
    g_array_unref(ids);
    return TRUE;
}

static gboolean same_stamp(const IndexStamp *a, const IndexStamp *b)
{
    return a->dirty == b->dirty && a->newest_job == b->newest_job && a->db.st_ino == b->db.st_ino &&
           a->db.st_dev == b->db.st_dev && a->db.st_size == b->db.st_size &&
           a->db.st_mtim.tv_sec == b->db.st_mtim.tv_sec && a->db.st_mtim.tv_nsec == b->db.st_mtim.tv_nsec &&
           a->db.st_ctim.tv_sec == b->db.st_ctim.tv_sec && a->db.st_ctim.tv_nsec == b->db.st_ctim.tv_nsec;
}

static gint by_location(gconstpointer a, gconstpointer b)
{
    const ChunkLocation *x = &((const FpIndexEntry *)a)->loc, *y = &((const FpIndexEntry *)b)->loc;
    if (x->container != y->container)
        return x->container < y->container ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static gint by_fingerprint(gconstpointer a, gconstpointer b, gpointer entries)
{
    const FpIndexEntry *e = (const FpIndexEntry *)((GArray *)entries)->data;
    return memcmp(e[*(const guint *)a].fp.bytes, e[*(const guint *)b].fp.bytes, FP_SLOT);
}

typedef struct {
    GArray *entries; /* FpIndexEntry, by location */
    GArray *by_fp;   /* guint positions in entries, by fingerprint */
    IndexProblemFn report;
    void *ctx;
} Check;

static gboolean indexed(const Check *ck, const Fingerprint *fp)
{
    const FpIndexEntry *e = (const FpIndexEntry *)ck->entries->data;
    const guint *pos = (const guint *)ck->by_fp->data;
    guint lo = 0, hi = ck->by_fp->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        int c = memcmp(e[pos[mid]].fp.bytes, fp->bytes, FP_SLOT);
        if (c == 0)
            return TRUE;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FALSE;
}

/* Container c against its index entries [from, to) and, if committed, its
 * chunks against the index; problems are summed up per container. */
static gboolean check_container(Check *ck, Store *store, ContainerLru *lru, ContainerId c, guint from, guint to,
                                gboolean committed, uint32_t slots, GError **err)
{
    const FpIndexEntry *e = &g_array_index(ck->entries, FpIndexEntry, from);
    guint named = to - from;
    if (c >= slots) {
        char *what = g_strdup_printf("the fingerprint index names %u chunks in container %u, past the store's "
                                     "end (%u containers)", named, c, slots);
        ck->report(ck->ctx, c, -1, what);
        g_free(what);
        return TRUE;
    }
    GError *local = NULL;
    const uint8_t *buf = container_lru_get(lru, c, &local);
    if (buf == NULL) {
        gboolean damage = local->code == DESTOR_ERROR_INTEGRITY;
        if (!damage) {
            g_propagate_error(err, local);
            return FALSE;
        }
        if (named > 0) { /* an unindexed damaged slot is a torn one: nothing names it */
            char *what = g_strdup_printf("the fingerprint index names %u chunks in it: %s", named, local->message);
            ck->report(ck->ctx, c, -1, what);
            g_free(what);
        }
        g_error_free(local);
        return TRUE;
    }
    guint wrong = 0;
    int64_t first_wrong = -1;
    for (guint i = 0; i < named; i++) {
        if (!container_check_chunk(buf, store->container_size, c, &e[i].fp, e[i].loc.offset, e[i].loc.length,
                                   NULL) && wrong++ == 0)
            first_wrong = e[i].loc.offset;
    }
    if (wrong > 0) {
        char *what = g_strdup_printf("%u fingerprint index entries name chunks this container does not hold "
                                     "(the first at offset %lld)", wrong, (long long)first_wrong);
        ck->report(ck->ctx, c, first_wrong, what);
        g_free(what);
    }
    if (!committed)
        return TRUE;
    uint32_t n = container_chunk_count(buf), missing = 0;
    int64_t first_missing = -1;
    for (uint32_t i = 0; i < n; i++) {
        Fingerprint fp;
        uint32_t off, len;
        container_chunk_entry(buf, store->container_size, i, &fp, &off, &len);
        if (!indexed(ck, &fp) && missing++ == 0)
            first_missing = off;
    }
    if (missing > 0) {
        char *what = g_strdup_printf("%u of its %u chunks are missing from the fingerprint index (the first at "
                                     "offset %lld)", missing, n, (long long)first_missing);
        ck->report(ck->ctx, c, first_missing, what);
        g_free(what);
    }
    return TRUE;
}

static gboolean compare(Check *ck, Store *store, ContainerLru *lru, uint32_t committed, GError **err)
{
    uint32_t slots;
    if (!container_store_count(store->containers, &slots, err))
        return FALSE;
    g_array_sort(ck->entries, by_location);
    ck->by_fp = g_array_sized_new(FALSE, FALSE, sizeof(guint), ck->entries->len);
    for (guint i = 0; i < ck->entries->len; i++)
        g_array_append_val(ck->by_fp, i);
    g_array_sort_with_data(ck->by_fp, by_fingerprint, ck->entries);
    guint i = 0, len = ck->entries->len;
    const FpIndexEntry *e = (const FpIndexEntry *)ck->entries->data;
    uint64_t end = MAX((uint64_t)committed, len ? (uint64_t)e[len - 1].loc.container + 1 : 0);
    for (uint64_t c = 0; c < end; c++) {
        guint from = i;
        while (i < len && e[i].loc.container == c)
            i++;
        if ((c < committed || i > from) &&
            !check_container(ck, store, lru, (ContainerId)c, from, i, c < committed, slots, err))
            return FALSE;
    }
    return TRUE;
}

gboolean verify_index(Store *store, ContainerLru *lru, IndexProblemFn report, void *ctx, GError **err)
{
    char *dir = g_build_filename(store->dir, "index", NULL);
    char *db = g_build_filename(dir, "fingerprints.db", NULL);
    Check ck = { .report = report, .ctx = ctx };
    IndexStamp before, after;
    GError *damage = NULL;
    gboolean ok = TRUE, stable = FALSE, exists = FALSE;
    for (int t = 0; t < READ_TRIES && ok && !stable; t++) {
        g_clear_error(&damage);
        g_clear_pointer(&ck.entries, g_array_unref);
        if (!(ok = take_stamp(store, &before, err)))
            break;
        if (before.dirty)
            break;
        ck.entries = fp_index_read_all(dir, fingerprint_length(store->fingerprint), &exists, &damage);
        if (!(ok = take_stamp(store, &after, err)))
            break;
        stable = same_stamp(&before, &after);
        /* A read that failed while a writer replaced the index (repair
         * removes and rebuilds it, marked DIRTY) is not a failure: look
         * again, and say it is being rebuilt if it still is. */
        if (stable && ck.entries == NULL && damage->code != DESTOR_ERROR_INTEGRITY) {
            g_propagate_error(err, damage);
            damage = NULL;
            ok = FALSE;
            break;
        }
    }
    if (ok && !stable) {
        destor_note("fingerprint index not checked: %s",
                   before.dirty ? "a backup or repair is rebuilding it, or one was interrupted (the next backup "
                                  "or 'destor repair' rebuilds it)"
                                : "it changed while it was read (a backup committed)");
    } else if (ok && damage != NULL) {
        char *what = g_strdup_printf("fingerprint index is damaged: %s (the next backup or 'destor repair' "
                                     "rebuilds it)", damage->message);
        report(ctx, -1, -1, what);
        g_free(what);
    } else if (ok && store_index_lags(store)) {
        /* a rados store's index is this working directory's cache, which its next writer brings up */
        destor_note("fingerprint index not checked: working directory %s's copy lags the cluster's (its next "
                    "backup, delete, gc or repair brings it up to date)", store->dir);
    } else if (ok && !exists && before.committed > 0) {
        char *what = g_strdup_printf("fingerprint index %s is missing (the next backup or 'destor repair' "
                                     "rebuilds it)", db);
        report(ctx, -1, -1, what);
        g_free(what);
    } else if (ok) {
        ok = compare(&ck, store, lru, before.committed, err);
    }
    g_clear_error(&damage);
    if (ck.entries)
        g_array_unref(ck.entries);
    if (ck.by_fp)
        g_array_unref(ck.by_fp);
    g_free(db);
    g_free(dir);
    return ok;
}
