/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assembly_area.h: the forward assembly area (Lillibridge, Eshghi and
 * Bhagwat, FAST'13), the asm restore cache, rolling as upstream Destor's
 * ("rolling forward assembly"). The restore's chunks, known in advance (a
 * ChunkStream), are laid out from the one read now on, as many as fit in
 * `area_containers` containers' worth of bytes. A chunk whose bytes are not
 * in place yet has its container read, once, into one read buffer, and
 * every chunk of that container the area holds copied into place, checked
 * against the container's metadata. As reads move on, the chunks behind
 * them are let go of and the area takes in the chunks that now fit: each
 * container read fills its chunks a whole area ahead, where area-fulls cut
 * at fixed points read a container again whenever its chunks straddle a
 * cut. Memory: the read buffer and at most area_containers containers'
 * worth of chunk bytes. */
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
