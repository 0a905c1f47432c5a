/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_path.c: a mount's paths to jobs and the paths within them. */
#include "mount/mount_path.h"
#include "mount/mount_stats.h"

#include <string.h>

/* The job id `name` (len bytes) spells canonically, as the root lists it. */
static gboolean job_name(const char *name, size_t len, uint32_t *id)
{
    if (len == 0 || len > 10 || (len > 1 && name[0] == '0'))
        return FALSE;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!g_ascii_isdigit(name[i]))
            return FALSE;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    if (v > UINT32_MAX)
        return FALSE;
    *id = (uint32_t)v;
    return TRUE;
}

MountPath mount_path_parse(const char *path, gboolean one_job, uint32_t job)
{
    MountPath p = { .kind = MOUNT_PATH_NONE };
    g_assert(path[0] == '/');
    const char *rest = path + 1;
    if (one_job) {
        p.kind = MOUNT_PATH_JOB;
        p.job = job;
        p.inner = rest;
        return p;
    }
    if (rest[0] == '\0') {
        p.kind = MOUNT_PATH_ROOT;
        return p;
    }
    const char *slash = strchr(rest, '/');
    size_t len = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
    if (slash == NULL && strcmp(rest, MOUNT_LATEST) == 0) {
        p.kind = MOUNT_PATH_LATEST;
    } else if (slash == NULL && strcmp(rest, MOUNT_STATS_DIR) == 0) {
        p.kind = MOUNT_PATH_STATS_DIR;
    } else if (strcmp(rest, MOUNT_STATS_DIR "/" MOUNT_STATS_FILE) == 0) {
        p.kind = MOUNT_PATH_STATS;
    } else if (job_name(rest, len, &p.job)) {
        p.kind = MOUNT_PATH_JOB;
        p.inner = slash != NULL ? slash + 1 : "";
    }
    return p;
}
