/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_pool.h: the `pool` kind of container store (container_store.h):
 * one file, containers.pool, container i at byte i * container_size. Every
 * store made before kinds existed is one. A freed container becomes a hole
 * (fallocate PUNCH_HOLE): the file keeps its size, so ids stay put. */
#ifndef DESTOR_CONTAINER_POOL_H
#define DESTOR_CONTAINER_POOL_H

#include "storage/container_store.h"

#define CONTAINER_POOL_FILE "containers.pool"

ContainerStore *container_pool_open(const char *dir, size_t container_size, gboolean writable, GError **err);

#endif
