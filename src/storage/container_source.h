/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_source.h: the container read interface, the one seam on the read
 * path. The store's containers implement it (container_store.h); the SSD
 * cache implements it over a store source and its cache directory.
 * read-file and restore only ever see a ContainerSource. */
#ifndef DESTOR_CONTAINER_SOURCE_H
#define DESTOR_CONTAINER_SOURCE_H

#include "util/checksum.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t ContainerId;

typedef struct ContainerSource ContainerSource;
struct ContainerSource {
    /* Fill buf (container_size bytes) with container `id`, its checksum
     * verified. Returns FALSE with a DESTOR_ERROR on failure: IO for a failed
     * read, INTEGRITY for a damaged container, USAGE for an id past the end.
     * buf may be NULL only for a source in simulation mode (the SSD cache
     * with --simulate), which then records the access and moves no bytes.
     * The store's containers (container_store.h) may be read by several
     * threads at once (a prefetch source's readers, prefetch_source.h). */
    gboolean (*read)(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err);
    size_t container_size;
    /* Optional (NULL: the source keeps no copies of its own). The bytes the
     * last read of `id` gave did not hold what the caller's recipe names:
     * fill buf from the origin (the store), bypassing any copy, and drop a
     * copy that differs from it (the SSD cache). If the origin's bytes are
     * the same, the mismatch is the origin's own. */
    gboolean (*reread)(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err);
    /* Optional (NULL: cannot tell). *stamp = container_stamp() of container
     * `id` as the source holds it now, without reading the rest of it. */
    gboolean (*stamp)(ContainerSource *self, ContainerId id, uint32_t *stamp, GError **err);
    /* Optional (NULL: read into the buffer). As read, but the source may
     * hand over a buffer of its own holding the container instead of
     * copying it: it takes *buf (g_malloc'd, container_size bytes) and
     * leaves another such buffer in its place. A source that reads ahead
     * into buffers of its own (prefetch_source.h) saves a copy of every
     * container so. */
    gboolean (*read_exchange)(ContainerSource *self, ContainerId id, uint8_t **buf, GError **err);
    /* Optional (NULL: whole containers only). Read the `len` bytes at
     * `offset` of container `id` into buf, and only those: one read of the
     * range (pread; rados_read with an offset), for a chunk miss that
     * fetches one chunk (ssd-cache-chunk-fetch chunk). Nothing is verified,
     * since a container's checksum covers the whole container: callers use
     * chunk_read.h, which checks the chunk's fingerprint. INTEGRITY when the
     * container is missing, freed or too short for the range; USAGE when
     * the range does not lie in container_size. The store's kinds (pool,
     * files, rados) implement it. */
    gboolean (*read_range)(ContainerSource *self, ContainerId id, uint32_t offset, uint32_t len, uint8_t *buf,
                           GError **err);
    /* Optional (NULL: read only). As read, but in place: *bytes points at
     * the container_size bytes of container `id`, its checksum verified,
     * mapped read-only from the source's file, until unmap(self, *bytes).
     * It spares the copy out of the page cache that read makes (a 1 GiB
     * read-file made three passes over the bytes, docs/PERFORMANCE.md).
     * The bytes are the file's own pages: they stay what was verified
     * because containers are never rewritten in place and gc frees only
     * while no reader holds the store (reader_lock.h). May be called from
     * several threads at once, as read. unmap is set whenever map may be. */
    gboolean (*map)(ContainerSource *self, ContainerId id, const uint8_t **bytes, GError **err);
    void (*unmap)(ContainerSource *self, const uint8_t *bytes);
};

/* A container's stamp: the CRC-32 of its first CONTAINER_STAMP_BYTES bytes
 * (zero-padded when shorter), which hold its header and so its own checksum
 * of every byte: whether a copy made earlier is still the same container. */
#define CONTAINER_STAMP_BYTES 64
static inline uint32_t container_stamp(const uint8_t *buf, size_t len)
{
    uint8_t head[CONTAINER_STAMP_BYTES] = { 0 };
    memcpy(head, buf, len < sizeof head ? len : sizeof head);
    return checksum_crc32(CHECKSUM_CRC32_START, head, sizeof head);
}

static inline gboolean container_source_read(ContainerSource *src, ContainerId id,
                                             uint8_t *buf, GError **err)
{
    return src->read(src, id, buf, err);
}

/* A buffer for container_source_read_buffer: container_size bytes,
 * aligned so that a source reading with O_DIRECT (the SSD cache's slots
 * file) reads straight into it. Buffers are exchanged between their
 * holders (read_exchange): every one is made and freed by these two. */
#define CONTAINER_BUFFER_ALIGN 4096
static inline uint8_t *container_buffer_new(size_t container_size)
{
    return g_aligned_alloc(1, container_size, CONTAINER_BUFFER_ALIGN);
}

static inline void container_buffer_free(uint8_t *buf)
{
    g_aligned_free(buf);
}

/* Container `id` into *buf (a container_buffer_new buffer), or into a
 * buffer the source exchanges for it (read_exchange). */
static inline gboolean container_source_read_buffer(ContainerSource *src, ContainerId id, uint8_t **buf,
                                                    GError **err)
{
    g_assert(*buf != NULL);
    return src->read_exchange != NULL ? src->read_exchange(src, id, buf, err) : src->read(src, id, *buf, err);
}

static inline gboolean container_source_maps(const ContainerSource *src)
{
    return src->map != NULL;
}

static inline gboolean container_source_map(ContainerSource *src, ContainerId id, const uint8_t **bytes,
                                            GError **err)
{
    return src->map(src, id, bytes, err);
}

static inline void container_source_unmap(ContainerSource *src, const uint8_t *bytes)
{
    if (bytes != NULL)
        src->unmap(src, bytes);
}

/* The reread op, if any: TRUE when buf was filled again from the origin;
 * FALSE with *err unset when the source keeps no copies (the bytes already
 * came from the origin), FALSE with *err set when the origin cannot be read. */
static inline gboolean container_source_reread(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    return src->reread != NULL && src->reread(src, id, buf, err);
}

#endif
