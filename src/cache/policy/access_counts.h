/* SPDX-License-Identifier: GPL-3.0-or-later */
/* access_counts.h: the cache core's access count of every container of the
 * store (`cache-counters`), the one cache structure besides the slot map
 * whose memory grows with the store, not with the cache. PLC's Popularity
 * Filter and In-Out Comparison, Perfect LFU and sigpop read it; the core
 * alone writes it.
 *
 *   exact  (default) a uint32 per container: 4 bytes a container.
 *   compact a uint16 per container, saturating at 65535: 2 bytes a
 *          container, exact below that (aging keeps counts low; without
 *          it only the very hottest containers saturate, and they only
 *          tie among themselves).
 *   sketch a count-min sketch (count_min16.h: 2 rows of 16-bit counters,
 *          conservative update), its width the largest power of two not
 *          above the container count (at least 64): 2 to 4 bytes a
 *          container. An estimate is never below the container's count
 *          since the last halving, but for the reset below and for
 *          saturation at 65535.
 *
 * Operations:
 *   count(id)  one access: +1 (saturating); when the policy asked for aging
 *              (a window W > 0) and this access is the W-th since the last
 *              aging, every count is then halved (rounded down). Returns
 *              TRUE when it halved.
 *   get(id)    the count (exact, compact) or the estimate (sketch).
 *   reset(id)  the count to 0 (PLC, In-Cache LFU: on eviction). Sketch: each
 *              of id's counters minus id's estimate (at least 0), so id's
 *              estimate is 0; a container sharing a counter loses as much
 *              from that counter, the one way a sketch estimate falls below
 *              its count.
 * Saved in cache.meta (docs/FORMAT.md) as its mode, its cells (exact: n
 * uint32 counts; compact: n uint16 counts; sketch: 2 x width uint16
 * counters, row after row) and the accesses since the last aging. */
#ifndef DESTOR_CACHE_ACCESS_COUNTS_H
#define DESTOR_CACHE_ACCESS_COUNTS_H

#include "storage/container_source.h"
#include "cache/policy/count_min16.h"

#include <glib.h>
#include <stdint.h>

typedef enum { ACCESS_COUNTS_EXACT = 0, ACCESS_COUNTS_SKETCH = 1, ACCESS_COUNTS_COMPACT = 2 } AccessCountsMode;
#define ACCESS_COUNTS_MODES 3
#define ACCESS_COUNTS_COMPACT_MAX UINT16_MAX

typedef struct {
    AccessCountsMode mode;
    uint32_t n;           /* containers */
    uint32_t *exact;      /* n counts (exact) */
    uint16_t *compact;    /* n counts (compact) */
    CountMin16 sketch;    /* sketch */
    uint64_t window;      /* W: accesses between agings; 0: never */
    uint64_t since_aging; /* accesses since the last aging (< W) */
} AccessCounts;

/* "exact", "compact" or "sketch" -> mode; FALSE for another word. */
gboolean access_counts_mode_parse(const char *word, AccessCountsMode *mode);
const char *access_counts_mode_name(AccessCountsMode mode);

void access_counts_init(AccessCounts *a, AccessCountsMode mode, uint32_t n_containers);
void access_counts_clear(AccessCounts *a);
/* The store grew to n_containers (more than a->n): the new containers'
 * counts start at 0. A sketch keeps its width (its counters hash any id). */
void access_counts_grow(AccessCounts *a, uint32_t n_containers);
/* Age every `window` accesses (0: never); counts the accesses from now. */
void access_counts_set_window(AccessCounts *a, uint64_t window);

static inline uint32_t access_counts_get(const AccessCounts *a, ContainerId id)
{
    switch (a->mode) {
    case ACCESS_COUNTS_EXACT: return a->exact[id];
    case ACCESS_COUNTS_COMPACT: return a->compact[id];
    default: return count_min16_estimate(&a->sketch, id);
    }
}

void access_counts_halve(AccessCounts *a);

static inline gboolean access_counts_count(AccessCounts *a, ContainerId id)
{
    if (a->mode == ACCESS_COUNTS_EXACT) {
        if (a->exact[id] < UINT32_MAX)
            a->exact[id]++;
    } else if (a->mode == ACCESS_COUNTS_COMPACT) {
        if (a->compact[id] < ACCESS_COUNTS_COMPACT_MAX)
            a->compact[id]++;
    } else {
        count_min16_add(&a->sketch, id);
    }
    if (a->window == 0 || ++a->since_aging < a->window)
        return FALSE;
    access_counts_halve(a);
    return TRUE;
}

void access_counts_reset(AccessCounts *a, ContainerId id);

/* Bytes of the counts (the memory report). */
size_t access_counts_bytes(const AccessCounts *a);

/* ---- cache.meta ---- */

/* Cells as saved, and the bytes of one: exact n x 4, compact n x 2, sketch
 * 2 x width x 2. */
size_t access_counts_cells(const AccessCounts *a);
size_t access_counts_cell_bytes(AccessCountsMode mode);
/* The cells, widened to uint32, into out[access_counts_cells(a)]. */
void access_counts_export(const AccessCounts *a, uint32_t *out);
/* Take saved counts: `cells` cells of `mode` (widened to uint32) and the
 * accesses since the last aging. Counts of the same mode and size are taken
 * as they are; per-container counts (exact, compact) of another store size
 * as far as both go (the rest 0), and of the other of the two saturated
 * where they must be; per-container counts into a sketch raise each
 * container's counters to at least its count; a sketch into per-container counts gives each
 * container its estimate. FALSE (the counts left at 0) when the cells
 * cannot be a sketch (a width that is not a power of two of at least 64) or
 * a 16-bit cell is above 65535. */
gboolean access_counts_import(AccessCounts *a, AccessCountsMode mode, const uint32_t *cells, size_t n_cells,
                              uint64_t since_aging);

#endif
