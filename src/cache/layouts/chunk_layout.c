/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout.c: the layouts' names, the log's reclaim names, and the
 * ops table of each layout (chunk_layout.h). */
#include "cache/layouts/chunk_layout.h"

#include <string.h>

static const char *const names[] = {"log", "buckets"};

const char *chunk_layout_name(ChunkLayoutKind kind)
{
    g_assert((size_t)kind < G_N_ELEMENTS(names));
    return names[kind];
}

gboolean chunk_layout_parse(const char *name, ChunkLayoutKind *out)
{
    for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(names); i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (ChunkLayoutKind)i;
            return TRUE;
        }
    return FALSE;
}

static const char *const reclaims[] = {"evict", "clean", "reinsert"};

const char *chunk_log_reclaim_name(ChunkLogReclaim r)
{
    g_assert((size_t)r < G_N_ELEMENTS(reclaims));
    return reclaims[r];
}

gboolean chunk_log_reclaim_parse(const char *name, ChunkLogReclaim *out)
{
    for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(reclaims); i++)
        if (strcmp(name, reclaims[i]) == 0) {
            *out = (ChunkLogReclaim)i;
            return TRUE;
        }
    return FALSE;
}

const ChunkLayoutOps *chunk_layout_ops(ChunkLayoutKind kind)
{
    return kind == CHUNK_LAYOUT_BUCKETS ? &chunk_layout_buckets_ops : &chunk_layout_log_ops;
}
