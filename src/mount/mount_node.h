/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_node.h: what the mount's operations share: the handle of an open
 * file or directory, and what a path is in the store (its job, live or
 * held, and its record), with the errno a failure gives the reader. */
#ifndef DESTOR_MOUNT_NODE_H
#define DESTOR_MOUNT_NODE_H

#include "mount/mount_fuse.h"
#include "mount/mount_path.h"

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

/* An open file or directory (libfuse passes no path to the calls on one:
 * nullpath_ok). A file's record, read at open, serves every read; a
 * directory is listed by the path it was opened at. */
typedef struct {
    char *path;         /* a directory's */
    GByteArray *from;   /* a job's directory: where its listing goes on (mount_dir_list) */
    off_t from_ord;     /* ... after the entry of this ordinal */
    gboolean ended;     /* ... or that it had its last entry */
    JobMetaWindow records; /* ... its entries' records, read a window at a time */
    uint32_t job;       /* a file's job and record */
    FileRecord *record; /* NULL for a directory and the figures */
    uint64_t *starts;   /* a file's chunks' offsets (file_output_chunk_starts) */
    char *text;         /* the figures: the document as it was at open */
    size_t text_len;
} MountHandle;

MountHandle *mount_handle_of(const struct fuse_file_info *fi);
void mount_handle_free(MountHandle *h);

/* The mount of the operation being served. */
MountFs *mount_fs_of_call(void);

/* The errno for err (consumed): a path or job that is not there ENOENT;
 * anything else (damage, I/O) EIO, said on stderr about `what`. */
int mount_fail_errno(GError *err, const char *what);

/* The newest live job; FALSE when there is none. */
gboolean mount_newest_job(MountFs *fs, uint32_t *id);

/* The job path p lies in, or NULL with *e the errno. A deleted job is
 * gone from the root: its directory there is not found any more, so
 * nothing new is entered; what lies below it stays for those already
 * inside (an open file's fstat, a process whose directory is there) while
 * the session holds the job. */
Job *mount_live_job(MountFs *fs, const MountPath *p, int *e);

/* What `inner` is in job: 0 and its record (*r, NULL for a directory
 * without one: the job's top, or a parent stored without its own entry),
 * or the errno. */
int mount_find_entry(Job *job, const char *inner, FileRecord **r);

#endif
