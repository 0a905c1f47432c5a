/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job.c: opening a job and finding one path in it. */
#include "read/job.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

gboolean job_id_parse(const char *text, uint32_t *id, GError **err)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (text[0] == '\0' || !g_ascii_isdigit(text[0]) || *end != '\0' || errno != 0 || v > UINT32_MAX) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "'%s' is not a job id (expected a number like 0)", text);
        return FALSE;
    }
    *id = (uint32_t)v;
    return TRUE;
}

static Job *open_job(const Store *store, uint32_t job_id, gboolean deleted_too, GError **err)
{
    Job *job = g_new0(Job, 1);
    if (!(deleted_too ? job_manifest_load_any : job_manifest_load)(store->dir, job_id, &job->manifest, err)) {
        job_close(job);
        return NULL;
    }
    char *dir = job_dir_path(store->dir, job_id);
    char *meta = g_build_filename(dir, JOB_META_FILE, NULL);
    char *ridx = g_build_filename(dir, JOB_RECIPE_INDEX_FILE, NULL);
    job->meta = job_meta_reader_open(meta, job_id, err);
    if (job->meta != NULL)
        job->recipes = recipe_index_open(ridx, err);
    g_free(meta);
    g_free(ridx);
    g_free(dir);
    if (job->recipes == NULL) {
        job_close(job);
        return NULL;
    }
    return job;
}

Job *job_open(const Store *store, uint32_t job_id, GError **err)
{
    return open_job(store, job_id, FALSE, err);
}

Job *job_open_any(const Store *store, uint32_t job_id, GError **err)
{
    return open_job(store, job_id, TRUE, err);
}

void job_close(Job *job)
{
    if (job == NULL)
        return;
    job_manifest_clear(&job->manifest);
    job_meta_reader_close(job->meta);
    recipe_index_close(job->recipes);
    g_free(job);
}

FileRecord *job_find(Job *job, const char *path, GError **err)
{
    const char *p = path;
    for (;;) {
        if (p[0] == '/')
            p++;
        else if (p[0] == '.' && p[1] == '/')
            p += 2;
        else
            break;
    }
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        len--;
    uint64_t offset;
    uint32_t length;
    gboolean found = FALSE;
    if (!recipe_index_get(job->recipes, p, len, &offset, &length, &found, err))
        return NULL;
    if (!found) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "'%s' is not in job %u", path, job->manifest.job_id);
        return NULL;
    }
    return job_record_at(job, NULL, p, len, offset, length, err);
}

FileRecord *job_record_at(Job *job, JobMetaWindow *w, const void *path, size_t path_len, uint64_t offset,
                          uint32_t length, GError **err)
{
    FileRecord *r = w != NULL ? job_meta_reader_at_window(job->meta, w, offset, length, err)
                              : job_meta_reader_at(job->meta, offset, length, err);
    if (r != NULL && (r->path->len != path_len || memcmp(r->path->data, path, path_len) != 0)) {
        char *shown = g_strndup(path, path_len);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "recipe index of job %u is damaged: entry for '%s' points at another file's record",
                    job->manifest.job_id, shown);
        g_free(shown);
        file_record_free(r);
        return NULL;
    }
    return r;
}
