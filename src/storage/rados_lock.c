/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_lock.c: the writer's exclusive RADOS lock and its renewal (rados_lock.h). */
#include "storage/rados_lock.h"
#include "storage/container_rados.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

struct RadosLock {
    RadosCluster *c;
    const char *oid, *name; /* the writer's lock, or the readers' */
    gboolean shared;
    char *cookie;
    unsigned duration;
    GThread *renewer;
    GMutex mutex;
    GCond wake;
    gboolean stop;
    int lost; /* 0, or the (negative) result of the renewal that failed */
    gint64 held_until; /* monotonic µs: when the lock expires unless renewed (its last operation's start + duration) */
};

static int lock_op(RadosLock *l, uint8_t flags)
{
    struct timeval d = { .tv_sec = (time_t)l->duration, .tv_usec = 0 };
    const char *who = l->shared ? "reader" : strcmp(l->name, RADOS_READERS_LOCK_NAME) == 0 ? "gc" : "writer";
    char *desc = g_strdup_printf("destor %s on %s, pid %ld", who,
                                 g_get_host_name(), (long)getpid());
    int r = l->shared ? rados_lock_shared(l->c->io, l->oid, l->name, l->cookie, RADOS_READERS_LOCK_NAME, desc, &d, flags)
                      : rados_lock_exclusive(l->c->io, l->oid, l->name, l->cookie, desc, &d, flags);
    g_free(desc);
    return r;
}

/* Renew the lock now; a failure is remembered: once lost, never held again. */
static int renew(RadosLock *l)
{
    g_mutex_lock(&l->mutex);
    int lost = l->lost;
    g_mutex_unlock(&l->mutex);
    if (lost < 0)
        return lost;
    gint64 start = g_get_monotonic_time();
    int r = lock_op(l, LIBRADOS_LOCK_FLAG_MUST_RENEW);
    g_mutex_lock(&l->mutex);
    if (r < 0 && l->lost == 0)
        l->lost = r;
    else if (r == 0)
        l->held_until = start + (gint64)l->duration * G_USEC_PER_SEC;
    g_mutex_unlock(&l->mutex);
    return r;
}

static gpointer renew_main(gpointer data)
{
    RadosLock *l = data;
    g_mutex_lock(&l->mutex);
    while (!l->stop && l->lost == 0) {
        gint64 at = g_get_monotonic_time() + (gint64)l->duration * G_USEC_PER_SEC / 3;
        while (!l->stop && g_cond_wait_until(&l->wake, &l->mutex, at))
            ;
        if (l->stop)
            break;
        g_mutex_unlock(&l->mutex);
        renew(l);
        g_mutex_lock(&l->mutex);
    }
    g_mutex_unlock(&l->mutex);
    return NULL;
}

static RadosLock *lock_new(RadosCluster *c, const char *oid, const char *name, gboolean shared, unsigned duration)
{
    g_assert(duration >= 3);
    RadosLock *l = g_new0(RadosLock, 1);
    l->c = c;
    l->oid = oid;
    l->name = name;
    l->shared = shared;
    l->cookie = g_uuid_string_random();
    l->duration = duration;
    g_mutex_init(&l->mutex);
    g_cond_init(&l->wake);
    return l;
}

static void lock_free(RadosLock *l)
{
    g_cond_clear(&l->wake);
    g_mutex_clear(&l->mutex);
    g_free(l->cookie);
    g_free(l);
}

/* Take it, every 0.2 s while another holds it, for up to `wait` seconds
 * (G_MAXUINT: until it is free); then renewed by the thread. */
static int lock_first(RadosLock *l, unsigned wait)
{
    gint64 until = wait == G_MAXUINT ? G_MAXINT64 : g_get_monotonic_time() + (gint64)wait * G_USEC_PER_SEC;
    int r;
    gint64 start;
    while ((start = g_get_monotonic_time(), (r = lock_op(l, 0)) == -EBUSY || r == -EEXIST) &&
           g_get_monotonic_time() < until)
        g_usleep(200000);
    l->held_until = start + (gint64)l->duration * G_USEC_PER_SEC;
    if (r == 0)
        l->renewer = g_thread_new("rados-lock", renew_main, l);
    return r;
}

RadosLock *rados_lock_take(RadosCluster *c, unsigned duration, GError **err)
{
    RadosLock *l = lock_new(c, CONTAINER_RADOS_LOCK_OBJECT, CONTAINER_RADOS_LOCK_NAME, FALSE, duration);
    int r = lock_first(l, 0);
    if (r == 0)
        return l;
    if (r == -EBUSY || r == -EEXIST)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED,
                    "another writer holds the store's lock in %s (object %s; a lock its holder stops renewing "
                    "expires within %u s)",
                    c->shown, CONTAINER_RADOS_LOCK_OBJECT, duration);
    else
        rados_cluster_error(c, err, r, "take the writer's lock");
    lock_free(l);
    return NULL;
}

RadosLock *rados_readers_join(RadosCluster *c, unsigned duration, GError **err)
{
    RadosLock *l = lock_new(c, RADOS_READERS_OBJECT, RADOS_READERS_LOCK_NAME, TRUE, duration);
    int r = lock_first(l, G_MAXUINT);
    if (r == 0)
        return l;
    rados_cluster_error(c, err, r, "take the readers' lock");
    lock_free(l);
    return NULL;
}

RadosLock *rados_readers_exclude(RadosCluster *c, unsigned duration, unsigned wait, gboolean *busy, GError **err)
{
    RadosLock *l = lock_new(c, RADOS_READERS_OBJECT, RADOS_READERS_LOCK_NAME, FALSE, duration);
    int r = lock_first(l, wait);
    *busy = r == -EBUSY || r == -EEXIST;
    if (r == 0)
        return l;
    if (!*busy)
        rados_cluster_error(c, err, r, "take the readers' lock");
    lock_free(l);
    return NULL;
}

static gboolean lost_error(RadosLock *l, int r, GError **err)
{
    if ((r == -ENOENT || r == -EBUSY) && l->shared)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED,
                    "this reader's lease in %s lapsed (not renewed within %u s), so gc may have freed containers "
                    "since: nothing more is read (run the command again)",
                    l->c->shown, l->duration);
    else if (r == -ENOENT || r == -EBUSY)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED,
                    "the store's lock in %s was lost (not renewed within %u s); nothing more is written",
                    l->c->shown, l->duration);
    else
        rados_cluster_error(l->c, err, r, "renew the writer's lock");
    return FALSE;
}

gboolean rados_lock_kept(RadosLock *l, GError **err)
{
    g_mutex_lock(&l->mutex);
    /* the readers' lock not renewed in time (the process was stopped): gc
     * or readers may have come since; lost even if a late renewal succeeds
     * (the writer's lock is lost when its renewal fails: the OSD says) */
    if (l->lost == 0 && strcmp(l->oid, RADOS_READERS_OBJECT) == 0 &&
        g_get_monotonic_time() >= l->held_until)
        l->lost = -ENOENT;
    int lost = l->lost;
    g_mutex_unlock(&l->mutex);
    return lost == 0 || lost_error(l, lost, err);
}

gboolean rados_lock_renew(RadosLock *l, GError **err)
{
    int r = renew(l);
    return r == 0 || lost_error(l, r, err);
}

void rados_lock_release(RadosLock *l)
{
    if (l == NULL)
        return;
    g_mutex_lock(&l->mutex);
    l->stop = TRUE;
    g_cond_signal(&l->wake);
    g_mutex_unlock(&l->mutex);
    g_thread_join(l->renewer);
    if (l->lost == 0)
        (void)rados_unlock(l->c->io, l->oid, l->name, l->cookie);
    lock_free(l);
}
