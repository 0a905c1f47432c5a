/* SPDX-License-Identifier: GPL-3.0-or-later */
/* id_source.h: a ContainerSource that moves no bytes and only takes note
 * of container ids. It stands behind the read path when no container data
 * is needed: simulation without an SSD cache (the HDD-only baseline, whose
 * time comes from the device model), and `destor trace compile`, which
 * logs the container-access sequence of a trace. An id past the pool is
 * the pool's own error (INTEGRITY), so a damaged recipe is caught here too. */
#ifndef DESTOR_ID_SOURCE_H
#define DESTOR_ID_SOURCE_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    ContainerSource source; /* first: the pointer is the source's */
    uint32_t n_containers;  /* ids 0 .. n_containers-1 exist */
    GArray *log;            /* of ContainerId, appended per access; may be NULL */
} IdSource;

void id_source_init(IdSource *s, size_t container_size, uint32_t n_containers, GArray *log);

#endif
