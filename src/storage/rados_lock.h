/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_lock.h: the one writer of a `rados` store across machines: an
 * exclusive RADOS lock on CONTAINER_RADOS_LOCK_OBJECT in the store's
 * namespace, taken with a random cookie for a duration and renewed by a
 * thread at a third of it while the writer runs; a writer that dies (or
 * stops) stops renewing and its lock expires. Readers take no lock. */
#ifndef DESTOR_RADOS_LOCK_H
#define DESTOR_RADOS_LOCK_H

#include "storage/rados_cluster.h"

#include <glib.h>

typedef struct RadosLock RadosLock;

/* Take the lock for `duration` seconds, renewed until rados_lock_release.
 * Held by another writer: a LOCKED error naming it. */
RadosLock *rados_lock_take(RadosCluster *c, unsigned duration, GError **err);
/* FALSE (a LOCKED error) once a renewal has failed: the lock may be
 * another writer's now (checked before each container is written). */
gboolean rados_lock_kept(RadosLock *l, GError **err);
/* Renew the lock now: TRUE only if it is still ours (checked before a
 * writer commits). */
gboolean rados_lock_renew(RadosLock *l, GError **err);
void rados_lock_release(RadosLock *l);

#endif
