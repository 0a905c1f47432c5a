/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_trace_stamp.c: stamping a compiled trace and checking the stamp. */
#include "trace/compiled_trace_stamp.h"
#include "store/freed_list.h"
#include "recipe/job_catalog.h"
#include "util/error.h"

#include <stdarg.h>
#include <string.h>

static gint by_job_id(gconstpointer a, gconstpointer b)
{
    uint32_t x = ((const CompiledTraceJob *)a)->job_id, y = ((const CompiledTraceJob *)b)->job_id;
    return x < y ? -1 : x > y;
}

void compiled_trace_stamp(CompiledTrace *t, const Store *store, uint32_t n_containers, GPtrArray *manifests)
{
    G_STATIC_ASSERT(sizeof t->store_id == sizeof store->id.bytes);
    if (store->has_id)
        memcpy(t->store_id, store->id.bytes, sizeof t->store_id);
    else /* a version-1 store.meta holds no identity */
        memset(t->store_id, 0, sizeof t->store_id);
    t->container_size = (uint32_t)store->container_size;
    t->n_containers = n_containers;
    g_array_set_size(t->jobs, 0);
    for (guint i = 0; i < manifests->len; i++) {
        const JobManifest *m = manifests->pdata[i];
        CompiledTraceJob j = { m->job_id, m->checksum };
        g_array_append_val(t->jobs, j);
    }
    g_array_sort(t->jobs, by_job_id);
}

static gboolean stale(GError **err, const char *name, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static gboolean stale(GError **err, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                "compiled trace %s is stale: %s (compile the trace again with destor trace compile)", name, why);
    g_free(why);
    return FALSE;
}

/* gc may have copied the chunks of a listed job elsewhere and freed the
 * containers the trace names (freed_list.h): those ids read as freed. */
static gboolean check_not_freed(const CompiledTrace *t, const Store *store, const char *name, GError **err)
{
    GArray *freed = freed_list_load(store->dir, NULL, err);
    if (freed == NULL)
        return FALSE;
    gboolean ok = TRUE;
    gboolean chunks = compiled_trace_is_chunks(t);
    guint n = chunks ? t->chunks.chunks->len : t->ids->len;
    for (guint i = 0; i < n && ok && freed->len > 0; i++) {
        ContainerId id = chunks ? g_array_index(t->chunks.chunks, ChunkRef, i).container
                                : g_array_index(t->ids, ContainerId, i);
        if (freed_list_has(freed, id))
            ok = stale(err, name, "container %u it reads was freed by gc since", id);
    }
    g_array_unref(freed);
    return ok;
}

gboolean compiled_trace_check(const CompiledTrace *t, const Store *store, const char *name, GError **err)
{
    /* A trace compiled against a store without identity (version-1
     * store.meta) is held to its jobs' manifests alone. */
    static const uint8_t none[COMPILED_TRACE_ID_SIZE];
    if (memcmp(t->store_id, none, sizeof none) != 0 &&
        (!store->has_id || memcmp(t->store_id, store->id.bytes, sizeof t->store_id) != 0))
        return stale(err, name, "%s", "it was compiled against another store (or an earlier one at this path)");
    if (t->container_size != store->container_size)
        return stale(err, name, "it was compiled for %u-byte containers, the store has %u", t->container_size,
                     (uint32_t)store->container_size);
    uint32_t pool;
    if (!container_store_count(store->containers, &pool, err))
        return FALSE;
    if (pool < t->n_containers)
        return stale(err, name, "it was compiled against %u containers, the store now holds %u", t->n_containers,
                     pool);
    for (guint i = 0; i < t->jobs->len; i++) {
        const CompiledTraceJob *j = &g_array_index(t->jobs, CompiledTraceJob, i);
        JobManifest m;
        GError *local = NULL;
        if (!job_manifest_load(store->dir, j->job_id, &m, &local)) {
            if (local->code != DESTOR_ERROR_USAGE) { /* a damaged manifest is the store's problem */
                g_propagate_error(err, local);
                return FALSE;
            }
            g_error_free(local);
            return stale(err, name, "job %u is no longer in the store", j->job_id);
        }
        uint32_t now = m.checksum;
        job_manifest_clear(&m);
        if (now != j->manifest_checksum)
            return stale(err, name, "job %u's manifest has changed since (checksum %08x)", j->job_id, now);
    }
    return check_not_freed(t, store, name, err);
}
