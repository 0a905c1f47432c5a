/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_writer.h: writes sealed containers to the store on a thread of
 * its own, so the backup's store stage fills the next container while the
 * device takes the last ones. A whole-container write bypasses the page
 * cache and so waits for the device (about 1.5 ms per 2 MiB here); done in
 * line it stopped the store stage, and the chunk workers behind it, for a
 * third of a large-file backup's wall time.
 *
 * Up to `depth` writes may be in flight, done one after another in the
 * order submitted. The caller keeps each buffer untouched until a wait
 * says its write is done. A failed write is reported by every wait after
 * it, and the writes submitted after it are dropped (not written): the
 * store never holds a container past one that failed. */
#ifndef DESTOR_CONTAINER_WRITER_H
#define DESTOR_CONTAINER_WRITER_H

#include "storage/container_store.h"

#include <glib.h>

typedef struct ContainerWriter ContainerWriter;

ContainerWriter *container_writer_new(ContainerStore *store, guint depth);
/* Queue `buf` (container_size bytes) to be written as container `id`.
 * Fewer than `depth` writes may be unfinished. */
void container_writer_submit(ContainerWriter *w, ContainerId id, const uint8_t *buf);
/* Wait until at most `unfinished` writes are left (the oldest are done
 * first); FALSE with the error of the write that failed, if one did. */
gboolean container_writer_wait(ContainerWriter *w, guint unfinished, GError **err);
/* CPU time the writing thread has used so far, in seconds (the kernel's
 * work of each write: a whole-container write bypasses the page cache). */
double container_writer_cpu_seconds(ContainerWriter *w);
/* Wait for the writes in flight (an error dropped) and stop the thread. */
void container_writer_free(ContainerWriter *w);

#endif
