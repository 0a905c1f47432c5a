/* SPDX-License-Identifier: GPL-3.0-or-later */
/* huge_pages.c: 2 MiB-aligned buffers advised into huge pages (huge_pages.h). */
#include "util/huge_pages.h"

#include <glib.h>
#include <sys/mman.h>

void *huge_pages_alloc(size_t size)
{
    void *buf = g_aligned_alloc(1, size, HUGE_PAGE_SIZE);
    size_t whole = size / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE;
    if (whole > 0)
        (void)madvise(buf, whole, MADV_HUGEPAGE);
    return buf;
}

void huge_pages_free(void *buf)
{
    g_aligned_free(buf);
}
