/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_node.c: open handles, and paths to jobs and records. */
#include "mount/mount_node.h"
#include "mount/mount_dir.h"
#include "recipe/job_tombstone.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>

MountHandle *mount_handle_of(const struct fuse_file_info *fi)
{
    MountHandle *h = (MountHandle *)(uintptr_t)fi->fh;
    g_assert(h != NULL);
    return h;
}

void mount_handle_free(MountHandle *h)
{
    file_record_free(h->record);
    g_free(h->starts);
    free(h->text); /* open_memstream's */
    g_free(h->path);
    if (h->from != NULL)
        g_byte_array_unref(h->from);
    job_meta_window_clear(&h->records);
    g_free(h);
}

MountFs *mount_fs_of_call(void)
{
    return fuse_get_context()->private_data;
}

int mount_fail_errno(GError *err, const char *what)
{
    int e = ENOENT;
    if (!g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE)) {
        destor_warning("%s: %s (the reader gets EIO)", what, err ? err->message : "failed");
        e = EIO;
    }
    g_clear_error(&err);
    return -e;
}

gboolean mount_newest_job(MountFs *fs, uint32_t *id)
{
    GArray *ids = job_catalog_list_live(fs->session->store->dir, NULL);
    gboolean any = ids != NULL && ids->len > 0;
    if (any)
        *id = g_array_index(ids, uint32_t, ids->len - 1);
    if (ids != NULL)
        g_array_unref(ids);
    return any;
}

Job *mount_live_job(MountFs *fs, const MountPath *p, int *e)
{
    GError *err = NULL;
    uint32_t id = p->job;
    gboolean held = g_hash_table_contains(fs->session->jobs, GUINT_TO_POINTER(id));
    gboolean entering = p->inner[0] == '\0' && !fs->one_job; /* its directory at the root */
    if ((entering || !held) && job_is_deleted(fs->session->store->dir, id)) {
        *e = -ENOENT;
        return NULL;
    }
    Job *job = read_session_job(fs->session, id, &err);
    if (job == NULL) {
        char *what = g_strdup_printf("job %u", id);
        *e = mount_fail_errno(err, what);
        g_free(what);
    }
    return job;
}

int mount_find_entry(Job *job, const char *inner, FileRecord **r)
{
    *r = NULL;
    if (inner[0] == '\0')
        return 0;
    GError *err = NULL;
    *r = job_find(job, inner, &err);
    if (*r != NULL)
        return 0;
    gboolean has = FALSE;
    if (g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE)) {
        g_clear_error(&err);
        if (mount_dir_has_entries(job, inner, &has, &err) && has)
            return 0;
        if (err == NULL)
            return -ENOENT;
    }
    char *what = g_strdup_printf("'%s' in job %u", inner, job->manifest.job_id);
    int e = mount_fail_errno(err, what);
    g_free(what);
    return e;
}
