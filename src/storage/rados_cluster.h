/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_cluster.h: connecting to a Ceph cluster for the `rados` container
 * store, with every wait bounded (a cluster that does not answer is an
 * error within the configured time, never a hang), and librados's errors
 * as DESTOR_ERRORs. */
#ifndef DESTOR_RADOS_CLUSTER_H
#define DESTOR_RADOS_CLUSTER_H

#include "storage/container_store.h"

#include <glib.h>
#include "storage/rados_api.h"

typedef struct RadosCluster {
    rados_t cluster;
    rados_ioctx_t io; /* the target's pool, set to its namespace */
    char *shown;      /* "pool P namespace N", for messages */
    unsigned timeout;
} RadosCluster;

/* Connect with `target`'s conf, timeouts set; open its pool and namespace.
 * A missing conf or pool is a CONFIG error (exit 2), a cluster that cannot
 * be reached an IO error (exit 1). */
gboolean rados_cluster_connect(RadosCluster *c, const ContainerStoreRados *target, GError **err);
void rados_cluster_close(RadosCluster *c);

/* Set *err for librados's result `r` (a negative errno) of doing `what`:
 * IO, with a timeout said to be one. */
void rados_cluster_error(const RadosCluster *c, GError **err, int r, const char *what);

#endif
