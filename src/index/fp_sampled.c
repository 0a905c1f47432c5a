/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_sampled.c: the near-exact physical index, Destor's "sampled index"
 * (after Guo and Efstathopoulos' sampled index and DDFS's locality
 * preserved caching): only the samples of each container (sampling.h) stay
 * in memory, mapped to their container, beside a locality cache of whole
 * containers' fingerprint lists. A lookup hits the cache; failing that, a
 * sample found in the table brings its container's metadata into the
 * cache (one read of the pool), and the cache is asked again; otherwise
 * the chunk is new to this index, even if stored (a missed duplicate).
 * The Berkeley DB is written as always (gc, verify and repair read it) but
 * never read by a lookup. */
#include "index/fp_design.h"
#include "index/fp_table.h"
#include "index/locality_cache.h"
#include "index/sampling.h"
#include "index/samples_file.h"
#include "storage/container.h"
#include "util/error.h"

struct FpDesign {
    FpIndex *idx;
    FpIndexParams p;
    FpTable *samples;      /* sample -> its container (the newest holding it) */
    LocalityCache *cache;
    FpTable *unwritten;    /* the job's new chunks whose container is not yet in the pool */
    uint8_t *buf;          /* a container read by a prefetch */
    char *samples_path;
    uint64_t prefetches;
};

/* Put the samples of one container (`size` bytes at `c`) in the table. */
static void add_samples(FpDesign *d, const uint8_t *c, size_t size)
{
    guint n = container_chunk_count(c);
    if (n == 0)
        return;
    Fingerprint *fps = g_new(Fingerprint, n);
    gboolean *is_sample = g_new(gboolean, n);
    uint32_t off, len;
    for (guint i = 0; i < n; i++)
        container_chunk_entry(c, size, i, &fps[i], &off, &len);
    sampling_select(d->p.sampling, d->p.sampling_ratio, fps, n, fp_index_fp_len(d->idx), is_sample);
    ChunkLocation loc = { .container = container_id_of(c) };
    for (guint i = 0; i < n; i++)
        if (is_sample[i])
            fp_table_put(d->samples, &fps[i], &loc);
    g_free(fps);
    g_free(is_sample);
}

static SamplesStamp stamp_of(const FpDesign *d)
{
    return (SamplesStamp){ .method = d->p.sampling,
                           .ratio = d->p.sampling_ratio,
                           .fp_len = (uint32_t)fp_index_fp_len(d->idx),
                           .containers = fp_index_containers(d->idx) };
}

/* The samples of every container in the pool, read from their metadata
 * (a torn or freed slot holds none). */
static gboolean rebuild_samples(FpDesign *d, GError **err)
{
    ContainerSource *pool = fp_index_pool(d->idx);
    for (uint32_t id = 0; id < fp_index_containers(d->idx); id++) {
        GError *local = NULL;
        if (!container_source_read(pool, id, d->buf, &local)) {
            if (local->code != DESTOR_ERROR_INTEGRITY) {
                g_propagate_error(err, local);
                return FALSE;
            }
            g_error_free(local);
            continue;
        }
        add_samples(d, d->buf, pool->container_size);
    }
    return TRUE;
}

static void sampled_close(FpDesign *d)
{
    if (d == NULL)
        return;
    fp_table_free(d->samples);
    locality_cache_free(d->cache);
    fp_table_free(d->unwritten);
    g_free(d->buf);
    g_free(d->samples_path);
    g_free(d);
}

static FpDesign *sampled_open(FpIndex *idx, const FpIndexParams *p, GError **err)
{
    FpDesign *d = g_new0(FpDesign, 1);
    d->idx = idx;
    d->p = *p;
    d->samples = fp_table_new();
    d->cache = locality_cache_new(p->cache_containers);
    d->unwritten = fp_table_new();
    d->buf = g_malloc(fp_index_pool(idx)->container_size);
    d->samples_path = g_build_filename(fp_index_dir(idx), FP_SAMPLES_FILE, NULL);
    gboolean loaded = FALSE;
    char *why = NULL;
    SamplesStamp st = stamp_of(d);
    if (!fp_index_was_rebuilt(idx))
        samples_file_load(d->samples_path, &st, d->samples, &loaded, &why);
    if (why != NULL)
        destor_note("sampled index: %s; rebuilding its samples from the containers", why);
    g_free(why);
    if (!loaded && !rebuild_samples(d, err)) {
        sampled_close(d);
        return NULL;
    }
    return d;
}

/* Bring container `id`'s chunk list into the cache. A container that does
 * not read back (freed by gc since the sample was taken) holds nothing. */
static gboolean prefetch(FpDesign *d, ContainerId id, GError **err)
{
    ContainerSource *pool = fp_index_pool(d->idx);
    GError *local = NULL;
    d->prefetches++;
    if (!container_source_read(pool, id, d->buf, &local)) {
        if (local->code != DESTOR_ERROR_INTEGRITY) {
            g_propagate_error(err, local);
            return FALSE;
        }
        g_error_free(local);
        return TRUE;
    }
    locality_cache_insert(d->cache, d->buf, pool->container_size);
    return TRUE;
}

static gboolean sampled_lookup(FpDesign *d, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
    const ChunkLocation *mine = fp_table_get(d->unwritten, fp);
    *found = TRUE;
    if (mine != NULL) {
        *loc = *mine;
        return TRUE;
    }
    if (locality_cache_lookup(d->cache, fp, loc))
        return TRUE;
    const ChunkLocation *sample = fp_table_get(d->samples, fp);
    *found = FALSE;
    if (sample == NULL || locality_cache_holds(d->cache, sample->container))
        return TRUE;
    if (!prefetch(d, sample->container, err))
        return FALSE;
    /* Only the container's own metadata answers: found means it holds fp. */
    *found = locality_cache_lookup(d->cache, fp, loc);
    return TRUE;
}

static void sampled_add(FpDesign *d, const Fingerprint *fp, const ChunkLocation *loc)
{
    fp_table_put(d->unwritten, fp, loc);
}

static void sampled_persisted(FpDesign *d, const uint8_t *container, size_t size)
{
    ContainerId id = container_id_of(container);
    guint n = container_chunk_count(container);
    for (guint i = 0; i < n; i++) {
        Fingerprint fp;
        uint32_t off, len;
        container_chunk_entry(container, size, i, &fp, &off, &len);
        fp_table_remove_in(d->unwritten, &fp, id);
    }
    add_samples(d, container, size);
    /* The job's newest container is the likeliest to be met again soon,
     * and caching it costs no read. */
    locality_cache_insert(d->cache, container, size);
}

static gboolean sampled_commit(FpDesign *d, GError **err)
{
    g_assert(fp_table_size(d->unwritten) == 0); /* every container of the job is written */
    SamplesStamp st = stamp_of(d);
    return samples_file_save(d->samples_path, &st, d->samples, err);
}

static void sampled_stats(FpDesign *d, FpIndexStats *st)
{
    st->table_bytes = fp_table_bytes(d->samples) + fp_table_bytes(d->unwritten);
    st->cache_bytes = locality_cache_bytes(d->cache);
    st->prefetches = d->prefetches;
}

const FpDesignOps fp_design_sampled = {
    .open = sampled_open,
    .lookup = sampled_lookup,
    .add = sampled_add,
    .persisted = sampled_persisted,
    .commit = sampled_commit,
    .stats = sampled_stats,
    .close = sampled_close,
};
