/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_watch.h: keeps what the kernel caches of a mount true. A job's tree
 * never changes, so the kernel keeps its names, attributes and listings
 * (mount_fs.c's op_init, mount_readdir.c's opendir); what changes is the
 * root of jobs: a job deleted, `latest` moved by a backup, the figures'
 * size. A thread reads the job catalog every MOUNT_WATCH_MS and tells the
 * kernel to forget the root's names that went stale; on the same beat it
 * has readers idle for MOUNT_READER_IDLE_MS give up their containers
 * (mount_readers_trim), so an idle mount holds little memory. A mount of a
 * `rados` store also brings its working directory up to the cluster every
 * MOUNT_CLUSTER_PULL_MS (store_pull), so jobs other machines delete or
 * back up show within MOUNT_CLUSTER_PULL_MS + MOUNT_WATCH_MS. (It never
 * reads a container gc freed: gc anywhere defers to its reader lease.) */
#ifndef DESTOR_MOUNT_WATCH_H
#define DESTOR_MOUNT_WATCH_H

#include "mount/mount_fuse.h"

/* How often the root of jobs is checked: a deleted job's directory and an
 * old `latest` are gone from the kernel at most this long after the
 * catalog says so (libfuse's own default timeout is a second). */
#define MOUNT_WATCH_MS 250
/* How often a rados store's mount reads the cluster's catalog: a second,
 * libfuse's own default timeout, as the bound on how stale its root of
 * jobs may be against another machine's changes. */
#define MOUNT_CLUSTER_PULL_MS 1000
/* A reader keeps its containers this long after its last read: a file
 * read on or the next file of the same containers finds them. */
#define MOUNT_READER_IDLE_MS 2000

typedef struct MountWatch MountWatch;

/* Start watching fs, served by f. Stop it before f is unmounted. */
MountWatch *mount_watch_start(MountFs *fs, struct fuse *f);
void mount_watch_stop(MountWatch *w);

#endif
