/* SPDX-License-Identifier: GPL-3.0-or-later */
/* refcount_recount.c: counting the current reference counts again from the
 * live jobs' records (see refcount_recount.h). */
#include "recipe/refcount_recount.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"

#include <errno.h>
#include <unistd.h>

static char *mark_path(const char *workdir)
{
    return g_build_filename(workdir, "jobs", REFCOUNT_DIRTY_FILE, NULL);
}

gboolean refcount_mark_dirty(const char *workdir, GError **err)
{
    char *path = mark_path(workdir);
    gboolean ok = file_publish_atomic(path, "dirty\n", 6, err);
    g_free(path);
    return ok;
}

gboolean refcount_is_dirty(const char *workdir)
{
    char *path = mark_path(workdir);
    gboolean dirty = g_file_test(path, G_FILE_TEST_EXISTS);
    g_free(path);
    return dirty;
}

/* Add job `job_id`'s records to counts[0..n). */
static gboolean count_job(const char *workdir, uint32_t job_id, uint32_t *counts, uint32_t n, GError **err)
{
    JobMetaReader *meta = job_catalog_open_records(workdir, job_id, err);
    if (meta == NULL)
        return FALSE;
    FileRecord *r;
    GError *local = NULL;
    while ((r = job_meta_reader_next(meta, &local)) != NULL) {
        refcount_add_file(counts, n, r);
        file_record_free(r);
    }
    job_meta_reader_close(meta);
    if (local == NULL)
        return TRUE;
    g_propagate_error(err, local);
    return FALSE;
}

static gboolean clear_mark(const char *workdir, GError **err)
{
    char *path = mark_path(workdir);
    char *jobs = g_build_filename(workdir, "jobs", NULL);
    gboolean ok = unlink(path) == 0 || errno == ENOENT;
    if (!ok)
        destor_set_errno(err, errno, "remove %s", path);
    ok = ok && dir_fsync(jobs, err);
    g_free(jobs);
    g_free(path);
    return ok;
}

gboolean refcount_recount(const char *workdir, uint32_t n, GError **err)
{
    GArray *all = job_catalog_list(workdir, err);
    if (all == NULL)
        return FALSE;
    if (all->len == 0) {
        g_array_unref(all);
        return clear_mark(workdir, err);
    }
    uint32_t newest = g_array_index(all, uint32_t, all->len - 1);
    g_array_unref(all);
    GArray *live = job_catalog_list_live(workdir, err);
    if (live == NULL)
        return FALSE;
    uint32_t *counts = g_new0(uint32_t, MAX(n, 1));
    gboolean ok = TRUE;
    for (guint i = 0; i < live->len && ok; i++)
        ok = count_job(workdir, g_array_index(live, uint32_t, i), counts, n, err);
    char *dir = job_dir_path(workdir, newest);
    ok = ok && refcount_save(dir, counts, n, err) && dir_fsync(dir, err) && clear_mark(workdir, err);
    g_free(dir);
    g_free(counts);
    g_array_unref(live);
    return ok;
}

gboolean refcount_settle(const char *workdir, uint32_t containers, GError **err)
{
    return !refcount_is_dirty(workdir) || refcount_recount(workdir, containers, err);
}
