/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_lock.h: the one writer of a `rados` store across machines: an
 * exclusive RADOS lock on CONTAINER_RADOS_LOCK_OBJECT in the store's
 * namespace, taken with a random cookie for a duration and renewed by a
 * thread at a third of it while the writer runs; a writer that dies (or
 * stops) stops renewing and its lock expires. The same for the readers
 * against gc on every machine: each reader holds RADOS_READERS_OBJECT's
 * lock shared, a lease it renews, and gc takes it exclusively. */
#ifndef DESTOR_RADOS_LOCK_H
#define DESTOR_RADOS_LOCK_H

#include "storage/rados_cluster.h"

#include <glib.h>

typedef struct RadosLock RadosLock;

#define RADOS_READERS_OBJECT "destor.readers"
#define RADOS_READERS_LOCK_NAME "readers"

/* Take the lock for `duration` seconds, renewed until rados_lock_release.
 * Held by another writer: a LOCKED error naming it. */
RadosLock *rados_lock_take(RadosCluster *c, unsigned duration, GError **err);
/* FALSE (a LOCKED error) once a renewal has failed, or the readers' lock
 * was not renewed within its duration: it may be another's now (checked
 * before each container is written, read by a reader, freed by gc). */
gboolean rados_lock_kept(RadosLock *l, GError **err);
/* Renew the lock now: TRUE only if it is still ours (checked before a
 * writer commits). */
gboolean rados_lock_renew(RadosLock *l, GError **err);
void rados_lock_release(RadosLock *l);

/* A reader: RADOS_READERS_OBJECT's lock shared, renewed, waiting while gc
 * holds it exclusively (as the local readers' lock, reader_lock.h). */
RadosLock *rados_readers_join(RadosCluster *c, unsigned duration, GError **err);
/* gc: the readers' lock exclusively, trying for up to `wait` seconds (a
 * dead reader's lease runs out within the lock duration): NULL with *busy
 * set when readers still hold it, or NULL with *err. */
RadosLock *rados_readers_exclude(RadosCluster *c, unsigned duration, unsigned wait, gboolean *busy, GError **err);

#endif
