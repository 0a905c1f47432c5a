/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assembly_area.h: the forward assembly area (Lillibridge, Eshghi and
 * Bhagwat, FAST'13), the asm restore cache. The restore's chunks, known in
 * advance (a ChunkStream), are laid out in an area of `area_containers`
 * containers' worth of bytes as far as they fit; each container those
 * chunks come from is read once, into one read buffer, in the order the
 * area first needs it, and every chunk of the area it holds copied into
 * place, checked against the container's metadata. Reads are served from
 * the area in order, each once the containers up to its own are read (so
 * container reads interleave with the writes they complete), and the next
 * area-full is laid out when they reach the end. Memory: the
 * area and the read buffer, area_containers + 1 container-sized buffers. */
#ifndef DESTOR_ASSEMBLY_AREA_H
#define DESTOR_ASSEMBLY_AREA_H

#include "read/chunk_source.h"
#include "read/chunk_stream.h"
#include "storage/container_source.h"

#include <glib.h>

/* Takes ownership of `future`, which must name the chunks read() will be
 * asked for in order (a reader may skip chunks, never go back). With
 * `ids_only`, the area moves no bytes (a simulating source, or planning
 * the reads) and only touch() may be used. */
ChunkSource *assembly_area_new(ContainerSource *src, guint area_containers, ChunkStream *future,
                               gboolean ids_only);

#endif
