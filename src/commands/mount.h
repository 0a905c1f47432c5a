/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount.h: `destor mount [-f] [--job N] [-o OPTIONS] MOUNTPOINT`: the
 * store's live jobs as a read-only file system (libfuse), read through the
 * same path as read-file with the configured SSD cache in front, whose
 * state is saved when the mount ends. */
#ifndef DESTOR_MOUNT_H
#define DESTOR_MOUNT_H

#include "config/config.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    const char *mountpoint;
    gboolean foreground; /* -f: serve in this process; else in a child, once mounted */
    gboolean one_job;    /* --job N: job N's tree at the root */
    uint32_t job;
    const char *options; /* -o: comma-separated mount options (allow_other, ...), or NULL */
    gboolean json;       /* the figures printed when a foreground mount ends: JSON */
} MountOptions;

/* Mount and serve until unmounted or signalled; in the background (no -f)
 * this returns in the parent only on an error found before the mount: the
 * parent exits with 0 once the child has mounted, or with the child's
 * status (the child said why). */
gboolean mount_run(const Config *cfg, const MountOptions *opt, GError **err);

#endif
