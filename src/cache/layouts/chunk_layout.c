/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout.c: the layouts' names, the log's reclaim names, the
 * registry of the layouts' ops tables and the check of a put's bytes
 * (chunk_layout.h). */
#include "cache/layouts/chunk_layout.h"
#include "util/checksum.h"
#include "util/error.h"

#include <string.h>

#define ENTRY(kind, name) &chunk_layout_##name##_ops,
static const ChunkLayoutOps *const registry[] = { CACHE_DIR_CHUNK_LAYOUTS(ENTRY) };

const ChunkLayoutOps *chunk_layout_ops(ChunkLayoutKind kind)
{
    g_assert((size_t)kind < G_N_ELEMENTS(registry) && registry[kind]->kind == kind);
    return registry[kind];
}

const char *chunk_layout_name(ChunkLayoutKind kind)
{
    return chunk_layout_ops(kind)->name;
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
    for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(registry); i++) {
        if (strcmp(registry[i]->name, name) == 0) {
            *out = registry[i]->kind;
            return TRUE;
        }
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
    size_t i = word_index(reclaims, G_N_ELEMENTS(reclaims), name);
    if (i == G_N_ELEMENTS(reclaims))
        return FALSE;
    *out = (ChunkLogReclaim)i;
    return TRUE;
}


gboolean chunk_layout_check_put(Fingerprinter *fpr, const Fingerprint *fp, const void *buf, uint32_t len,
                                const char *layout, uint32_t *check, GError **err)
{
    Fingerprint got;
    fingerprinter_compute(fpr, buf, len, &got);
    if (memcmp(got.bytes, fp->bytes, FP_SLOT) != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "a chunk's bytes do not match its fingerprint; not put in the %s", layout);
        return FALSE;
    }
    *check = checksum_crc32(CHECKSUM_CRC32_START, buf, len);
    return TRUE;
}
