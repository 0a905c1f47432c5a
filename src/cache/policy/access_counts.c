/* SPDX-License-Identifier: GPL-3.0-or-later */
/* access_counts.c: the store-wide access counts of the cache
 * (access_counts.h): set-up, aging, reset, and the conversions cache.meta
 * needs when a cache reopens with other `cache-counters`. */
#include "cache/policy/access_counts.h"

#include <string.h>

static const char *const mode_names[] = { [ACCESS_COUNTS_EXACT] = "exact", [ACCESS_COUNTS_SKETCH] = "sketch",
                                          [ACCESS_COUNTS_COMPACT] = "compact" };

gboolean access_counts_mode_parse(const char *word, AccessCountsMode *mode)
{
    for (int m = 0; m < (int)G_N_ELEMENTS(mode_names); m++)
        if (g_ascii_strcasecmp(word, mode_names[m]) == 0) {
            *mode = (AccessCountsMode)m;
            return TRUE;
        }
    return FALSE;
}

const char *access_counts_mode_name(AccessCountsMode mode)
{
    return mode_names[mode];
}

void access_counts_init(AccessCounts *a, AccessCountsMode mode, uint32_t n_containers)
{
    memset(a, 0, sizeof *a);
    a->mode = mode;
    a->n = n_containers;
    if (mode == ACCESS_COUNTS_EXACT)
        a->exact = g_new0(uint32_t, n_containers ? n_containers : 1);
    else if (mode == ACCESS_COUNTS_COMPACT)
        a->compact = g_new0(uint16_t, n_containers ? n_containers : 1);
    else
        count_min16_init(&a->sketch, n_containers);
}

void access_counts_clear(AccessCounts *a)
{
    g_free(a->exact);
    g_free(a->compact);
    count_min16_free(&a->sketch);
    memset(a, 0, sizeof *a);
}

void access_counts_grow(AccessCounts *a, uint32_t n_containers)
{
    g_assert(n_containers >= a->n);
    if (a->mode == ACCESS_COUNTS_EXACT) {
        a->exact = g_renew(uint32_t, a->exact, n_containers ? n_containers : 1);
        memset(a->exact + a->n, 0, (size_t)(n_containers - a->n) * sizeof *a->exact);
    } else if (a->mode == ACCESS_COUNTS_COMPACT) {
        a->compact = g_renew(uint16_t, a->compact, n_containers ? n_containers : 1);
        memset(a->compact + a->n, 0, (size_t)(n_containers - a->n) * sizeof *a->compact);
    }
    a->n = n_containers;
}

void access_counts_set_window(AccessCounts *a, uint64_t window)
{
    a->window = window;
    a->since_aging = 0;
}

void access_counts_halve(AccessCounts *a)
{
    if (a->mode == ACCESS_COUNTS_EXACT) {
        for (uint32_t i = 0; i < a->n; i++)
            a->exact[i] >>= 1;
    } else if (a->mode == ACCESS_COUNTS_COMPACT) {
        for (uint32_t i = 0; i < a->n; i++)
            a->compact[i] >>= 1;
    } else {
        count_min16_halve(&a->sketch);
    }
    a->since_aging = 0;
}

void access_counts_reset(AccessCounts *a, ContainerId id)
{
    if (a->mode == ACCESS_COUNTS_EXACT)
        a->exact[id] = 0;
    else if (a->mode == ACCESS_COUNTS_COMPACT)
        a->compact[id] = 0;
    else
        count_min16_clear(&a->sketch, id);
}

size_t access_counts_cells(const AccessCounts *a)
{
    return a->mode == ACCESS_COUNTS_SKETCH ? count_min16_cells(&a->sketch) : a->n;
}

size_t access_counts_cell_bytes(AccessCountsMode mode)
{
    return mode == ACCESS_COUNTS_EXACT ? sizeof(uint32_t) : sizeof(uint16_t);
}

size_t access_counts_bytes(const AccessCounts *a)
{
    return access_counts_cells(a) * access_counts_cell_bytes(a->mode);
}

void access_counts_export(const AccessCounts *a, uint32_t *out)
{
    size_t n = access_counts_cells(a);
    const uint16_t *cells16 = a->mode == ACCESS_COUNTS_COMPACT ? a->compact : a->sketch.c;
    for (size_t i = 0; i < n; i++)
        out[i] = a->mode == ACCESS_COUNTS_EXACT ? a->exact[i] : cells16[i];
}

/* Can n_cells cells be a saved sketch: two rows of a power-of-two width of
 * at least 64? */
static gboolean sketch_shape_valid(size_t n_cells)
{
    size_t w = n_cells / COUNT_MIN16_ROWS;
    return n_cells % COUNT_MIN16_ROWS == 0 && w >= COUNT_MIN16_MIN_WIDTH && (w & (w - 1)) == 0 && w <= UINT32_MAX;
}

/* Set container id's count to v: exactly, saturated, or (sketch) raised to
 * at least v. */
static void set_count(AccessCounts *a, ContainerId id, uint32_t v)
{
    if (a->mode == ACCESS_COUNTS_EXACT)
        a->exact[id] = v;
    else if (a->mode == ACCESS_COUNTS_COMPACT)
        a->compact[id] = (uint16_t)MIN(v, ACCESS_COUNTS_COMPACT_MAX);
    else
        count_min16_raise(&a->sketch, id, v);
}

gboolean access_counts_import(AccessCounts *a, AccessCountsMode mode, const uint32_t *cells, size_t n_cells,
                              uint64_t since_aging)
{
    if (mode == ACCESS_COUNTS_SKETCH && !sketch_shape_valid(n_cells))
        return FALSE;
    if (mode != ACCESS_COUNTS_EXACT)
        for (size_t i = 0; i < n_cells; i++)
            if (cells[i] > UINT16_MAX)
                return FALSE;
    if (mode != ACCESS_COUNTS_SKETCH) {
        for (size_t i = 0; i < n_cells && i < a->n; i++)
            set_count(a, (ContainerId)i, cells[i]);
    } else if (a->mode == ACCESS_COUNTS_SKETCH && n_cells == count_min16_cells(&a->sketch)) {
        for (size_t i = 0; i < n_cells; i++)
            a->sketch.c[i] = (uint16_t)cells[i];
    } else {
        /* a sketch of another size, or into per-container counts */
        CountMin16 saved = { .width = (uint32_t)(n_cells / COUNT_MIN16_ROWS) };
        saved.c = g_new(uint16_t, n_cells);
        for (size_t i = 0; i < n_cells; i++)
            saved.c[i] = (uint16_t)cells[i];
        for (uint32_t id = 0; id < a->n; id++)
            set_count(a, id, count_min16_estimate(&saved, id));
        count_min16_free(&saved);
    }
    a->since_aging = a->window && since_aging < a->window ? since_aging : 0;
    return TRUE;
}
