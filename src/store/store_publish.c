/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store_publish.c: what writers publish, into the store's cluster first
 * (a rados store's, store_cluster.h), then into the working directory, so
 * that the working directory never holds what the cluster does not: a
 * kill between leaves the cluster ahead, and the next open brings the
 * working directory up to it (store_cluster_pull). */
#include "store/store.h"
#include "recipe/job_tombstone.h"
#include "recipe/refcount_recount.h"
#include "store/freed_list.h"
#include "store/store_index.h"

gboolean store_publish_job(Store *s, const char *job_dir, const JobManifest *m, const GArray *new_entries,
                           GError **err)
{
    g_assert(s->lock_fd >= 0);
    g_assert((s->cluster != NULL) == (new_entries != NULL));
    if (s->cluster != NULL) {
        size_t len;
        uint8_t *bytes = job_manifest_encode(m, &len);
        gboolean ok = store_cluster_put_job(s->cluster, s->dir, m->job_id, TRUE, err) &&
                      store_index_put_job(s, m->job_id, new_entries, err) &&
                      store_cluster_commit_job(s->cluster, m->job_id, bytes, len, err);
        g_free(bytes);
        if (!ok)
            return FALSE;
    }
    if (!job_manifest_publish(job_dir, m, err))
        return FALSE;
    if (s->cluster != NULL)
        store_index_job_committed(s, m->job_id, new_entries);
    return TRUE;
}

gboolean store_publish_tombstone(Store *s, uint32_t job_id, int64_t when, GError **err)
{
    g_assert(s->lock_fd >= 0);
    uint8_t bytes[JOB_TOMBSTONE_SIZE];
    job_tombstone_encode(job_id, when, bytes);
    return (s->cluster == NULL || store_cluster_put_tombstone(s->cluster, job_id, bytes, sizeof bytes, err)) &&
           job_tombstone_publish(s->dir, job_id, when, err);
}

gboolean store_publish_freed(Store *s, const GArray *ids, uint32_t containers, GError **err)
{
    g_assert(s->lock_fd >= 0);
    if (s->cluster != NULL) {
        size_t len;
        uint8_t *bytes = freed_list_encode(ids, containers, &len);
        gboolean ok = store_cluster_put_freed(s->cluster, bytes, len, err);
        g_free(bytes);
        if (!ok)
            return FALSE;
    }
    return freed_list_publish(s->dir, ids, containers, err);
}

gboolean store_mark_refcounts_stale(Store *s, GError **err)
{
    g_assert(s->lock_fd >= 0);
    return (s->cluster == NULL || store_cluster_mark_refcounts(s->cluster, TRUE, err)) &&
           refcount_mark_dirty(s->dir, err);
}

gboolean store_publish_records(Store *s, uint32_t job_id, GError **err)
{
    g_assert(s->lock_fd >= 0);
    return s->cluster == NULL || store_cluster_put_records(s->cluster, s->dir, job_id, err);
}

gboolean store_drop_records(Store *s, uint32_t job_id, GError **err)
{
    g_assert(s->lock_fd >= 0);
    return s->cluster == NULL || store_cluster_drop_records(s->cluster, job_id, err);
}

gboolean store_drop_uncommitted(Store *s, uint32_t *removed, GError **err)
{
    g_assert(s->lock_fd >= 0);
    *removed = 0;
    return s->cluster == NULL || store_cluster_drop_uncommitted(s->cluster, removed, err);
}

gboolean store_publish_recipe(Store *s, uint32_t job_id, GError **err)
{
    g_assert(s->lock_fd >= 0);
    return s->cluster == NULL || store_cluster_put_recipe(s->cluster, s->dir, job_id, err);
}

gboolean store_publish_refcount(Store *s, uint32_t job_id, GError **err)
{
    g_assert(s->lock_fd >= 0);
    return s->cluster == NULL || store_cluster_put_refcount(s->cluster, s->dir, job_id, err);
}
