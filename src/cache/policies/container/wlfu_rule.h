/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wlfu_rule.h: wlfu's admission (docs/CACHE.md), the one definition that
 * wlfu.c and minisim.c's frequency candidate share, so that the adaptive
 * policy's F is wlfu and cannot drift from it (its eviction order is
 * count_order.h's, which both use). */
#ifndef DESTOR_CACHE_POLICIES_WLFU_RULE_H
#define DESTOR_CACHE_POLICIES_WLFU_RULE_H

#include <glib.h>
#include <stdint.h>

/* wlfu-age-window's default: every count halved each 16 x n_containers
 * accesses (sigpop's). */
#define WLFU_AGE_WINDOW_DEFAULT 16.0

/* Does a miss of count a replace the victim of count b? When more
 * frequent, or as frequent and refused lately (a ghost hit). */
static inline gboolean wlfu_rule_admits(uint32_t a, uint32_t b, gboolean ghost_hit)
{
    return a > b || (a == b && ghost_hit);
}

#endif
