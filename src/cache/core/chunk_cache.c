/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache.c: opening the chunk cache and its access path: lookup, the
 * policy's decisions, eviction until the newcomer fits, the modelled miss
 * path and the counters. */
#include "cache/core/chunk_cache_internal.h"
#include "util/error.h"

#include <string.h>

static gboolean usage(GError **err, const char *msg)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "SSD chunk cache: %s", msg);
    return FALSE;
}

gboolean chunk_cache_options_from_config(ChunkCacheOptions *o, const CacheConfig *cfg, size_t container_size,
                                         uint32_t n_containers, uint32_t avg_chunk_size, GError **err)
{
    memset(o, 0, sizeof *o);
    uint32_t containers = 0;
    if (!cache_config_validate(cfg, err))
        return FALSE;
    if (cfg->size.kind == CACHE_SIZE_BYTES)
        o->capacity_bytes = cfg->size.value;
    else if (cache_config_resolve_capacity(cfg, container_size, n_containers, &containers, err))
        o->capacity_bytes = (uint64_t)containers * container_size;
    else
        return FALSE;
    o->policy = cfg->chunk_policy_ops;
    o->policy_settings = cfg->policy_settings;
    o->avg_chunk_size = avg_chunk_size ? avg_chunk_size : 8192;
    o->container_size = container_size;
    o->fetch = cfg->chunk_fetch;
    o->mode = cfg->simulate ? CACHE_MODE_SIMULATE : CACHE_MODE_REAL;
    o->device = cfg->device;
    o->ssd_tbw_bytes = cfg->ssd_tbw_bytes;
    return TRUE;
}

ChunkCache *chunk_cache_open(const ChunkCacheOptions *o, GError **err)
{
    if (o->policy == NULL) {
        usage(err, "no chunk policy");
        return NULL;
    }
    if (o->mode == CACHE_MODE_REAL) {
        usage(err, "real mode is not built yet for ssd-cache-granularity chunk: use --simulate");
        return NULL;
    }
    ChunkCache *c = g_new0(ChunkCache, 1);
    g_mutex_init(&c->lock);
    c->opt = *o;
    c->opt.policy_settings = NULL; /* read at open only */
    c->ops = o->policy;
    c->values = g_new0(CachePolicyValue, c->ops->n_keys ? c->ops->n_keys : 1);
    cache_policy_settings_resolve_keys(o->policy_settings, c->ops->keys, c->ops->n_keys, c->values);
    c->policy_counters = g_new0(uint64_t, c->ops->n_counters ? c->ops->n_counters : 1);
    c->env.capacity_bytes = o->capacity_bytes;
    c->env.avg_chunk_size = o->avg_chunk_size;
    c->env.values = c->values;
    c->env.counters = c->policy_counters;
    c->pst = c->ops->create(&c->env);
    chunk_table_init(&c->table);
    device_model_init(&c->model, &o->device);
    return c;
}

void chunk_cache_close(ChunkCache *c)
{
    if (c == NULL)
        return;
    c->ops->destroy(c->pst);
    g_free(c->values);
    g_free(c->policy_counters);
    g_free(c->fp);
    g_free(c->length);
    g_free(c->container);
    g_free(c->offset);
    g_free(c->free_slots);
    chunk_table_free(&c->table);
    g_mutex_clear(&c->lock);
    g_free(c);
}

static void notify(ChunkCache *c, ChunkEventKind kind, const Fingerprint *fp, uint32_t length)
{
    if (c->observer) {
        ChunkEvent ev = { kind, fp, length };
        c->observer(&ev, c->observer_data);
    }
}

/* A free slot, growing the per-slot arrays when none is left. */
static ChunkSlot take_slot(ChunkCache *c)
{
    if (c->n_free > 0)
        return c->free_slots[--c->n_free];
    if (c->n_taken == c->n_slots) {
        uint32_t n = c->n_slots ? 2 * c->n_slots : 256;
        c->fp = g_renew(Fingerprint, c->fp, n);
        c->length = g_renew(uint32_t, c->length, n);
        c->container = g_renew(ContainerId, c->container, n);
        c->offset = g_renew(uint32_t, c->offset, n);
        c->free_slots = g_renew(uint32_t, c->free_slots, n);
        memset(c->length + c->n_slots, 0, (size_t)(n - c->n_slots) * sizeof(uint32_t));
        c->n_slots = n;
    }
    return c->n_taken++; /* every slot below n_taken is occupied or on the free stack */
}

/* Empty an occupied slot (maps only; the policy is told by the caller). */
static void unbind(ChunkCache *c, ChunkSlot s)
{
    g_assert(s < c->n_slots && c->length[s] > 0);
    chunk_table_remove(&c->table, c->fp, s);
    c->used_bytes -= c->length[s];
    c->length[s] = 0;
    c->free_slots[c->n_free++] = s;
}

static void evict(ChunkCache *c, ChunkSlot s)
{
    notify(c, CHUNK_EVENT_EVICT, &c->fp[s], c->length[s]);
    c->ops->removed(c->pst, s);
    unbind(c, s);
    c->counters.evictions++;
}

/* HDD reads of a miss of `ref`, by the configured miss path. */
static void miss_read(ChunkCache *c, const ChunkRef *ref)
{
    size_t bytes = ref->length;
    if (c->opt.fetch == CHUNK_FETCH_CONTAINER) {
        for (uint32_t i = 0; i < c->n_request_read; i++)
            if (c->request_read[i] == ref->container)
                return; /* read whole earlier in this request */
        c->request_read[c->next_request_read] = ref->container;
        c->next_request_read = (c->next_request_read + 1) % CHUNK_CACHE_REQUEST_CONTAINERS;
        if (c->n_request_read < CHUNK_CACHE_REQUEST_CONTAINERS)
            c->n_request_read++;
        bytes = c->opt.container_size;
    }
    c->counters.hdd_reads++;
    c->counters.hdd_bytes_read += bytes;
    c->counters.model_access_s += device_model_hdd_read(&c->model, bytes);
}

/* A chunk the data cache does not hold missed: admit it, evicting until it fits. */
static void handle_miss(ChunkCache *c, const ChunkRef *ref, const ChunkAccess *a)
{
    if (ref->length > c->opt.capacity_bytes || !c->ops->admit(c->pst, a)) {
        c->counters.refused++;
        notify(c, CHUNK_EVENT_REFUSE, &ref->fp, ref->length);
        return;
    }
    while (c->used_bytes + ref->length > c->opt.capacity_bytes) {
        ChunkSlot v = c->ops->victim(c->pst);
        if (v == CHUNK_NO_SLOT || v >= c->n_slots || c->length[v] == 0) {
            destor_warning("SSD chunk cache: policy %s named no cached chunk to evict; chunk not cached",
                           c->ops->name);
            c->counters.refused++;
            notify(c, CHUNK_EVENT_REFUSE, &ref->fp, ref->length);
            return;
        }
        evict(c, v);
    }
    ChunkSlot s = take_slot(c);
    c->fp[s] = ref->fp;
    c->length[s] = ref->length;
    c->container[s] = ref->container;
    c->offset[s] = ref->offset;
    chunk_table_put(&c->table, c->fp, s);
    c->used_bytes += ref->length;
    c->ops->inserted(c->pst, s, a);
    c->counters.admissions++;
    c->counters.admitted_bytes += ref->length;
    c->counters.ssd_bytes_written += ref->length;
    device_model_ssd_write(&c->model, ref->length);
    notify(c, CHUNK_EVENT_ADMIT, &ref->fp, ref->length);
}

static gboolean touch_locked(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, GError **err)
{
    if (ref->length == 0)
        return usage(err, "a chunk of 0 bytes");
    ChunkAccess a = { .chunk = chunk_table_key(&ref->fp), .address = pos->address, .length = ref->length,
                      .touch_offset = pos->touch_offset, .touch_length = pos->touch_length };
    g_assert(a.touch_offset + (uint64_t)a.touch_length <= a.length);
    ChunkSlot s = chunk_table_get(&c->table, c->fp, &ref->fp);
    if (s == CHUNK_TABLE_EMPTY)
        s = CHUNK_NO_SLOT;
    gboolean hit = c->ops->lookup(c->pst, s, &a);
    g_assert(!hit || s != CHUNK_NO_SLOT);
    c->counters.accesses++;
    c->counters.bytes_requested += a.touch_length;
    if (hit) {
        c->counters.hits++;
        c->counters.bytes_hit += a.touch_length;
        c->counters.ssd_bytes_read += ref->length;
        c->counters.model_access_s += device_model_ssd_read(&c->model, ref->length);
        notify(c, CHUNK_EVENT_HIT, &ref->fp, ref->length);
        return TRUE;
    }
    c->counters.misses++;
    c->request_missed = TRUE;
    miss_read(c, ref);
    if (s != CHUNK_NO_SLOT) {
        c->counters.misses_cached++;
        notify(c, CHUNK_EVENT_MISS_CACHED, &ref->fp, ref->length);
    } else {
        handle_miss(c, ref, &a);
    }
    return TRUE;
}

gboolean chunk_cache_touch(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, GError **err)
{
    g_mutex_lock(&c->lock);
    gboolean ok = touch_locked(c, ref, pos, err);
    g_mutex_unlock(&c->lock);
    return ok;
}

void chunk_cache_request_begin(ChunkCache *c)
{
    g_mutex_lock(&c->lock);
    c->in_request = TRUE;
    c->request_missed = FALSE;
    c->request_accesses = c->counters.accesses;
    c->n_request_read = c->next_request_read = 0;
    c->request_model_start = c->model.now;
    c->request_wall_start = g_get_monotonic_time();
    g_mutex_unlock(&c->lock);
}

double chunk_cache_request_end(ChunkCache *c)
{
    double model = 0.0;
    g_mutex_lock(&c->lock);
    if (c->in_request) {
        ChunkCacheCounters *k = &c->counters;
        model = c->model.now - c->request_model_start;
        k->requests++;
        if (!c->request_missed && k->accesses > c->request_accesses)
            k->requests_hit++; /* served wholly from the SSD (a request of no chunk is not) */
        k->model_request_s += model;
        if (model > k->model_request_max_s)
            k->model_request_max_s = model;
        k->wall_request_s += (double)(g_get_monotonic_time() - c->request_wall_start) / 1e6;
        c->in_request = FALSE;
    }
    g_mutex_unlock(&c->lock);
    return model;
}

void chunk_cache_set_observer(ChunkCache *c, ChunkObserver fn, void *user)
{
    g_mutex_lock(&c->lock);
    c->observer = fn;
    c->observer_data = user;
    g_mutex_unlock(&c->lock);
}

uint64_t chunk_cache_used_bytes(const ChunkCache *c)
{
    return c->used_bytes;
}

gboolean chunk_cache_contains(const ChunkCache *c, const Fingerprint *fp)
{
    return chunk_table_get(&c->table, c->fp, fp) != CHUNK_TABLE_EMPTY;
}

uint64_t chunk_cache_hdd_reads(ChunkCache *c)
{
    g_mutex_lock(&c->lock);
    uint64_t n = c->counters.hdd_reads;
    g_mutex_unlock(&c->lock);
    return n;
}
