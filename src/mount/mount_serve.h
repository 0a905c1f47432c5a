/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_serve.h: mount a read session's store with libfuse and serve it
 * until it is unmounted (fusermount3 -u, umount) or the process gets
 * SIGINT, SIGTERM or SIGHUP; then unmount. Mounted read-only ("ro"), with
 * libfuse's multithreaded loop: reads of open files go on at once, each
 * with a reader of its own (mount_readers.h); operations on names take
 * turns (mount_fuse.h). */
#ifndef DESTOR_MOUNT_SERVE_H
#define DESTOR_MOUNT_SERVE_H

#include "read/read_session.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char *mountpoint; /* absolute: as the mount table will show it */
    const char *options;    /* more options for libfuse's -o (allow_other, ...), or NULL */
    gboolean one_job;       /* job `job`'s tree at the root */
    uint32_t job;
    FILE *summary;          /* where the figures go when the mount ends (NULL: nowhere) */
    gboolean json;          /* ... as one destor.trace-summary document */
} MountServeConfig;

/* Serve; ready(ctx) is called once the mount is in place, before any
 * request is served. An IO error when libfuse cannot mount. */
gboolean mount_serve(ReadSession *s, const MountServeConfig *c, void (*ready)(void *ctx), void *ctx, GError **err);

#endif
