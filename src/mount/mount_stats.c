/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_stats.c: the mount's read figures and their document. */
#include "mount/mount_stats.h"

#include <stdlib.h>

void mount_stats_init(MountStats *m)
{
    g_mutex_init(&m->lock);
    trace_summary_init(&m->summary);
    m->started_us = g_get_monotonic_time();
}

void mount_stats_clear(MountStats *m)
{
    trace_summary_clear(&m->summary);
    g_mutex_clear(&m->lock);
}

void mount_stats_add(MountStats *m, size_t bytes, gint64 usec, double model_s)
{
    g_mutex_lock(&m->lock);
    m->summary.bytes += bytes;
    trace_summary_add(&m->summary, (double)usec, model_s * 1e6);
    g_mutex_unlock(&m->lock);
}

void mount_stats_print(MountStats *m, ReadSession *s, const char *mountpoint, gboolean json, FILE *fp)
{
    g_mutex_lock(&m->lock);
    m->summary.accesses = read_session_fetches(s);
    m->summary.seconds = (double)(g_get_monotonic_time() - m->started_us) / 1e6;
    trace_summary_print(&m->summary, mountpoint, s->cache, s->chunk_cache, FALSE, json, fp);
    g_mutex_unlock(&m->lock);
}

char *mount_stats_json(MountStats *m, ReadSession *s, const char *mountpoint, size_t *len)
{
    char *text = NULL;
    FILE *fp = open_memstream(&text, len);
    g_assert(fp != NULL);
    mount_stats_print(m, s, mountpoint, TRUE, fp);
    fclose(fp);
    return text;
}
