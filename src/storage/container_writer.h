/* container_writer.h: writes sealed containers to the pool on a thread of
 * its own, so the backup's store stage fills the next container while the
 * device takes the last one. A whole-container write bypasses the page
 * cache and so waits for the device (about 1.5 ms per 2 MiB here); done in
 * line it stopped the store stage, and the chunk workers behind it, for a
 * third of a large-file backup's wall time.
 *
 * One write is in flight at a time: the caller hands over a buffer, keeps
 * it untouched, and waits before it hands over the next one or reuses the
 * buffer. A failed write is reported by that wait. */
#ifndef DESTOR_CONTAINER_WRITER_H
#define DESTOR_CONTAINER_WRITER_H

#include "storage/container_pool.h"

#include <glib.h>

typedef struct ContainerWriter ContainerWriter;

ContainerWriter *container_writer_new(ContainerPool *pool);
/* Start writing `buf` (container_size bytes) as container `id`. The write
 * before must have been waited for. */
void container_writer_submit(ContainerWriter *w, ContainerId id, const uint8_t *buf);
/* Wait until no write is in flight; FALSE with the error of the one that
 * failed (reported once). TRUE at once if nothing was submitted. */
gboolean container_writer_wait(ContainerWriter *w, GError **err);
/* CPU time the writing thread has used so far, in seconds (the kernel's
 * work of each write: a whole-container write bypasses the page cache). */
double container_writer_cpu_seconds(ContainerWriter *w);
/* Wait for the write in flight (its error dropped) and stop the thread. */
void container_writer_free(ContainerWriter *w);

#endif
