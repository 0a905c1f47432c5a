/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cached_source.c: opening the SSD cache over the store's containers. */
#include "read/cached_source.h"
#include "read/chunk_cache_source.h"
#include "util/dir_within.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* A cache directory that cannot be made or written is a setting to fix,
 * reported before any work starts. */
static gboolean check_directory(const char *dir, GError **err)
{
    int e = 0;
    if (g_mkdir_with_parents(dir, 0755) != 0 || access(dir, W_OK | X_OK) != 0)
        e = errno;
    if (e == 0)
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "ssd-cache-directory %s cannot be created or written: %s",
                dir, g_strerror(e));
    return FALSE;
}

/* The pool's container count and, for a policy that reads them (PLC), the
 * newest reference counts, one for each of its containers (*refs NULL
 * otherwise). */
static gboolean load_references(Store *store, const CachePolicyOps *policy, uint32_t *pool_count,
                                uint32_t **refs, GError **err)
{
    uint32_t nrefs;
    *refs = NULL;
    if (!container_store_count(store->containers, pool_count, err))
        return FALSE;
    if (policy == NULL || !policy->needs_reference_count)
        return TRUE;
    if (!store_current_refcounts(store, refs, &nrefs, err))
        return FALSE;
    /* Containers of an interrupted (or running) backup have no references yet. */
    *refs = g_renew(uint32_t, *refs, MAX(*pool_count, 1));
    for (uint32_t i = nrefs; i < *pool_count; i++)
        (*refs)[i] = 0;
    return TRUE;
}

/* The working directory is the store's: a cache there would take the
 * store's writer lock (both are named LOCK) and so stop every backup while
 * it is open, and a cache inside it mixes derived data into the store's
 * layout (and into every copy of the store). Checked before anything is
 * created. */
static gboolean check_outside_store(const char *dir, const char *workdir, GError **err)
{
    if (!dir_path_within(dir, workdir))
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                "ssd-cache-directory %s is %s working-directory %s: the SSD cache needs a directory of its own, "
                "outside the store",
                dir, dir_path_within(workdir, dir) ? "the" : "inside the", workdir);
    return FALSE;
}

gboolean cached_source_open(CachedSource *cs, const Config *cfg, Store *store, GError **err)
{
    uint32_t pool_count;
    cs->cache = NULL;
    cs->chunk_cache = NULL;
    cs->reference_count = NULL;
    if (!cfg->cache.simulate && cfg->cache.directory != NULL &&
        (!check_outside_store(cfg->cache.directory, store->dir, err) || !check_directory(cfg->cache.directory, err)))
        return FALSE;
    if (cfg->cache.granularity == CACHE_GRANULARITY_CHUNK) {
        GError *trouble = NULL;
        cs->chunk_cache = chunk_cache_source_open_cache(cfg, store, &trouble);
        if (cs->chunk_cache != NULL)
            return TRUE;
        if (!destor_error_is_io(trouble)) {
            g_propagate_error(err, trouble);
            return FALSE;
        }
        destor_warning("SSD chunk cache unavailable, reading from the store without it: %s", trouble->message);
        g_error_free(trouble);
        return TRUE;
    }
    cs->policy = cfg->cache.policy_ops;
    if (!load_references(store, cs->policy, &pool_count, &cs->reference_count, err))
        return FALSE;
    GError *local = NULL;
    if (!cfg->cache.simulate && !store->has_id) {
        destor_warning("the store in %s has no identity yet (made by an older destor): the SSD cache is not "
                       "used until the next backup gives it one", store->dir);
        return TRUE;
    }
    GArray *freed = store_freed(store, NULL, err);
    if (freed == NULL) {
        g_clear_pointer(&cs->reference_count, g_free);
        return FALSE;
    }
    cs->cache = cache_core_open_config(&cfg->cache, store->id.bytes, store->container_size, pool_count,
                                       cs->reference_count, container_store_source(store->containers),
                                       (const ContainerId *)freed->data, freed->len, &local);
    g_array_unref(freed); /* read at open only */
    if (cs->cache != NULL)
        return TRUE;
    g_clear_pointer(&cs->reference_count, g_free);
    if (destor_error_is_io(local)) {
        destor_warning("SSD cache unavailable, reading from the store without it: %s",
                   local->message);
        g_error_free(local);
        return TRUE;
    }
    g_propagate_error(err, local);
    return FALSE;
}

gboolean cached_source_follow(CachedSource *cs, Store *store, GError **err)
{
    uint32_t now;
    /* the chunk cache keeps nothing per container: no growing */
    if (cs->cache == NULL || !container_store_count(store->containers, &now, err))
        return cs->cache == NULL;
    if (now <= cache_core_containers(cs->cache))
        return TRUE;
    uint32_t *refs;
    if (!load_references(store, cs->policy, &now, &refs, err))
        return FALSE;
    if (now <= cache_core_containers(cs->cache)) {
        g_free(refs);
        return TRUE;
    }
    if (!cache_core_grow(cs->cache, now, refs, err)) {
        g_free(refs);
        return FALSE;
    }
    g_free(cs->reference_count); /* the cache reads refs from now on */
    cs->reference_count = refs;
    return TRUE;
}

void cached_source_close(CachedSource *cs)
{
    GError *local = NULL;
    if (cs->cache != NULL && !cache_core_close(cs->cache, &local)) {
        destor_warning("SSD cache state not saved (the next run checks every entry): %s",
                   local->message);
        g_clear_error(&local);
    }
    cs->cache = NULL;
    if (cs->chunk_cache != NULL && !chunk_cache_close(cs->chunk_cache, &local)) {
        destor_warning("SSD chunk cache state not saved (the next run rebuilds it from the log): %s",
                       local->message);
        g_clear_error(&local);
    }
    cs->chunk_cache = NULL;
    g_clear_pointer(&cs->reference_count, g_free);
}
