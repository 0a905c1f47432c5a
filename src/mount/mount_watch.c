/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_watch.c: the mount's watcher thread (mount_watch.h). It
 * takes no lock of the operations while it tells the kernel anything: the
 * kernel may wait for an operation on the root to end first. */
#include "mount/mount_watch.h"
#include "mount/mount_path.h"
#include "mount/mount_stats.h"
#include "recipe/job_catalog.h"
#include "store/store.h"

#include <fuse_lowlevel.h> /* at mount_fuse.h's FUSE_USE_VERSION */

#include <string.h>

struct MountWatch {
    MountFs *fs;
    struct fuse *fuse;
    GThread *thread;
    GMutex lock; /* guards stop */
    GCond wake;
    gboolean stop;
    uint32_t newest; /* `latest` at the last look (UINT32_MAX: none) */
    gint64 pulled;   /* the last store_pull's start (monotonic µs) */
    gboolean pull_failed; /* the last one failed (said once, not every time) */
};

/* The working directory brought up to the cluster when MOUNT_CLUSTER_PULL_MS
 * have passed; a failure is said once, and the root stays as it was. */
static void pull(MountWatch *w)
{
    gint64 now = g_get_monotonic_time();
    if (now - w->pulled < MOUNT_CLUSTER_PULL_MS * G_TIME_SPAN_MILLISECOND)
        return;
    w->pulled = now;
    GError *err = NULL;
    gboolean ok = store_pull(w->fs->session->store, &err);
    if (!ok && !w->pull_failed)
        g_printerr("destor: mount: %s (other machines' changes show once the cluster answers)\n", err->message);
    w->pull_failed = !ok;
    g_clear_error(&err);
}

/* Drop name from the kernel's root of jobs (nothing when it holds none). */
static void forget_name(MountWatch *w, const char *name)
{
    (void)fuse_lowlevel_notify_inval_entry(fuse_get_session(w->fuse), FUSE_ROOT_ID, name, strlen(name));
}

static gboolean holds(const GArray *ids, uint32_t id)
{
    for (guint i = 0; i < ids->len; i++)
        if (g_array_index(ids, uint32_t, i) == id)
            return TRUE;
    return FALSE;
}

static uint32_t newest(const GArray *ids)
{
    return ids->len > 0 ? g_array_index(ids, uint32_t, ids->len - 1) : UINT32_MAX;
}

/* The jobs looked up at the root that are no longer live: the kernel may
 * hold their names. A name is told again at the next look too when it was
 * looked up during the last MOUNT_WATCH_MS (a lookup answered just before
 * the delete may reach the kernel after this look's word), then dropped. */
static GArray *gone_names(MountFs *fs, const GArray *live)
{
    GArray *gone = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gint64 settled = g_get_monotonic_time() - MOUNT_WATCH_MS * G_TIME_SPAN_MILLISECOND;
    GHashTableIter it;
    gpointer key, value;
    g_mutex_lock(&fs->lock);
    g_hash_table_iter_init(&it, fs->entered);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        uint32_t id = GPOINTER_TO_UINT(key);
        if (holds(live, id))
            continue;
        g_array_append_val(gone, id);
        if (*(const gint64 *)value < settled)
            g_hash_table_iter_remove(&it);
    }
    g_mutex_unlock(&fs->lock);
    return gone;
}

/* One look: forget the deleted jobs' names, and `latest` when it points
 * elsewhere; the figures' size changes always. A mount of one job has no
 * root of jobs. */
static void look(MountWatch *w)
{
    mount_readers_trim(w->fs->readers, MOUNT_READER_IDLE_MS * G_TIME_SPAN_MILLISECOND);
    if (w->fs->one_job)
        return;
    pull(w);
    GArray *now = job_catalog_list_live(w->fs->session->store->dir, NULL);
    if (now == NULL)
        return; /* unreadable for now: the operations say why */
    GArray *gone = gone_names(w->fs, now);
    char name[16];
    for (guint i = 0; i < gone->len; i++) {
        g_snprintf(name, sizeof name, "%u", g_array_index(gone, uint32_t, i));
        forget_name(w, name);
    }
    g_array_unref(gone);
    if (newest(now) != w->newest)
        forget_name(w, MOUNT_LATEST);
    w->newest = newest(now);
    (void)fuse_invalidate_path(w->fuse, "/" MOUNT_STATS_DIR "/" MOUNT_STATS_FILE);
    g_array_unref(now);
}

static gpointer watch(gpointer data)
{
    MountWatch *w = data;
    g_mutex_lock(&w->lock);
    while (!w->stop) {
        gint64 until = g_get_monotonic_time() + MOUNT_WATCH_MS * G_TIME_SPAN_MILLISECOND;
        if (!g_cond_wait_until(&w->wake, &w->lock, until) && !w->stop) {
            g_mutex_unlock(&w->lock);
            look(w);
            g_mutex_lock(&w->lock);
        }
    }
    g_mutex_unlock(&w->lock);
    return NULL;
}

MountWatch *mount_watch_start(MountFs *fs, struct fuse *f)
{
    MountWatch *w = g_new0(MountWatch, 1);
    w->fs = fs;
    w->fuse = f;
    g_mutex_init(&w->lock);
    g_cond_init(&w->wake);
    GArray *live = job_catalog_list_live(fs->session->store->dir, NULL);
    w->newest = live != NULL ? newest(live) : UINT32_MAX;
    w->pulled = g_get_monotonic_time(); /* the open pulled */
    if (live != NULL)
        g_array_unref(live);
    w->thread = g_thread_new("destor-watch", watch, w);
    return w;
}

void mount_watch_stop(MountWatch *w)
{
    g_mutex_lock(&w->lock);
    w->stop = TRUE;
    g_cond_signal(&w->wake);
    g_mutex_unlock(&w->lock);
    g_thread_join(w->thread);
    g_cond_clear(&w->wake);
    g_mutex_clear(&w->lock);
    g_free(w);
}
