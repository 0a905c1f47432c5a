/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_rados.h: the `rados` kind of container store (container_store.h):
 * each container one object, container.NNNNNNNN (the id in lowercase hex),
 * in a Ceph RADOS pool and namespace, so that the containers live on a
 * cluster rather than one disk. An object is created whole, never
 * overwritten; a writer holds the store's exclusive RADOS lock. */
#ifndef DESTOR_CONTAINER_RADOS_H
#define DESTOR_CONTAINER_RADOS_H

#include "storage/container_store.h"

/* Container i's object: this prefix and i in 8 lowercase hex digits. */
#define CONTAINER_RADOS_OBJECT_PREFIX "container."
/* The object holding the writer's lock, beside the containers. */
#define CONTAINER_RADOS_LOCK_OBJECT "destor.lock"
#define CONTAINER_RADOS_LOCK_NAME "writer"
/* The object holding the identity of the store the namespace belongs to. */
#define CONTAINER_RADOS_ID_OBJECT "destor.store"

ContainerStore *container_rados_open(const ContainerStoreRados *target, size_t container_size, gboolean writable,
                                     GError **err);

#endif
