/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_path.h: what a path under a destor mount names. The root holds one
 * directory per live job, named by its id in decimal ("0", "12"), and
 * `latest`, a symlink to the newest; under a job's directory, the job's
 * tree. A mount of one job (--job N) has that job's tree at the root.
 * Paths come from the kernel: absolute, '/'-separated, without "." or
 * ".." components and without doubled or trailing slashes. The root of
 * jobs also holds .destor/stats.json, the mount's figures (a mount of one
 * job has no room of its own for it: its tree may hold any name). */
#ifndef DESTOR_MOUNT_PATH_H
#define DESTOR_MOUNT_PATH_H

#include <glib.h>
#include <stdint.h>

#define MOUNT_LATEST "latest"

typedef enum {
    MOUNT_PATH_NONE,   /* names nothing (ENOENT): "/007", "/x" at a root of jobs */
    MOUNT_PATH_ROOT,   /* the root of jobs */
    MOUNT_PATH_LATEST, /* the root's `latest` symlink */
    MOUNT_PATH_JOB,    /* a job's own tree, at `inner` ("" for its top) */
    MOUNT_PATH_STATS_DIR, /* the root of jobs' .destor (mount_stats.h) */
    MOUNT_PATH_STATS,     /* .destor/stats.json */
} MountPathKind;

typedef struct {
    MountPathKind kind;
    uint32_t job;      /* MOUNT_PATH_JOB */
    const char *inner; /* MOUNT_PATH_JOB: the path in the job, no leading '/' (points into the path parsed) */
} MountPath;

/* What `path` names in a mount of every job (one_job FALSE) or of job
 * `job` alone. A job directory's name is the id's canonical decimal form:
 * "00" or "+1" name nothing. */
MountPath mount_path_parse(const char *path, gboolean one_job, uint32_t job);

#endif
