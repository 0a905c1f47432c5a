/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore_cache.c: restore-cache's kinds behind one constructor. */
#include "read/restore_cache.h"
#include "read/assembly_area.h"
#include "read/container_chunks.h"
#include "read/id_source.h"

ChunkSource *restore_cache_new(const RestoreCacheConfig *c, ContainerSource *src, ChunkStream *future,
                               gboolean ids_only)
{
    g_assert(c->containers > 0);
    switch (c->kind) {
    case RESTORE_CACHE_OPT:
        return container_chunks_new_opt(src, c->containers, c->opt_window, future, ids_only);
    case RESTORE_CACHE_ASM:
        g_assert(c->containers >= 2); /* config.c refuses less */
        return assembly_area_new(src, c->containers - 1, future, ids_only);
    case RESTORE_CACHE_LRU:
        break;
    }
    chunk_stream_free(future);
    return ids_only ? container_chunks_new_ids_only(src, c->containers) : container_chunks_new(src, c->containers);
}

GArray *restore_cache_plan(const RestoreCacheConfig *c, size_t container_size, ChunkStream *future,
                           ChunkStream *plan)
{
    IdSource ids;
    GArray *order = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    id_source_init(&ids, container_size, UINT32_MAX, order);
    ChunkSource *chunks = restore_cache_new(c, &ids.source, future, TRUE);
    ChunkRef ref;
    while (chunk_stream_next(plan, &ref, NULL) && chunk_source_touch(chunks, &ref, NULL))
        ;
    chunk_source_free(chunks);
    chunk_stream_free(plan);
    return order;
}
