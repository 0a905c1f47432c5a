/* container_source.h: the container read interface, the one seam on the read
 * path. The store implements it over its container pool; the SSD cache
 * implements it over a store source and its cache directory. read-file and
 * restore only ever see a ContainerSource. */
#ifndef DESTOR_CONTAINER_SOURCE_H
#define DESTOR_CONTAINER_SOURCE_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t ContainerId;

typedef struct ContainerSource ContainerSource;
struct ContainerSource {
    /* Fill buf (container_size bytes) with container `id`, its checksum
     * verified. Returns FALSE with a DESTOR_ERROR on failure: IO for a failed
     * read, INTEGRITY for a damaged container, USAGE for an id past the end.
     * buf may be NULL only for a source in simulation mode (the SSD cache
     * with --simulate), which then records the access and moves no bytes. */
    gboolean (*read)(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err);
    size_t container_size;
};

static inline gboolean container_source_read(ContainerSource *src, ContainerId id,
                                             uint8_t *buf, GError **err)
{
    return src->read(src, id, buf, err);
}

#endif
