/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_range.h: a byte range of a stored file, as `read-file --offset N
 * --length N` and ranged trace lines request it. The bytes served are
 * [offset, offset + length) cut to the file: a range past the end gives
 * fewer bytes, none when it starts at or past the end (as pread does). */
#ifndef DESTOR_FILE_RANGE_H
#define DESTOR_FILE_RANGE_H

#include <stddef.h>
#include <stdint.h>

#define FILE_RANGE_TO_END UINT64_MAX /* length: up to the end of the file */

typedef struct {
    uint64_t offset;
    uint64_t length;
} FileRange;

/* [*start, *end) of a file of `size` bytes that `range` (NULL: the whole
 * file) covers; *start == *end when it covers nothing. */
static inline void file_range_clip(const FileRange *range, uint64_t size, uint64_t *start, uint64_t *end)
{
    if (range == NULL) {
        *start = 0;
        *end = size;
        return;
    }
    *start = range->offset < size ? range->offset : size;
    uint64_t room = size - *start;
    *end = *start + (range->length < room ? range->length : room);
}

#endif
