/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_fuse.h: libfuse3's high-level API at the version destor is
 * written against (3.12: fuse_loop_cfg_*), and the state its operations
 * share. */
#ifndef DESTOR_MOUNT_FUSE_H
#define DESTOR_MOUNT_FUSE_H

#define FUSE_USE_VERSION 312
#include <fuse.h>

#include "mount/mount_readers.h"
#include "mount/mount_stats.h"
#include "read/read_session.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    ReadSession *session;
    /* One operation on names at a time: the session's job table (jobs
     * opened as they are visited, the SSD cache told of the store's growth)
     * and Berkeley DB's handles, opened without DB_THREAD. Reads of open
     * files do not take it: each has a reader of its own (mount_readers.h
     * says what they share and how it is protected). */
    GMutex lock;
    MountReaders *readers;
    gboolean one_job; /* --job N: job `job`'s tree at the root */
    uint32_t job;
    int64_t mounted_unix; /* the root of jobs' time */
    const char *mountpoint;
    MountStats stats; /* its own lock */
    /* Under lock: each job whose directory at the root was looked up, and
     * when last (monotonic µs): the names the kernel may hold, which
     * mount_watch.h has it forget once the job is deleted. */
    GHashTable *entered;
} MountFs;

/* The operations: reads through the read session (mount_fs.c), the
 * directories (mount_readdir.c), every change refused with EROFS
 * (mount_refuse.c). */
void mount_fs_operations(struct fuse_operations *ops);
int mount_op_opendir(const char *path, struct fuse_file_info *fi);
int mount_op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off, struct fuse_file_info *fi,
                     enum fuse_readdir_flags flags);
void mount_refuse_changes(struct fuse_operations *ops);

#endif
