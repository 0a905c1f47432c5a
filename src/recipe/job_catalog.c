/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_catalog.c: manifest encoding, job listing, and reference-count files. */
#include "recipe/job_catalog.h"
#include "recipe/job_tombstone.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REFCOUNT_MAGIC "DPLCREF1"
#define REFCOUNT_HEADER 16

void job_manifest_clear(JobManifest *m)
{
    g_free(m->source_root);
    memset(m, 0, sizeof *m);
}

double job_manifest_containers_per_mib(const JobManifest *m)
{
    return m->logical_bytes ? (double)m->restore_container_reads / ((double)m->logical_bytes / (1024.0 * 1024.0))
                            : 0.0;
}

char *job_dir_path(const char *workdir, uint32_t job_id)
{
    char name[16];
    g_snprintf(name, sizeof name, "%08u", job_id);
    return g_build_filename(workdir, "jobs", name, NULL);
}

uint8_t *job_manifest_encode(const JobManifest *m, size_t *len_out)
{
    size_t root_len = strlen(m->source_root);
    size_t len = MANIFEST_FIXED_SIZE + 4 + root_len + 4;
    uint8_t *p = g_malloc0(len);
    memcpy(p, MANIFEST_MAGIC, 8);
    le32_put(p + 8, MANIFEST_VERSION);
    le32_put(p + 12, m->job_id);
    le64_put(p + 16, (uint64_t)m->created_unix);
    le64_put(p + 24, m->files);
    le64_put(p + 32, m->dirs);
    le64_put(p + 40, m->symlinks);
    le64_put(p + 48, m->skipped);
    le64_put(p + 56, m->logical_bytes);
    le64_put(p + 64, m->stored_bytes);
    le64_put(p + 72, m->chunks);
    le64_put(p + 80, m->new_chunks);
    le32_put(p + 88, m->containers_total);
    le32_put(p + 92, m->first_new_container);
    le64_put(p + 96, m->job_meta_size);
    le32_put(p + 104, m->container_size);
    le64_put(p + 128, m->rewritten_chunks);
    le64_put(p + 136, m->rewritten_bytes);
    le64_put(p + 144, m->restore_container_reads);
    le32_put(p + 152, m->fragmentation_cache_containers);
    le32_put(p + MANIFEST_FIXED_SIZE, (uint32_t)root_len);
    memcpy(p + MANIFEST_FIXED_SIZE + 4, m->source_root, root_len);
    le32_put(p + len - 4, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
    *len_out = len;
    return p;
}

gboolean job_manifest_publish(const char *job_dir, const JobManifest *m, GError **err)
{
    size_t len;
    uint8_t *p = job_manifest_encode(m, &len);
    char *path = g_build_filename(job_dir, JOB_MANIFEST_FILE, NULL);
    gboolean ok = file_publish_atomic(path, p, len, err);
    g_free(path);
    g_free(p);
    return ok;
}

gboolean job_manifest_decode(const uint8_t *p, size_t len, uint32_t job_id, const char *path,
                             JobManifest *m, GError **err)
{
    memset(m, 0, sizeof *m);
    uint32_t version = len >= 12 ? le32_get(p + 8) : 0;
    size_t fixed = MANIFEST_FIXED_SIZE_OF(version);
    if (len < fixed + 8 || memcmp(p, MANIFEST_MAGIC, 8) != 0 || version < 1 || version > MANIFEST_VERSION ||
        le32_get(p + fixed) != len - fixed - 8 ||
        le32_get(p + len - 4) != checksum_crc32(CHECKSUM_CRC32_START, p, len - 4) || le32_get(p + 12) != job_id) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "manifest of job %u (%s) is damaged", job_id, path);
        return FALSE;
    }
    m->job_id = job_id;
    m->created_unix = (int64_t)le64_get(p + 16);
    m->files = le64_get(p + 24);
    m->dirs = le64_get(p + 32);
    m->symlinks = le64_get(p + 40);
    m->skipped = le64_get(p + 48);
    m->logical_bytes = le64_get(p + 56);
    m->stored_bytes = le64_get(p + 64);
    m->chunks = le64_get(p + 72);
    m->new_chunks = le64_get(p + 80);
    m->containers_total = le32_get(p + 88);
    m->first_new_container = le32_get(p + 92);
    m->job_meta_size = le64_get(p + 96);
    m->container_size = le32_get(p + 104);
    if (version >= 2) {
        m->has_fragmentation = TRUE;
        m->rewritten_chunks = le64_get(p + 128);
        m->rewritten_bytes = le64_get(p + 136);
        m->restore_container_reads = le64_get(p + 144);
        m->fragmentation_cache_containers = le32_get(p + 152);
    }
    m->source_root = g_strndup((const char *)p + fixed + 4, len - fixed - 8);
    m->checksum = le32_get(p + len - 4);
    return TRUE;
}

gboolean job_manifest_load(const char *workdir, uint32_t job_id, JobManifest *m, GError **err)
{
    if (job_is_deleted(workdir, job_id)) {
        memset(m, 0, sizeof *m);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "job %u was deleted from %s", job_id, workdir);
        return FALSE;
    }
    return job_manifest_load_any(workdir, job_id, m, err);
}

gboolean job_manifest_load_any(const char *workdir, uint32_t job_id, JobManifest *m, GError **err)
{
    char *dir = job_dir_path(workdir, job_id);
    char *path = g_build_filename(dir, JOB_MANIFEST_FILE, NULL);
    uint8_t *p = NULL;
    size_t len = 0;
    gboolean ok = FALSE;
    memset(m, 0, sizeof *m);
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "job %u does not exist in %s", job_id, workdir);
        goto out;
    }
    if (!file_read_whole(path, &p, &len, err))
        goto out;
    ok = job_manifest_decode(p, len, job_id, path, m, err);
out:
    g_free(p);
    g_free(path);
    g_free(dir);
    return ok;
}

static gint compare_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

GArray *job_catalog_list(const char *workdir, GError **err)
{
    char *jobs = g_build_filename(workdir, "jobs", NULL);
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GError *local = NULL;
    GDir *d = g_dir_open(jobs, 0, &local);
    if (d == NULL) {
        gboolean missing = g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT);
        g_clear_error(&local);
        g_free(jobs);
        if (missing)
            return ids;
        destor_set_errno(err, EIO, "list %s", jobs);
        g_array_unref(ids);
        return NULL;
    }
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        char *end = NULL;
        unsigned long id = strtoul(name, &end, 10);
        if (strlen(name) != 8 || *end != '\0' || id > UINT32_MAX)
            continue;
        char *manifest = g_build_filename(jobs, name, JOB_MANIFEST_FILE, NULL);
        if (g_file_test(manifest, G_FILE_TEST_IS_REGULAR)) {
            uint32_t v = (uint32_t)id;
            g_array_append_val(ids, v);
        }
        g_free(manifest);
    }
    g_dir_close(d);
    g_free(jobs);
    g_array_sort(ids, compare_u32);
    return ids;
}

GArray *job_catalog_list_live(const char *workdir, GError **err)
{
    GArray *ids = job_catalog_list(workdir, err);
    for (guint i = ids ? ids->len : 0; i > 0; i--)
        if (job_is_deleted(workdir, g_array_index(ids, uint32_t, i - 1)))
            g_array_remove_index(ids, i - 1);
    return ids;
}

JobMetaReader *job_catalog_open_records(const char *workdir, uint32_t job_id, GError **err)
{
    char *dir = job_dir_path(workdir, job_id);
    char *path = g_build_filename(dir, JOB_META_FILE, NULL);
    JobMetaReader *meta = job_meta_reader_open(path, job_id, err);
    g_free(path);
    g_free(dir);
    return meta;
}

/* Remove `name` in dir_fd (`shown` in errors) and all under it, by
 * descriptors: a symlink planted there, to a directory outside the store
 * say, is removed itself, never followed. */
static gboolean remove_at(int dir_fd, const char *name, const char *shown, GError **err)
{
    if (unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT)
        return TRUE;
    if (errno != EISDIR) {
        destor_set_errno(err, errno, "remove %s", shown);
        return FALSE;
    }
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        destor_set_errno(err, errno, "open %s", shown);
        if (fd >= 0)
            close(fd);
        return FALSE;
    }
    gboolean ok = TRUE;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = g_build_filename(shown, e->d_name, NULL);
        ok = remove_at(fd, e->d_name, child, err);
        g_free(child);
    }
    closedir(d);
    if (ok && unlinkat(dir_fd, name, AT_REMOVEDIR) != 0) {
        destor_set_errno(err, errno, "remove %s", shown);
        ok = FALSE;
    }
    return ok;
}

gboolean job_catalog_create_job(const char *workdir, uint32_t *job_id, char **job_dir, GError **err)
{
    GArray *ids = job_catalog_list(workdir, err);
    if (ids == NULL)
        return FALSE;
    *job_id = ids->len == 0 ? 0 : g_array_index(ids, uint32_t, ids->len - 1) + 1;
    g_array_unref(ids);
    *job_dir = job_dir_path(workdir, *job_id);
    if (!remove_at(AT_FDCWD, *job_dir, *job_dir, err) || g_mkdir_with_parents(*job_dir, 0755) != 0) {
        if (err != NULL && *err == NULL)
            destor_set_errno(err, errno, "create %s", *job_dir);
        g_clear_pointer(job_dir, g_free);
        return FALSE;
    }
    return TRUE;
}

void refcount_add_file(uint32_t *counts, uint32_t n, const FileRecord *r)
{
    guint len = r->chunks->len;
    if (len == 0)
        return;
    uint32_t *ids = g_new(uint32_t, len);
    for (guint i = 0; i < len; i++)
        ids[i] = g_array_index(r->chunks, ChunkRef, i).container;
    qsort(ids, len, sizeof *ids, compare_u32);
    for (guint i = 0; i < len; i++)
        if ((i == 0 || ids[i] != ids[i - 1]) && ids[i] < n)
            counts[ids[i]]++;
    g_free(ids);
}

gboolean refcount_save(const char *job_dir, const uint32_t *counts, uint32_t n, GError **err)
{
    size_t len = REFCOUNT_HEADER + (size_t)n * 4;
    uint8_t *p = g_malloc(len);
    memcpy(p, REFCOUNT_MAGIC, 8);
    le32_put(p + 8, n);
    for (uint32_t i = 0; i < n; i++)
        le32_put(p + REFCOUNT_HEADER + (size_t)i * 4, counts[i]);
    le32_put(p + 12, checksum_crc32(CHECKSUM_CRC32_START, p + REFCOUNT_HEADER, len - REFCOUNT_HEADER));
    char *path = g_build_filename(job_dir, JOB_REFCOUNT_FILE, NULL);
    gboolean ok = file_publish_unsynced_dir(path, p, len, err);
    g_free(path);
    g_free(p);
    return ok;
}

gboolean refcount_decode(const uint8_t *p, size_t len, const char *path, uint32_t **counts, uint32_t *n,
                         GError **err)
{
    *counts = NULL;
    *n = 0;
    if (len < REFCOUNT_HEADER || memcmp(p, REFCOUNT_MAGIC, 8) != 0 ||
        (size_t)le32_get(p + 8) * 4 + REFCOUNT_HEADER != len ||
        le32_get(p + 12) != checksum_crc32(CHECKSUM_CRC32_START, p + REFCOUNT_HEADER, len - REFCOUNT_HEADER)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "reference counts %s are damaged", path);
        return FALSE;
    }
    *n = le32_get(p + 8);
    *counts = g_new(uint32_t, *n ? *n : 1);
    for (uint32_t i = 0; i < *n; i++)
        (*counts)[i] = le32_get(p + REFCOUNT_HEADER + (size_t)i * 4);
    return TRUE;
}

gboolean refcount_load_job(const char *workdir, uint32_t job_id, uint32_t **counts, uint32_t *n, GError **err)
{
    *counts = NULL;
    *n = 0;
    char *dir = job_dir_path(workdir, job_id);
    char *path = g_build_filename(dir, JOB_REFCOUNT_FILE, NULL);
    uint8_t *p = NULL;
    size_t len = 0;
    gboolean ok = FALSE;
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) /* written before the manifest: lost since */
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "reference counts %s are missing", path);
    else
        ok = file_read_whole(path, &p, &len, err) && refcount_decode(p, len, path, counts, n, err);
    g_free(p);
    g_free(path);
    g_free(dir);
    return ok;
}

gboolean refcount_load_current(const char *workdir, uint32_t **counts, uint32_t *n, GError **err)
{
    *counts = NULL;
    *n = 0;
    GArray *ids = job_catalog_list(workdir, err);
    if (ids == NULL)
        return FALSE;
    gboolean ok = ids->len == 0 || refcount_load_job(workdir, g_array_index(ids, uint32_t, ids->len - 1), counts, n, err);
    g_array_unref(ids);
    return ok;
}
