/* SPDX-License-Identifier: GPL-3.0-or-later */
/* huge_pages.h: buffers the backup streams through, in transparent huge
 * pages where the kernel grants them (asked with madvise: where THP is set
 * to "madvise", a common default, nothing else gets them). A 2 MiB page
 * where there were 512 pages of 4 KiB: an O_DIRECT write pins one page,
 * and copies, reads into the buffer and hashes over it take fewer TLB
 * misses. The cost: a page touched at all is resident whole. */
#ifndef DESTOR_HUGE_PAGES_H
#define DESTOR_HUGE_PAGES_H

#include <stddef.h>

#define HUGE_PAGE_SIZE ((size_t)2 << 20)

/* `size` bytes aligned to HUGE_PAGE_SIZE (so to any smaller power of two,
 * CONTAINER_ALIGN included), advised into huge pages: only the whole huge
 * pages it holds can be. Freed by huge_pages_free. Advice only: the kernel
 * may decline, and the buffer is then like any other. */
void *huge_pages_alloc(size_t size);
void huge_pages_free(void *buf);

#endif
