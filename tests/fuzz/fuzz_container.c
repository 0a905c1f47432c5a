/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_container.c: container headers and layout, container_verify() and
 * then container_chunk_entry() over every entry of a container it accepts.
 *
 * Input: a mode byte, then the container; its size is the input's length
 * less one (at least the 64-byte header: container_verify()'s callers always
 * pass the store's container size, 128K to 16M, which the header fits in).
 * Mode bit 0: recompute the CRC field (offset 32, docs/FORMAT.md) so the
 * fuzzer explores the checks behind it; with bit 0 clear the bytes are
 * checked as they are. Bit 1: write the true size into the size field.
 * Bit 2: expect the id the header holds (as the store does when it reads
 * container N at slot N); clear: expect id 0.
 *
 * Every chunk of an accepted container must lie inside the data area: the
 * harness reads each chunk's bytes, so ASan reports an entry pointing out. */
#include "fuzz_util.h"

#include "storage/container.h"
#include "util/le.h"

static uint32_t crc_with_zero_field(const uint8_t *buf, size_t size)
{
    static const uint8_t zero[4];
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, buf, 32);
    crc = crc32(crc, zero, sizeof zero);
    crc = crc32_z(crc, buf + 36, size - 36);
    return (uint32_t)crc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t mode;
    size_t len;
    uint8_t *buf = fuzz_mode_input(data, size, 1 + CONTAINER_HEADER_SIZE, &mode, &len);
    if (buf == NULL)
        return 0;
    if (mode & 2)
        le32_put(buf + 16, (uint32_t)len);
    if (mode & 1)
        le32_put(buf + 32, crc_with_zero_field(buf, len));
    ContainerId expect = (mode & 4) ? container_id_of(buf) : 0;

    GError *err = NULL;
    gboolean ok = container_verify(buf, len, expect, &err);
    if (ok != (err == NULL))
        abort();
    if (ok) {
        if (container_id_of(buf) != expect)
            abort();
        uint32_t n = container_chunk_count(buf);
        volatile uint8_t sink = 0;
        for (uint32_t i = 0; i < n; i++) {
            Fingerprint fp;
            uint32_t off = 0, clen = 0;
            container_chunk_entry(buf, len, i, &fp, &off, &clen);
            if (off < CONTAINER_HEADER_SIZE || (uint64_t)off + clen > len)
                abort();
            for (uint32_t j = 0; j < clen; j++)
                sink ^= buf[off + j];
        }
        (void)sink;
    }
    g_clear_error(&err);
    free(buf);
    return 0;
}
