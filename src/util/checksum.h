/* SPDX-License-Identifier: GPL-3.0-or-later */
/* checksum.h: the checksums on every on-disk structure, in one place.
 *
 * CRC-32 is the gzip/zlib CRC (reflected polynomial 0xEDB88320, initial and
 * final XOR 0xFFFFFFFF); Adler-32 is zlib's. Adler-32 comes from libdeflate;
 * CRC-32 too, except that a buffer of 256 bytes or more is folded 256 bits
 * at a time with VPCLMULQDQ where the processor has it (checksum.c: twice
 * libdeflate 1.14's 128-bit fold, which a container read paid for as much
 * as for its copy). The values are zlib's either way, so the formats in
 * docs/FORMAT.md do not depend on the library or the processor. Both
 * functions continue a running sum: start CRC-32 at 0 and Adler-32 at 1
 * (checksum_*_start). */
#ifndef DESTOR_CHECKSUM_H
#define DESTOR_CHECKSUM_H

#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>

#define CHECKSUM_CRC32_START 0u
#define CHECKSUM_ADLER32_START 1u

uint32_t checksum_crc32(uint32_t crc, const void *p, size_t len);

static inline uint32_t checksum_adler32(uint32_t adler, const void *p, size_t len)
{
    return libdeflate_adler32(adler, p, len);
}

#endif
