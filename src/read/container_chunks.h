/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_chunks.h: chunks read out of whole containers: a ChunkSource
 * over a ContainerLru of `capacity` containers in front of a
 * ContainerSource. A chunk is checked against its container's metadata; a
 * mismatch in bytes that came from a copy (the SSD cache) has the source
 * read the container again from the store before it counts as damage. */
#ifndef DESTOR_CONTAINER_CHUNKS_H
#define DESTOR_CONTAINER_CHUNKS_H

#include "read/chunk_source.h"
#include "read/chunk_stream.h"
#include "storage/container_source.h"

#include <glib.h>

ChunkSource *container_chunks_new(ContainerSource *src, guint capacity);
/* Ids only: a miss calls the source with a NULL buffer (simulation), and
 * only touch() may be used. */
ChunkSource *container_chunks_new_ids_only(ContainerSource *src, guint capacity);

/* The opt restore cache: the same, evicting by Belady's rule over the next
 * `window` chunks of `future` (owned), the reads this source will be asked
 * for (opt_window.h). Ids only as above when `ids_only`. */
ChunkSource *container_chunks_new_opt(ContainerSource *src, guint capacity, guint window, ChunkStream *future,
                                      gboolean ids_only);

#endif
