/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_tombstone.c: writing and finding the mark of a deleted job. */
#include "recipe/job_tombstone.h"
#include "recipe/job_catalog.h"
#include "util/checksum.h"
#include "util/file_replace.h"
#include "util/le.h"

#include <string.h>

#define TOMBSTONE_MAGIC "DPLCDEL1"
#define TOMBSTONE_VERSION 1

static char *tombstone_path(const char *workdir, uint32_t job_id)
{
    char *dir = job_dir_path(workdir, job_id);
    char *path = g_build_filename(dir, JOB_DELETED_FILE, NULL);
    g_free(dir);
    return path;
}

void job_tombstone_encode(uint32_t job_id, int64_t when, uint8_t p[JOB_TOMBSTONE_SIZE])
{
    memset(p, 0, JOB_TOMBSTONE_SIZE);
    memcpy(p, TOMBSTONE_MAGIC, 8);
    le32_put(p + 8, TOMBSTONE_VERSION);
    le32_put(p + 12, job_id);
    le64_put(p + 16, (uint64_t)when);
    le32_put(p + 24, checksum_crc32(CHECKSUM_CRC32_START, p, 24));
}

gboolean job_tombstone_publish(const char *workdir, uint32_t job_id, int64_t when, GError **err)
{
    uint8_t p[JOB_TOMBSTONE_SIZE];
    job_tombstone_encode(job_id, when, p);
    char *path = tombstone_path(workdir, job_id);
    gboolean ok = file_publish_atomic(path, p, sizeof p, err);
    g_free(path);
    return ok;
}

gboolean job_is_deleted(const char *workdir, uint32_t job_id)
{
    char *path = tombstone_path(workdir, job_id);
    gboolean deleted = g_file_test(path, G_FILE_TEST_EXISTS);
    g_free(path);
    return deleted;
}
