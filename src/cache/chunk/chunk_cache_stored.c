/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_stored.c: what an admitted chunk takes on the SSD, for the
 * chunk cache's counts and the buckets' placement. Real mode's layout
 * compresses the bytes it is given; simulation with ssd-cache-compression
 * has no bytes, so it reads each admitted chunk from the store once
 * (chunk_read: the miss path's range read, checked against the
 * fingerprint), compresses it by the layout's own rule (the seam's
 * compress) and remembers the stored length, as the
 * container simulation does per container. Kept per stored chunk: its
 * 8-byte identity and 4-byte length, and a 4-byte table bucket at most
 * half full (key_table.h). */
#include "cache/chunk/chunk_cache_internal.h"
#include "storage/chunk_read.h"
#include "util/error.h"

#include <string.h>

static gboolean remembering(const ChunkCache *c)
{
    return c->layout == NULL && c->opt.compression != CACHE_CODEC_NONE;
}

void chunk_cache_stored_init(ChunkCache *c)
{
    if (c->opt.mode != CACHE_MODE_SIMULATE || c->opt.compression == CACHE_CODEC_NONE)
        return;
    c->sim_codec = cache_codec_new(c->opt.compression, c->opt.compression_level);
    key_table_init(&c->stored_table);
    c->sim_buf = g_malloc(c->max_chunk);
    c->sim_out = g_malloc(c->max_chunk);
}

void chunk_cache_stored_free(ChunkCache *c)
{
    if (c->sim_codec == NULL)
        return;
    cache_codec_free(c->sim_codec);
    c->sim_codec = NULL;
    key_table_free(&c->stored_table);
    g_free(c->stored_keys);
    g_free(c->stored_len);
    g_free(c->sim_buf);
    g_free(c->sim_out);
}

/* The chunk's bytes from the store (simulation); FALSE when they cannot be
 * read or do not match (warned once: the chunk then counts as stored as it
 * is). */
static gboolean read_chunk(ChunkCache *c, const ChunkRef *ref)
{
    GError *err = NULL;
    if (c->opt.backing != NULL && ref->container != CACHE_NO_CONTAINER &&
        chunk_read(c->opt.backing, ref->container, ref->offset, ref->length, c->opt.fp_alg, &ref->fp, c->sim_buf,
                   NULL, &err))
        return TRUE;
    c->stored_unread++;
    if (!c->stored_warned)
        destor_warning("SSD chunk cache: simulation cannot compress a chunk of container %u (%s); it and any other "
                       "such chunk count as stored as they are",
                       ref->container, err ? err->message : "no store to read it from");
    c->stored_warned = TRUE;
    g_clear_error(&err);
    return FALSE;
}

uint32_t chunk_cache_stored_length(ChunkCache *c, const ChunkRef *ref, const uint8_t *data)
{
    if (!remembering(c)) {
        (void)data; /* real mode: the layout compresses the bytes itself */
        return ref->length;
    }
    uint64_t key = chunk_table_key(&ref->fp);
    uint32_t e = key_table_get(&c->stored_table, c->stored_keys, key);
    if (e != KEY_TABLE_NONE)
        return c->stored_len[e];
    uint32_t stored = ref->length;
    if (read_chunk(c, ref))
        stored = c->lops->compress(&c->lopt, c->sim_codec, c->sim_buf, ref->length, c->sim_out,
                                   &c->sim_cpu_compress_s);
    g_assert(stored >= 1 && stored <= ref->length);
    if (c->n_stored == c->cap_stored) {
        c->cap_stored = c->cap_stored ? 2 * c->cap_stored : 1024;
        c->stored_keys = g_renew(uint64_t, c->stored_keys, c->cap_stored);
        c->stored_len = g_renew(uint32_t, c->stored_len, c->cap_stored);
    }
    e = c->n_stored++;
    c->stored_keys[e] = key;
    c->stored_len[e] = stored;
    key_table_put(&c->stored_table, c->stored_keys, e);
    return stored;
}

size_t chunk_cache_stored_memory(const ChunkCache *c)
{
    if (c->sim_codec == NULL)
        return 0;
    return (size_t)c->cap_stored * (sizeof(uint64_t) + sizeof(uint32_t)) + key_table_bytes(&c->stored_table);
}
