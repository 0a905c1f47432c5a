/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefetch_source.h: a ContainerSource that reads a known sequence of
 * containers ahead, on its own thread, so that reading and checking
 * containers (pread, CRC) overlaps with writing restored files. Restore
 * knows the exact sequence in advance: it replays its recipes through an
 * ids-only LRU first (restore_plan). A read that is not the next one
 * planned is served straight from the backing source. */
#ifndef DESTOR_PREFETCH_SOURCE_H
#define DESTOR_PREFETCH_SOURCE_H

#include "storage/container_source.h"

#include <glib.h>

typedef struct PrefetchSource PrefetchSource;

/* Takes ownership of `order` (ContainerId elements). */
PrefetchSource *prefetch_source_new(ContainerSource *backing, GArray *order, guint depth);
ContainerSource *prefetch_source_source(PrefetchSource *p);
/* Stops the thread and frees everything. */
void prefetch_source_free(PrefetchSource *p);

#endif
