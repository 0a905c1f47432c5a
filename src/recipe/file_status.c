/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_status.c: a job's file_status file (file_status.h; the layout is in
 * docs/FORMAT.md). */
#include "recipe/file_status.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

void file_status_table_init(FileStatusTable *t, uint32_t job_id, int64_t start_ns, ChunkAlgorithm alg,
                            const ChunkSizes *sizes)
{
    memset(t, 0, sizeof *t);
    t->job_id = job_id;
    t->start_ns = start_ns;
    t->chunk_algorithm = alg;
    t->chunk_sizes = *sizes;
    t->entries = g_array_new(FALSE, TRUE, sizeof(FileStatus));
}

void file_status_table_clear(FileStatusTable *t)
{
    if (t->entries != NULL)
        g_array_unref(t->entries);
    t->entries = NULL;
}

uint8_t *file_status_encode(const FileStatusTable *t, size_t *len)
{
    size_t n = t->entries->len;
    *len = FILE_STATUS_HEADER_SIZE + n * FILE_STATUS_ENTRY_SIZE + 4;
    uint8_t *buf = g_malloc0(*len);
    memcpy(buf, FILE_STATUS_MAGIC, 8);
    le32_put(buf + 8, FILE_STATUS_VERSION);
    le32_put(buf + 12, t->job_id);
    le64_put(buf + 16, n);
    le64_put(buf + 24, (uint64_t)t->start_ns);
    le32_put(buf + 32, (uint32_t)t->chunk_algorithm);
    le32_put(buf + 36, (uint32_t)t->chunk_sizes.min_size);
    le32_put(buf + 40, (uint32_t)t->chunk_sizes.avg_size);
    le32_put(buf + 44, (uint32_t)t->chunk_sizes.max_size);
    for (size_t i = 0; i < n; i++) {
        const FileStatus *s = &g_array_index(t->entries, FileStatus, i);
        uint8_t *e = buf + FILE_STATUS_HEADER_SIZE + i * FILE_STATUS_ENTRY_SIZE;
        le64_put(e, s->dev);
        le64_put(e + 8, s->ino);
        le64_put(e + 16, (uint64_t)s->ctime_sec);
        le32_put(e + 24, s->ctime_nsec);
        le32_put(e + 28, s->flags);
    }
    le32_put(buf + *len - 4, checksum_crc32(0, buf, *len - 4));
    return buf;
}

static gboolean damaged(GError **err, const char *path, const char *why)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s: %s", path, why);
    return FALSE;
}

gboolean file_status_decode(const uint8_t *buf, size_t len, uint32_t job_id, const char *path, FileStatusTable *t,
                            GError **err)
{
    memset(t, 0, sizeof *t);
    if (len < FILE_STATUS_HEADER_SIZE + 4 || memcmp(buf, FILE_STATUS_MAGIC, 8) != 0)
        return damaged(err, path, "not a file status file");
    if (le32_get(buf + 8) != FILE_STATUS_VERSION)
        return damaged(err, path, "unknown version");
    if (le32_get(buf + len - 4) != checksum_crc32(0, buf, len - 4))
        return damaged(err, path, "checksum mismatch");
    uint64_t n = le64_get(buf + 16);
    if (n > (len - FILE_STATUS_HEADER_SIZE - 4) / FILE_STATUS_ENTRY_SIZE ||
        len != FILE_STATUS_HEADER_SIZE + n * FILE_STATUS_ENTRY_SIZE + 4)
        return damaged(err, path, "its length disagrees with its count");
    if (le32_get(buf + 12) != job_id)
        return damaged(err, path, "it names another job");
    uint32_t alg = le32_get(buf + 32);
    if (alg > CHUNK_FASTCDC)
        return damaged(err, path, "unknown chunk algorithm");
    ChunkSizes sizes = { le32_get(buf + 36), le32_get(buf + 40), le32_get(buf + 44) };
    file_status_table_init(t, job_id, (int64_t)le64_get(buf + 24), (ChunkAlgorithm)alg, &sizes);
    g_array_set_size(t->entries, (guint)n);
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = buf + FILE_STATUS_HEADER_SIZE + i * FILE_STATUS_ENTRY_SIZE;
        FileStatus *s = &g_array_index(t->entries, FileStatus, i);
        *s = (FileStatus){ .dev = le64_get(e), .ino = le64_get(e + 8), .ctime_sec = (int64_t)le64_get(e + 16),
                           .ctime_nsec = le32_get(e + 24), .flags = le32_get(e + 28) };
        if (s->ctime_nsec >= 1000000000u) {
            file_status_table_clear(t);
            return damaged(err, path, "change time nanoseconds out of range");
        }
    }
    return TRUE;
}

gboolean file_status_save(const FileStatusTable *t, const char *job_dir, GError **err)
{
    size_t len;
    uint8_t *buf = file_status_encode(t, &len);
    char *path = g_build_filename(job_dir, JOB_FILE_STATUS_FILE, NULL);
    gboolean ok = file_publish_unsynced_dir(path, buf, len, err);
    g_free(path);
    g_free(buf);
    return ok;
}

gboolean file_status_load(const char *job_dir, uint32_t job_id, FileStatusTable *t, gboolean *present, GError **err)
{
    char *path = g_build_filename(job_dir, JOB_FILE_STATUS_FILE, NULL);
    *present = g_file_test(path, G_FILE_TEST_EXISTS);
    uint8_t *buf = NULL;
    size_t len = 0;
    gboolean ok = !*present ||
                  (file_read_whole(path, &buf, &len, err) && file_status_decode(buf, len, job_id, path, t, err));
    g_free(buf);
    g_free(path);
    return ok;
}
