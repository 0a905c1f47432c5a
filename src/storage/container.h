/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container.h: the fixed-size container, unit of storage and of read I/O.
 *
 * Layout (docs/FORMAT.md, "Container"): a 64-byte header, chunk data growing
 * forward from the header, and 40-byte metadata entries (fingerprint,
 * offset, length) growing backward from the end; the gap between is zero.
 * A CRC-32 covers the whole container with the CRC field read as zero. */
#ifndef DESTOR_CONTAINER_H
#define DESTOR_CONTAINER_H

#include "storage/container_source.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define CONTAINER_MAGIC "DPLCCNT1"
#define CONTAINER_VERSION 1
#define CONTAINER_HEADER_SIZE 64
#define CONTAINER_META_ENTRY_SIZE 40
#define CONTAINER_MIN_SIZE (128u * 1024)
#define CONTAINER_MAX_SIZE (16u * 1024 * 1024)

/* Largest chunk a container of `size` bytes can hold on its own. */
size_t container_max_chunk(size_t size);

typedef struct {
    uint8_t *buf; /* container_size bytes, owned by the caller */
    size_t size;
    ContainerId id;
    uint32_t chunk_count;
    uint32_t data_end; /* offset just past the last chunk's data */
} ContainerBuilder;

/* Start an empty container in buf (whatever buf held before: the bytes
 * no chunk or metadata entry fills are zeroed by the seal). */
void container_builder_init(ContainerBuilder *b, uint8_t *buf, size_t size, ContainerId id);
gboolean container_builder_fits(const ContainerBuilder *b, size_t len);
/* Append one chunk (must fit); returns its offset inside the container. */
uint32_t container_builder_add(ContainerBuilder *b, const Fingerprint *fp, const void *data, size_t len);
/* Write the header and checksum. The buffer is then a complete container. */
void container_builder_seal(ContainerBuilder *b, FingerprintAlgorithm alg);

/* Does [offset, offset + len) lie inside a container of `size` bytes, past
 * its header, with len > 0? A USAGE error naming the container otherwise
 * (a range read's arguments). */
gboolean container_range_check(size_t size, ContainerId id, uint32_t offset, uint32_t len, GError **err);

/* Check magic, version, id, size fields, layout and checksum of a container
 * read from disk. Sets an INTEGRITY error naming the container and the fault. */
gboolean container_verify(const uint8_t *buf, size_t size, ContainerId expected_id, GError **err);

/* A container just mapped (m, from file_map_read; NULL: its error is set
 * already): *bytes = m once container_verify passes, else m unmapped and
 * FALSE with the verdict. */
gboolean container_verify_mapped(const uint8_t *m, size_t size, ContainerId id, const uint8_t **bytes,
                                 GError **err);

ContainerId container_id_of(const uint8_t *buf);
uint32_t container_chunk_count(const uint8_t *buf);
/* Metadata entry i of a verified container. */
void container_chunk_entry(const uint8_t *buf, size_t size, uint32_t i,
                           Fingerprint *fp, uint32_t *offset, uint32_t *length);
/* The metadata entry of the chunk starting at `offset` in a verified
 * container (entries are in offset order: a binary search). FALSE if no
 * chunk starts there. */
gboolean container_find_chunk(const uint8_t *buf, size_t size, uint32_t offset,
                              Fingerprint *fp, uint32_t *length);
/* Whether the container holds exactly the chunk a recipe names: a chunk
 * starting at `offset` with this fingerprint and length, by the container's
 * own metadata (no rehash). Otherwise an INTEGRITY error naming the
 * container and offset: a container with other content than the recipe's
 * (lost and rewritten, or planted) must never be served as data. */
gboolean container_check_chunk(const uint8_t *buf, size_t size, ContainerId id, const Fingerprint *fp,
                               uint32_t offset, uint32_t length, GError **err);

#endif
