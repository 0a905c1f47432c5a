/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container.c: building, sealing and verifying containers. */
#include "storage/container.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

enum {
    H_MAGIC = 0,       /* 8 bytes */
    H_VERSION = 8,     /* u16 */
    H_HEADER_SIZE = 10,/* u16 */
    H_ID = 12,         /* u32 */
    H_SIZE = 16,       /* u32 container size */
    H_COUNT = 20,      /* u32 chunk count */
    H_DATA_END = 24,   /* u32 */
    H_HASH_ALG = 28,   /* u8, then 3 reserved */
    H_CRC = 32,        /* u32 */
};

size_t container_max_chunk(size_t size)
{
    return size - CONTAINER_HEADER_SIZE - CONTAINER_META_ENTRY_SIZE;
}

static uint32_t container_crc(const uint8_t *buf, size_t size)
{
    static const uint8_t zero[4];
    uint32_t crc = checksum_crc32(CHECKSUM_CRC32_START, buf, H_CRC);
    crc = checksum_crc32(crc, zero, sizeof zero);
    return checksum_crc32(crc, buf + H_CRC + 4, size - H_CRC - 4);
}

/* Only the header is zeroed here and the gap between data and metadata at
 * seal: every other byte is written by container_builder_add (zeroing the
 * whole buffer per container was a fifth of the store stage's CPU). */
void container_builder_init(ContainerBuilder *b, uint8_t *buf, size_t size, ContainerId id)
{
    memset(buf, 0, CONTAINER_HEADER_SIZE);
    b->buf = buf;
    b->size = size;
    b->id = id;
    b->chunk_count = 0;
    b->data_end = CONTAINER_HEADER_SIZE;
}

gboolean container_builder_fits(const ContainerBuilder *b, size_t len)
{
    size_t meta = (size_t)(b->chunk_count + 1) * CONTAINER_META_ENTRY_SIZE;
    return b->data_end + len + meta <= b->size;
}

uint32_t container_builder_add(ContainerBuilder *b, const Fingerprint *fp, const void *data, size_t len)
{
    g_assert(container_builder_fits(b, len));
    uint32_t off = b->data_end;
    memcpy(b->buf + off, data, len);
    b->data_end += (uint32_t)len;
    uint8_t *e = b->buf + b->size - (size_t)(b->chunk_count + 1) * CONTAINER_META_ENTRY_SIZE;
    memcpy(e, fp->bytes, FP_SLOT);
    le32_put(e + 32, off);
    le32_put(e + 36, (uint32_t)len);
    b->chunk_count++;
    return off;
}

void container_builder_seal(ContainerBuilder *b, FingerprintAlgorithm alg)
{
    uint8_t *h = b->buf;
    size_t meta = b->size - (size_t)b->chunk_count * CONTAINER_META_ENTRY_SIZE;
    memset(b->buf + b->data_end, 0, meta - b->data_end);
    memcpy(h + H_MAGIC, CONTAINER_MAGIC, 8);
    le16_put(h + H_VERSION, CONTAINER_VERSION);
    le16_put(h + H_HEADER_SIZE, CONTAINER_HEADER_SIZE);
    le32_put(h + H_ID, b->id);
    le32_put(h + H_SIZE, (uint32_t)b->size);
    le32_put(h + H_COUNT, b->chunk_count);
    le32_put(h + H_DATA_END, b->data_end);
    h[H_HASH_ALG] = (uint8_t)alg;
    le32_put(h + H_CRC, container_crc(b->buf, b->size));
}

static gboolean fail(GError **err, ContainerId id, const char *what)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u is damaged: %s", id, what);
    return FALSE;
}

gboolean container_range_check(size_t size, ContainerId id, uint32_t offset, uint32_t len, GError **err)
{
    if (len == 0 || offset < CONTAINER_HEADER_SIZE || offset > size || len > size - offset) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "container %u: no chunk can lie at offset %u length %u (containers hold %zu bytes)", id, offset,
                    len, size);
        return FALSE;
    }
    return TRUE;
}

gboolean container_verify(const uint8_t *buf, size_t size, ContainerId expected_id, GError **err)
{
    if (memcmp(buf + H_MAGIC, CONTAINER_MAGIC, 8) != 0)
        return fail(err, expected_id, "bad magic (never written, or overwritten)");
    if (le16_get(buf + H_VERSION) != CONTAINER_VERSION || le16_get(buf + H_HEADER_SIZE) != CONTAINER_HEADER_SIZE)
        return fail(err, expected_id, "unknown version");
    if (le32_get(buf + H_SIZE) != size)
        return fail(err, expected_id, "size field does not match the store's container size");
    if (le32_get(buf + H_CRC) != container_crc(buf, size))
        return fail(err, expected_id, "checksum mismatch");
    if (le32_get(buf + H_ID) != expected_id)
        return fail(err, expected_id, "holds another container's id");
    uint64_t count = le32_get(buf + H_COUNT);
    uint64_t data_end = le32_get(buf + H_DATA_END);
    if (data_end < CONTAINER_HEADER_SIZE || data_end + count * CONTAINER_META_ENTRY_SIZE > size)
        return fail(err, expected_id, "chunk count or data size out of range");
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = buf + size - (size_t)(i + 1) * CONTAINER_META_ENTRY_SIZE;
        uint64_t off = le32_get(e + 32), len = le32_get(e + 36);
        if (off < CONTAINER_HEADER_SIZE || off + len > data_end)
            return fail(err, expected_id, "chunk entry points outside the data area");
    }
    return TRUE;
}

gboolean container_verify_mapped(const uint8_t *m, size_t size, ContainerId id, const uint8_t **bytes,
                                 GError **err)
{
    if (m == NULL)
        return FALSE;
    if (!container_verify(m, size, id, err)) {
        file_unmap(m, size);
        return FALSE;
    }
    *bytes = m;
    return TRUE;
}

ContainerId container_id_of(const uint8_t *buf)
{
    return le32_get(buf + H_ID);
}

uint32_t container_chunk_count(const uint8_t *buf)
{
    return le32_get(buf + H_COUNT);
}

void container_chunk_entry(const uint8_t *buf, size_t size, uint32_t i,
                           Fingerprint *fp, uint32_t *offset, uint32_t *length)
{
    const uint8_t *e = buf + size - (size_t)(i + 1) * CONTAINER_META_ENTRY_SIZE;
    memcpy(fp->bytes, e, FP_SLOT);
    *offset = le32_get(e + 32);
    *length = le32_get(e + 36);
}

gboolean container_find_chunk(const uint8_t *buf, size_t size, uint32_t offset,
                              Fingerprint *fp, uint32_t *length)
{
    uint32_t lo = 0, hi = container_chunk_count(buf);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, off;
        container_chunk_entry(buf, size, mid, fp, &off, length);
        if (off == offset)
            return TRUE;
        if (off < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FALSE;
}

gboolean container_check_chunk(const uint8_t *buf, size_t size, ContainerId id, const Fingerprint *fp,
                               uint32_t offset, uint32_t length, GError **err)
{
    Fingerprint listed;
    uint32_t listed_len;
    if (!container_find_chunk(buf, size, offset, &listed, &listed_len)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u holds no chunk at offset %u (the recipe names one)", id, offset);
        return FALSE;
    }
    if (listed_len != length || memcmp(listed.bytes, fp->bytes, FP_SLOT) != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u holds another chunk at offset %u than the recipe names", id, offset);
        return FALSE;
    }
    return TRUE;
}
