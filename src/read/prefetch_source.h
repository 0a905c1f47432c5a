/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefetch_source.h: a ContainerSource that reads a known sequence of
 * containers ahead, on threads of its own, so that reading and checking
 * containers (pread, CRC) overlaps with writing the files they hold, and,
 * with two threads, is itself spread over two cores (a container's CRC-32
 * costs about as much as its copy out of the page cache). Restore knows the
 * exact sequence in advance: it replays its recipes through an ids-only
 * LRU first (restore_plan); read-file does the same for one large file. A
 * read that is not the next one planned is served straight from the
 * backing source. */
#ifndef DESTOR_PREFETCH_SOURCE_H
#define DESTOR_PREFETCH_SOURCE_H

#include "storage/container_source.h"

#include <glib.h>

typedef struct PrefetchSource PrefetchSource;

#define PREFETCH_THREADS_MAX 4

/* Takes ownership of `order` (ContainerId elements); `depth` containers
 * read ahead at most, by `threads` threads (1 to PREFETCH_THREADS_MAX). */
PrefetchSource *prefetch_source_new(ContainerSource *backing, GArray *order, guint depth, guint threads);
ContainerSource *prefetch_source_source(PrefetchSource *p);
/* Stops the thread and frees everything. */
void prefetch_source_free(PrefetchSource *p);

#endif
