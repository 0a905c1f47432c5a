/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_stats.h: a mount's figures, the ones read-file --trace reports:
 * every FUSE read a request (its bytes, measured and modelled latency),
 * the container accesses, and the SSD cache's statistics. Readable while
 * mounted as the root's .destor/stats.json (a destor.trace-summary JSON
 * document whose "trace" is the mount point, taken when the file is
 * opened), and printed when the mount ends in the foreground. Safe from
 * any thread: the figures have a lock of their own. */
#ifndef DESTOR_MOUNT_STATS_H
#define DESTOR_MOUNT_STATS_H

#include "read/read_session.h"
#include "trace/trace_summary.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#define MOUNT_STATS_DIR ".destor"
#define MOUNT_STATS_FILE "stats.json"

typedef struct {
    GMutex lock;          /* guards summary */
    TraceSummary summary; /* a request per FUSE read served */
    gint64 started_us;    /* monotonic, at mount */
} MountStats;

void mount_stats_init(MountStats *m);
void mount_stats_clear(MountStats *m);
/* One read served: its bytes, wall and modelled time. */
void mount_stats_add(MountStats *m, size_t bytes, gint64 usec, double model_s);
/* The figures now, as read-file --trace prints them (json: one
 * destor.trace-summary document) on fp; the mount point in "trace". */
void mount_stats_print(MountStats *m, ReadSession *s, const char *mountpoint, gboolean json, FILE *fp);
/* The JSON document (free() it), *len its bytes. */
char *mount_stats_json(MountStats *m, ReadSession *s, const char *mountpoint, size_t *len);

#endif
