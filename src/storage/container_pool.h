/* container_pool.h: the container store on the (HDD) disk: one file,
 * container i at byte i * container_size. Containers are only appended, never
 * rewritten, so an index entry or recipe naming a durable container stays
 * valid whatever happens to later writes. */
#ifndef DESTOR_CONTAINER_POOL_H
#define DESTOR_CONTAINER_POOL_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

typedef struct ContainerPool ContainerPool;

ContainerPool *container_pool_open(const char *path, size_t container_size, gboolean writable, GError **err);
void container_pool_close(ContainerPool *pool);

/* The pool as a read source (verifies each container's checksum). */
ContainerSource *container_pool_source(ContainerPool *pool);

/* Restore reads containers mostly in ascending order: ask the kernel to
 * read the next `containers` ahead of each read (0 turns it off). */
void container_pool_set_readahead(ContainerPool *pool, unsigned containers);

/* Measuring the device rather than RAM: with `uncached`, reads of the pool
 * are hinted random (no kernel readahead) and each container's pages are
 * dropped from the page cache once read, so every container read costs a
 * device read (store-read-uncached). */
void container_pool_set_uncached(ContainerPool *pool, gboolean uncached);

/* Slots in the file, counting a torn last one: the next id to append at. */
gboolean container_pool_count(ContainerPool *pool, uint32_t *count, GError **err);

/* Alignment of container buffers that lets writes bypass the page cache;
 * container sizes are multiples of it too. */
#define CONTAINER_ALIGN 4096

gboolean container_pool_write(ContainerPool *pool, ContainerId id, const uint8_t *buf, GError **err);
gboolean container_pool_sync(ContainerPool *pool, GError **err);

#endif
