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

/* The index of `name` among n words, or n. */
static size_t word_index(const char *const *words, size_t n, const char *name)
{
    size_t i = 0;
    while (name != NULL && i < n && strcmp(name, words[i]) != 0)
        i++;
    return name == NULL ? n : i;
}

gboolean chunk_layout_parse(const char *name, ChunkLayoutKind *out)
{
    size_t i = word_index(names, G_N_ELEMENTS(names), name);
    if (i == G_N_ELEMENTS(names))
        return FALSE;
    *out = (ChunkLayoutKind)i;
    return TRUE;
}

static const char *const reclaims[] = {"evict", "clean", "reinsert"};

const char *chunk_log_reclaim_name(ChunkLogReclaim r)
{
    g_assert((size_t)r < G_N_ELEMENTS(reclaims));
    return reclaims[r];
}

gboolean chunk_log_reclaim_parse(const char *name, ChunkLogReclaim *out)
{
    size_t i = word_index(reclaims, G_N_ELEMENTS(reclaims), name);
    if (i == G_N_ELEMENTS(reclaims))
        return FALSE;
    *out = (ChunkLogReclaim)i;
    return TRUE;
}

const ChunkLayoutOps *chunk_layout_ops(ChunkLayoutKind kind)
{
    return kind == CHUNK_LAYOUT_BUCKETS ? &chunk_layout_buckets_ops : &chunk_layout_log_ops;
}
