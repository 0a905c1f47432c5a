/* access_counts.c: the store-wide access counts of the cache
 * (access_counts.h): set-up, aging, reset, and the conversions cache.meta
 * needs when a cache reopens with other `cache-counters`. */
#include "cache/access_counts.h"

#include <string.h>

static const char *const mode_names[] = { [ACCESS_COUNTS_EXACT] = "exact", [ACCESS_COUNTS_SKETCH] = "sketch" };

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
    else
        count_min16_init(&a->sketch, n_containers);
}

void access_counts_clear(AccessCounts *a)
{
    g_free(a->exact);
    count_min16_free(&a->sketch);
    memset(a, 0, sizeof *a);
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
    } else {
        count_min16_halve(&a->sketch);
    }
    a->since_aging = 0;
}

void access_counts_reset(AccessCounts *a, ContainerId id)
{
    if (a->mode == ACCESS_COUNTS_EXACT)
        a->exact[id] = 0;
    else
        count_min16_clear(&a->sketch, id);
}

size_t access_counts_cells(const AccessCounts *a)
{
    return a->mode == ACCESS_COUNTS_EXACT ? a->n : count_min16_cells(&a->sketch);
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
    for (size_t i = 0; i < n; i++)
        out[i] = a->mode == ACCESS_COUNTS_EXACT ? a->exact[i] : a->sketch.c[i];
}

/* Can n_cells cells be a saved sketch: two rows of a power-of-two width of
 * at least 64, every counter within 16 bits? */
static gboolean sketch_cells_valid(const uint32_t *cells, size_t n_cells)
{
    size_t w = n_cells / COUNT_MIN16_ROWS;
    if (n_cells % COUNT_MIN16_ROWS != 0 || w < COUNT_MIN16_MIN_WIDTH || (w & (w - 1)) != 0 || w > UINT32_MAX)
        return FALSE;
    for (size_t i = 0; i < n_cells; i++)
        if (cells[i] > COUNT_MIN16_MAX)
            return FALSE;
    return TRUE;
}

gboolean access_counts_import(AccessCounts *a, AccessCountsMode mode, const uint32_t *cells, size_t n_cells,
                              uint64_t since_aging)
{
    if (mode == ACCESS_COUNTS_SKETCH && !sketch_cells_valid(cells, n_cells))
        return FALSE;
    if (mode == ACCESS_COUNTS_EXACT) {
        for (size_t i = 0; i < n_cells && i < a->n; i++) {
            if (a->mode == ACCESS_COUNTS_EXACT)
                a->exact[i] = cells[i];
            else
                count_min16_raise(&a->sketch, (ContainerId)i, cells[i]);
        }
    } else if (a->mode == ACCESS_COUNTS_SKETCH && n_cells == count_min16_cells(&a->sketch)) {
        for (size_t i = 0; i < n_cells; i++)
            a->sketch.c[i] = (uint16_t)cells[i];
    } else {
        /* a sketch of another size, or into exact counts: per container */
        CountMin16 saved = { .width = (uint32_t)(n_cells / COUNT_MIN16_ROWS) };
        saved.c = g_new(uint16_t, n_cells);
        for (size_t i = 0; i < n_cells; i++)
            saved.c[i] = (uint16_t)cells[i];
        for (uint32_t id = 0; id < a->n; id++) {
            uint32_t e = count_min16_estimate(&saved, id);
            if (a->mode == ACCESS_COUNTS_EXACT)
                a->exact[id] = e;
            else
                count_min16_raise(&a->sketch, id, e);
        }
        count_min16_free(&saved);
    }
    a->since_aging = a->window && since_aging < a->window ? since_aging : 0;
    return TRUE;
}
