/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_reader.c: a ContainerSource over the cache whose accesses count in
 * a request of its own. */
#include "cache/container/cache_reader.h"
#include "cache/container/cache_core_internal.h"

struct CacheReader {
    ContainerSource source; /* first: the reader is a ContainerSource */
    CacheCore *core;
    CacheRequest request;   /* under the core's lock */
};

static gboolean reader_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    CacheReader *r = (CacheReader *)self;
    g_mutex_lock(&r->core->lock);
    gboolean ok = cache_core_access_locked(r->core, &r->request, id, buf, err);
    g_mutex_unlock(&r->core->lock);
    return ok;
}

static gboolean reader_reread(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    CacheReader *r = (CacheReader *)self;
    g_mutex_lock(&r->core->lock);
    gboolean ok = cache_core_reread_locked(r->core, &r->request, id, buf, err);
    g_mutex_unlock(&r->core->lock);
    return ok;
}

CacheReader *cache_reader_new(CacheCore *c)
{
    CacheReader *r = g_new0(CacheReader, 1);
    r->source.read = reader_read;
    r->source.reread = reader_reread;
    r->source.container_size = c->opt.container_size;
    r->core = c;
    return r;
}

void cache_reader_free(CacheReader *r)
{
    g_free(r);
}

ContainerSource *cache_reader_source(CacheReader *r)
{
    return &r->source;
}

void cache_reader_request_begin(CacheReader *r)
{
    g_mutex_lock(&r->core->lock);
    g_assert(!r->request.open);
    cache_core_request_begin_locked(r->core, &r->request, 0); /* the mount's requests have no time */
    g_mutex_unlock(&r->core->lock);
}

double cache_reader_request_end(CacheReader *r)
{
    double wall;
    g_mutex_lock(&r->core->lock);
    double model = cache_core_request_end_locked(r->core, &r->request, &wall);
    g_mutex_unlock(&r->core->lock);
    return model;
}
