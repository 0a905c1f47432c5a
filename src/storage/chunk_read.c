/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_read.c: one chunk by its range, checked by its fingerprint
 * (chunk_read.h). */
#include "storage/chunk_read.h"
#include "storage/container.h"
#include "util/error.h"

#include <string.h>

static gboolean whole_container(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len,
                                const Fingerprint *fp, uint8_t *buf, ChunkReadCost *cost, GError **err)
{
    uint8_t *whole = g_malloc(src->container_size);
    gboolean ok = container_source_read(src, id, whole, err) &&
                  container_check_chunk(whole, src->container_size, id, fp, offset, len, err);
    if (ok)
        memcpy(buf, whole + offset, len);
    if (cost) {
        cost->reads++;
        cost->bytes_read += src->container_size;
    }
    g_free(whole);
    return ok;
}

gboolean chunk_read(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len, FingerprintAlgorithm alg,
                    const Fingerprint *fp, uint8_t *buf, ChunkReadCost *cost, GError **err)
{
    if (!container_range_check(src->container_size, id, offset, len, err))
        return FALSE;
    if (src->read_range == NULL)
        return whole_container(src, id, offset, len, fp, buf, cost, err);
    if (cost) {
        cost->reads++;
        cost->bytes_read += len;
    }
    if (!src->read_range(src, id, offset, len, buf, err))
        return FALSE;
    Fingerprint got;
    fingerprint_compute(alg, buf, len, &got);
    if (memcmp(got.bytes, fp->bytes, FP_SLOT) != 0) {
        char hex[65];
        fingerprint_hex(fp, fingerprint_length(alg), hex);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u is damaged: the %u bytes at offset %u are not chunk %s", id, len, offset, hex);
        return FALSE;
    }
    return TRUE;
}
