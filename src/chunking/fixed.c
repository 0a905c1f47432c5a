/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fixed.c: fixed-size chunking, the baseline content-defined chunkers are
 * measured against. Every chunk is avg_size bytes except the last; min_size
 * and max_size are not used. */
#include "chunking/chunker_impl.h"

size_t fixed_next(const Chunker *c, const uint8_t *buf, size_t len)
{
    (void)buf;
    size_t n = c->sizes.avg_size;
    return len < n ? len : n;
}
