/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_attr.h: the attributes a mount shows, as `restore` writes them:
 * a file's or directory's stored mode bits and mtime (atime and ctime the
 * same), a file's size, a symlink's target length; owned by the user who
 * mounted (records keep no owner). A directory the job has no record of
 * (a job's top, the root of jobs, a parent stored without its own entry)
 * is mode 0755 with the time given. */
#ifndef DESTOR_MOUNT_ATTR_H
#define DESTOR_MOUNT_ATTR_H

#include "recipe/file_record.h"

#include <stdint.h>
#include <sys/stat.h>

void mount_attr_record(const FileRecord *r, struct stat *st);
void mount_attr_dir(int64_t mtime_sec, struct stat *st);
/* A read-only file made by the mount itself (its figures), of `size`
 * bytes. */
void mount_attr_file(uint64_t size, int64_t mtime_sec, struct stat *st);
/* A symlink made by the mount itself (the root's `latest`). */
void mount_attr_link(size_t target_len, int64_t mtime_sec, struct stat *st);

#endif
