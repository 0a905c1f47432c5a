/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_migrate.h: `destor rados-migrate`: a container-store rados store
 * made before its metadata moved into the cluster (store.meta, jobs,
 * freed list in the working directory only) has it copied into its RADOS
 * namespace, once (store_cluster_migrate). Every other command refuses
 * such a store with an error naming this one. */
#ifndef DESTOR_RADOS_MIGRATE_H
#define DESTOR_RADOS_MIGRATE_H

#include "config/config.h"

#include <glib.h>

/* Prints how many jobs were moved. */
gboolean rados_migrate_run(const Config *cfg, GError **err);

#endif
