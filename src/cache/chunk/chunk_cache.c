/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache.c: opening the chunk cache and its access path: lookup, the
 * policy's decisions, eviction until the newcomer fits, the modelled miss
 * path and the counters. Real mode's byte moves are in chunk_cache_real.c. */
#include "cache/chunk/chunk_cache_internal.h"
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
    o->n_containers = n_containers;
    o->container_size = container_size;
    o->fetch = cfg->chunk_fetch;
    o->mode = cfg->simulate ? CACHE_MODE_SIMULATE : CACHE_MODE_REAL;
    o->device = cfg->device;
    o->ssd_tbw_bytes = cfg->ssd_tbw_bytes;
    o->directory = cfg->directory;
    o->segment_size = cfg->segment_size;
    o->reclaim = cfg->segment_reclaim;
    o->o_direct = cfg->o_direct;
    o->layout = cfg->layout;
    o->compression = cfg->compression;
    o->compression_level = (int)MIN(cfg->compression_level, (uint32_t)INT32_MAX);
    o->write_budget = cfg->write_budget;
    o->write_dwpd = cfg->write_dwpd;
    o->admission = cfg->admission_ops;
    return TRUE;
}

static gboolean layout_keep(void *ctx, const Fingerprint *fp, uint32_t length);
static void layout_reclaiming(void *ctx, uint32_t room);

/* What the layout (or its model) is opened with: the same geometry in
 * both modes (the log's capacity by its reclaim rule, chunk_cache.h), so
 * both make the same decisions. No directory. */
static void layout_options(const ChunkCache *c, ChunkLayoutOptions *lo)
{
    const ChunkCacheOptions *o = &c->opt;
    memset(lo, 0, sizeof *lo);
    lo->capacity_bytes = o->capacity_bytes;
    lo->segment_size = o->segment_size;
    lo->reclaim = o->reclaim;
    lo->o_direct = o->o_direct;
    lo->fp_alg = o->fp_alg;
    memcpy(lo->store_id, o->store_id, CHUNK_LAYOUT_STORE_ID_LEN);
    lo->compression = o->compression;
    lo->compression_level = o->compression_level;
    lo->dropped = chunk_cache_layout_dropped;
    lo->dropped_ctx = (void *)c;
    lo->keep = layout_keep;
    lo->reclaiming = layout_reclaiming;
    lo->keep_ctx = (void *)c;
    c->lops->geometry(lo);
}

ChunkCache *chunk_cache_open(const ChunkCacheOptions *o, GError **err)
{
    if (o->policy == NULL) {
        usage(err, "no chunk policy");
        return NULL;
    }
    if (o->mode == CACHE_MODE_REAL && (o->directory == NULL || o->backing == NULL)) {
        usage(err, "real mode needs a cache directory and a backing store");
        return NULL;
    }
    gboolean austere = strcmp(o->policy->name, CHUNK_POLICY_AUSTERE) == 0;
    if (austere != chunk_layout_ops(o->layout)->evicts) {
        usage(err, austere ? "policy austere needs ssd-cache-layout buckets"
                           : "ssd-cache-layout buckets needs ssd-cache-policy austere");
        return NULL;
    }
    g_assert(o->write_budget <= 0 || o->write_dwpd <= 0); /* cache_config_validate */
    gboolean budget = o->write_budget > 0 || o->write_dwpd > 0;
    const AdmissionOps *admission = o->admission ? o->admission : admission_default(budget);
    if (admission->spends_budget != budget) {
        usage(err, admission->spends_budget
                       ? "this ssd-cache-admission needs ssd-cache-write-budget or ssd-cache-write-budget-dwpd"
                       : "this ssd-cache-admission spends no write budget");
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
    /* the write budget's depth: one cache's worth of bytes */
    uint64_t objects = o->capacity_bytes / (o->avg_chunk_size ? o->avg_chunk_size : 1);
    /* no store bound (containers 0): the rule's objects are chunks, its sketch sized by them */
    AdmissionEnv aenv = { o->write_budget, o->write_dwpd, (double)o->capacity_bytes, objects ? objects : 1, 0 };
    admission_open(&c->admission, admission, &aenv);
    chunk_table_init(&c->table);
    device_model_init(&c->model, &o->device);
    c->own.cache = c;
    c->own.container_in_buf = CACHE_NO_CONTAINER;
    c->lops = chunk_layout_ops(o->layout);
    layout_options(c, &c->lopt);
    c->max_chunk = c->lops->max_chunk(&c->lopt); /* in both modes */
    if (o->mode == CACHE_MODE_SIMULATE) { /* the layout's decisions without data */
        c->lmodel = c->lops->model_open(&c->lopt, err);
        if (c->lmodel == NULL) {
            chunk_cache_close(c, NULL);
            return NULL;
        }
    }
    chunk_cache_stored_init(c);
    c->opt.directory = NULL; /* read at open only */
    if (o->mode == CACHE_MODE_REAL) {
        c->opt.directory = o->directory;
        gboolean ok = chunk_cache_real_open(c, err);
        c->opt.directory = NULL;
        if (!ok) {
            chunk_cache_close(c, NULL);
            return NULL;
        }
    }
    return c;
}

gboolean chunk_cache_close(ChunkCache *c, GError **err)
{
    if (c == NULL)
        return TRUE;
    gboolean ok = chunk_cache_real_close(c, err);
    if (c->lmodel)
        c->lops->model_close(c->lmodel);
    c->ops->destroy(c->pst);
    admission_close(&c->admission);
    g_free(c->values);
    g_free(c->policy_counters);
    g_free(c->fp);
    g_free(c->length);
    g_free(c->container);
    g_free(c->offset);
    g_free(c->kept);
    g_free(c->free_slots);
    chunk_table_free(&c->table);
    chunk_cache_offers_free(c);
    chunk_cache_stored_free(c);
    g_mutex_clear(&c->lock);
    g_free(c);
    return ok;
}

static void notify(ChunkCache *c, ChunkEventKind kind, const Fingerprint *fp, uint32_t length)
{
    if (c->observer) {
        ChunkEvent ev = { kind, fp, length };
        c->observer(&ev, c->observer_data);
    }
}

/* The log reclaims the segment of a cached chunk under
 * ssd-cache-segment-reclaim reinsert: the policy keeps it or not (a
 * policy without the op keeps nothing: FIFO, as evict). Called from
 * inside the layout's put (or its model's): no call into the layout. */
static gboolean layout_keep(void *ctx, const Fingerprint *fp, uint32_t length)
{
    ChunkCache *c = ctx;
    ChunkSlot s = chunk_cache_slot(c, fp);
    g_assert(s == CHUNK_NO_SLOT || c->length[s] == length);
    gboolean keep = s != CHUNK_NO_SLOT && c->ops->keep != NULL && c->ops->keep(c->pst, s);
    if (keep) {
        c->kept[s] = 1;
        notify(c, CHUNK_EVENT_KEEP, fp, length);
    }
    return keep;
}

/* The log starts reclaiming a segment under reinsert: the policy's keeps
 * that follow are decided on its state now (its reclaiming op). */
static void layout_reclaiming(void *ctx, uint32_t room)
{
    ChunkCache *c = ctx;
    if (c->ops->reclaiming)
        c->ops->reclaiming(c->pst, room);
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
        c->kept = g_renew(uint8_t, c->kept, n);
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
    if (c->layout)
        c->lops->drop(c->layout, &c->fp[s]);
    else if (c->lmodel)
        c->lops->model_drop(c->lmodel, &c->fp[s]);
    c->ops->removed(c->pst, s);
    unbind(c, s);
    c->counters.evictions++;
}

ChunkSlot chunk_cache_slot(const ChunkCache *c, const Fingerprint *fp)
{
    uint32_t s = chunk_table_find(&c->table, c->fp, fp);
    return s == CHUNK_TABLE_EMPTY ? CHUNK_NO_SLOT : s;
}

void chunk_cache_drop_slot(ChunkCache *c, ChunkSlot s)
{
    c->ops->removed(c->pst, s);
    unbind(c, s);
}

/* Occupy a free slot with a chunk (maps only; the caller tells the policy). */
static ChunkSlot bind(ChunkCache *c, const Fingerprint *fp, uint32_t length, ContainerId container, uint32_t offset)
{
    ChunkSlot s = take_slot(c);
    c->fp[s] = *fp;
    c->length[s] = length;
    c->container[s] = container;
    c->offset[s] = offset;
    c->kept[s] = 0;
    chunk_table_put(&c->table, c->fp, s);
    c->used_bytes += length;
    return s;
}

ChunkSlot chunk_cache_bind(ChunkCache *c, const Fingerprint *fp, uint32_t length)
{
    return bind(c, fp, length, CACHE_NO_CONTAINER, 0);
}

void chunk_cache_layout_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    ChunkCache *c = ctx;
    (void)length;
    ChunkSlot s = chunk_cache_slot(c, fp);
    if (s == CHUNK_NO_SLOT)
        return;
    if (c->lops->evicts) { /* the layout's replacement: an eviction (the policy austere has none of its own) */
        notify(c, CHUNK_EVENT_EVICT, &c->fp[s], c->length[s]);
        c->counters.evictions++;
    } else {
        notify(c, CHUNK_EVENT_LOG_DROP, &c->fp[s], c->length[s]);
        c->counters.log_dropped++;
        if (c->ops->dropped != NULL) {
            c->ops->dropped(c->pst, s);
            unbind(c, s);
            return;
        }
    }
    chunk_cache_drop_slot(c, s);
}

/* HDD reads of a miss of `ref`, by the configured miss path. TRUE: its
 * container was read whole now (its other chunks are offered). */
static gboolean miss_read(ChunkCache *c, ChunkCacheReader *r, const ChunkRef *ref)
{
    size_t bytes = ref->length;
    if (c->opt.fetch == CHUNK_FETCH_CONTAINER) {
        for (uint32_t i = 0; i < r->n_read; i++)
            if (r->read[i] == ref->container)
                return FALSE; /* read whole earlier in this request */
        r->read[r->next_read] = ref->container;
        r->next_read = (r->next_read + 1) % CHUNK_CACHE_REQUEST_CONTAINERS;
        if (r->n_read < CHUNK_CACHE_REQUEST_CONTAINERS)
            r->n_read++;
        bytes = c->opt.container_size;
    }
    c->counters.hdd_reads++;
    c->counters.hdd_bytes_read += bytes;
    c->counters.model_access_s += device_model_hdd_read(&c->model, bytes);
    return c->opt.fetch == CHUNK_FETCH_CONTAINER;
}

/* Count a refusal: of a miss, or of an offer. */
static gboolean refuse(ChunkCache *c, const ChunkRef *ref, gboolean offer)
{
    if (offer)
        c->counters.offers_refused++;
    else
        c->counters.refused++;
    notify(c, CHUNK_EVENT_REFUSE, &ref->fp, ref->length);
    return FALSE;
}

/* The stored bytes the layout has rewritten on its own so far, the chunk
 * log's cleaner's and reinsert's kept chunks (its model's in simulation:
 * the same placement decisions, counted alike), when a write budget is to
 * be charged with them; else 0. */
static uint64_t rewritten_bytes(ChunkCache *c)
{
    if (!c->admission.ops->spends_budget || (c->layout == NULL && c->lmodel == NULL))
        return 0;
    ChunkLayoutCounters k;
    if (c->layout)
        c->lops->counters(c->layout, &k);
    else
        c->lops->model_counters(c->lmodel, &k);
    return k.segments.cleaner_bytes_written + k.segments.reinserted_bytes_written;
}

gboolean chunk_cache_admit(ChunkCache *c, const ChunkRef *ref, const ChunkAccess *a, const uint8_t *data,
                           gboolean offer)
{
    if (ref->length > c->opt.capacity_bytes || ref->length > c->max_chunk)
        return refuse(c, ref, offer);
    if (!admission_admit(&c->admission, a->chunk, c->lops->stored_size(&c->lopt, ref->length))) {
        c->counters.refused_admission++; /* the policy is not asked, its state stays as it was */
        return refuse(c, ref, offer);
    }
    if (!c->ops->admit(c->pst, a))
        return refuse(c, ref, offer);
    /* a layout that evicts makes room itself (buckets: in the newcomer's bucket, below) */
    while (!c->lops->evicts && c->used_bytes + ref->length > c->opt.capacity_bytes) {
        ChunkSlot v = c->ops->victim(c->pst);
        if (v == CHUNK_NO_SLOT || v >= c->n_slots || c->length[v] == 0) {
            destor_warning("SSD chunk cache: policy %s named no cached chunk to evict; chunk not cached",
                           c->ops->name);
            return refuse(c, ref, offer);
        }
        evict(c, v);
    }
    /* simulation with compression: the bytes real mode's layout would store */
    uint32_t stored = chunk_cache_stored_length(c, ref, data);
    uint64_t rewritten = rewritten_bytes(c);
    if (c->lmodel)
        c->lops->model_put(c->lmodel, &ref->fp, ref->length, stored);
    if (c->layout) {
        GError *local = NULL;
        g_assert(data != NULL);
        if (!c->lops->put(c->layout, &ref->fp, data, ref->length, &local)) {
            destor_warning("SSD chunk cache: %s; chunk not cached", local->message);
            if (g_error_matches(local, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY))
                c->counters.put_mismatched++; /* not the SSD's fault */
            else
                c->counters.ssd_write_errors++;
            g_error_free(local);
            return refuse(c, ref, offer);
        }
        chunk_cache_real_forget_ahead(c, &ref->fp); /* a read of it now reads what was just put */
    }
    ChunkSlot s = bind(c, &ref->fp, ref->length, ref->container, ref->offset);
    c->ops->inserted(c->pst, s, a);
    c->counters.admissions++;
    c->counters.admitted_bytes += ref->length;
    c->counters.ssd_bytes_written += stored; /* simulation; real mode reports the layout's device bytes */
    c->put_stored_bytes += c->lops->stored_size(&c->lopt, stored);
    admission_written(&c->admission, c->lops->stored_size(&c->lopt, stored));
    admission_rewritten(&c->admission, rewritten_bytes(c) - rewritten); /* the put's cleaning or keeps, charged */
    if (stored < ref->length)
        c->put_compressed++;
    device_model_ssd_write(&c->model, ref->length);
    notify(c, CHUNK_EVENT_ADMIT, &ref->fp, ref->length);
    return TRUE;
}

/* The policy's view of an access. */
static ChunkAccess access_of(const ChunkRef *ref, const ChunkCachePosition *pos)
{
    ChunkAccess a = { .chunk = chunk_table_key(&ref->fp), .address = pos->address, .length = ref->length,
                      .touch_offset = pos->touch_offset, .touch_length = pos->touch_length };
    g_assert(a.touch_offset + (uint64_t)a.touch_length <= a.length);
    return a;
}

/* r's access to `ref` with `data` its bytes (real mode) or NULL: the
 * counts, the modelled times and, on a miss, admission (the log's puts and
 * drops). */
static void chunk_cache_account(ChunkCache *c, ChunkCacheReader *r, const ChunkRef *ref,
                                const ChunkCachePosition *pos, ChunkSlot s, gboolean hit, const uint8_t *data)
{
    ChunkAccess a = access_of(ref, pos);
    r->accesses++;
    admission_access(&c->admission, a.chunk);
    c->counters.accesses++;
    c->counters.bytes_requested += a.touch_length;
    if (hit) {
        if (c->lmodel)
            c->lops->model_hit(c->lmodel, &ref->fp); /* the layout's get does it in real mode */
        c->counters.hits++;
        c->counters.kept_hit += c->kept[s];
        c->kept[s] = 0;
        c->counters.bytes_hit += a.touch_length;
        c->counters.ssd_bytes_read += ref->length;
        c->counters.model_access_s += device_model_ssd_read(&c->model, ref->length);
        if (c->opt.compression != CACHE_CODEC_NONE) /* every hit charged as decoded: an upper bound */
            c->counters.model_access_s += device_model_decompress(
                &c->model, ref->length,
                c->opt.compression == CACHE_CODEC_ZSTD ? c->opt.device.zstd_decompress_mb_per_s
                                                       : c->opt.device.lz4_decompress_mb_per_s);
        notify(c, CHUNK_EVENT_HIT, &ref->fp, ref->length);
        return;
    }
    c->counters.misses++;
    r->missed = TRUE;
    gboolean whole = miss_read(c, r, ref);
    if (s != CHUNK_NO_SLOT) {
        c->counters.misses_cached++;
        notify(c, CHUNK_EVENT_MISS_CACHED, &ref->fp, ref->length);
    } else {
        chunk_cache_admit(c, ref, &a, data, FALSE);
    }
    if (whole) /* the requested chunk first, then the container's others */
        chunk_cache_offer_container(c, r, ref);
}

/* The policy's lookup of an access: *slot where the chunk is cached. */
static gboolean lookup(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, ChunkSlot *slot)
{
    ChunkAccess a = access_of(ref, pos);
    *slot = chunk_cache_slot(c, &ref->fp);
    gboolean hit = c->ops->lookup(c->pst, *slot, &a);
    g_assert(!hit || *slot != CHUNK_NO_SLOT);
    return hit;
}

static gboolean touch_locked(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, GError **err)
{
    if (ref->length == 0)
        return usage(err, "a chunk of 0 bytes");
    if (c->layout)
        return usage(err, "a cache in real mode reads bytes (chunk_cache_read)");
    double start = c->model.now;
    ChunkSlot s;
    gboolean hit = lookup(c, ref, pos, &s);
    chunk_cache_account(c, &c->own, ref, pos, s, hit, NULL);
    c->own.model_s += c->model.now - start;
    return TRUE;
}

/* chunk_cache_reader_read into buf, or (swap not NULL, buf == *swap) into
 * *swap, which a hit read ahead exchanges for the buffer it was read into. */
static gboolean reader_read(ChunkCacheReader *r, const ChunkRef *ref, const ChunkCachePosition *pos, uint8_t *buf,
                            uint8_t **swap, GError **err)
{
    ChunkCache *c = r->cache;
    g_assert(swap == NULL || *swap == buf);
    if (c->layout == NULL)
        return usage(err, "a cache in simulation mode holds no bytes to read");
    if (ref->length == 0)
        return usage(err, "a chunk of 0 bytes");
    /* A chunk the cache does not hold now is read from the store before
     * the access is decided, without the lock: the decision (the policy's
     * lookup, then the counts and admission) is made under it after, in
     * the order of chunk_cache_read's decisions, and the bytes serve it
     * unless another reader admitted the chunk meanwhile. */
    g_mutex_lock(&c->lock);
    chunk_cache_real_wait_ahead(c, &ref->fp); /* its SSD read, if read ahead, waited for without the lock */
    gboolean held = chunk_cache_slot(c, &ref->fp) != CHUNK_NO_SLOT, fetched = FALSE;
    GError *fetch_err = NULL;
    if (!held) {
        g_mutex_unlock(&c->lock);
        fetched = chunk_cache_real_fetch(c, r, ref, buf, &fetch_err);
        g_mutex_lock(&c->lock);
    }
    double start = c->model.now;
    ChunkSlot s;
    gboolean hit = lookup(c, ref, pos, &s);
    if (hit && !chunk_cache_real_get(c, ref, buf, swap)) {
        chunk_cache_drop_slot(c, s); /* damaged or lost: a miss, fetched again */
        s = CHUNK_NO_SLOT;
        hit = FALSE;
    }
    if (swap != NULL)
        buf = *swap;
    gboolean ok = hit || (held ? chunk_cache_real_fetch(c, r, ref, buf, err) : fetched);
    if (!ok && fetch_err != NULL)
        g_propagate_error(err, g_steal_pointer(&fetch_err));
    g_clear_error(&fetch_err);
    if (ok)
        chunk_cache_account(c, r, ref, pos, s, hit, buf);
    r->model_s += c->model.now - start;
    g_mutex_unlock(&c->lock);
    return ok;
}

gboolean chunk_cache_reader_read(ChunkCacheReader *r, const ChunkRef *ref, const ChunkCachePosition *pos,
                                 uint8_t *buf, GError **err)
{
    return reader_read(r, ref, pos, buf, NULL, err);
}

gboolean chunk_cache_reader_read_buf(ChunkCacheReader *r, const ChunkRef *ref, const ChunkCachePosition *pos,
                                     ChunkCacheBuf *b, GError **err)
{
    if (b->size < ref->length) {
        g_free(b->data);
        b->data = g_malloc(ref->length);
        b->size = ref->length;
    }
    uint8_t *before = b->data;
    gboolean ok = reader_read(r, ref, pos, b->data, &b->data, err);
    if (b->data != before)
        b->size = ref->length; /* the read-ahead buffer handed over: the chunk's length */
    return ok;
}

gboolean chunk_cache_read(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, uint8_t *buf,
                          GError **err)
{
    return chunk_cache_reader_read(&c->own, ref, pos, buf, err);
}

gboolean chunk_cache_read_buf(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, ChunkCacheBuf *b,
                              GError **err)
{
    return chunk_cache_reader_read_buf(&c->own, ref, pos, b, err);
}

gboolean chunk_cache_reads_ahead(const ChunkCache *c)
{
    return c->opt.mode == CACHE_MODE_REAL && !c->lops->get_decides;
}

void chunk_cache_read_ahead(ChunkCache *c, const ChunkRef *refs, size_t n)
{
    g_mutex_lock(&c->lock);
    if (c->layout != NULL && chunk_cache_reads_ahead(c))
        chunk_cache_real_read_ahead(c, refs, n);
    g_mutex_unlock(&c->lock);
}

gboolean chunk_cache_touch(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, GError **err)
{
    g_mutex_lock(&c->lock);
    gboolean ok = touch_locked(c, ref, pos, err);
    g_mutex_unlock(&c->lock);
    return ok;
}

ChunkCacheReader *chunk_cache_reader_new(ChunkCache *c)
{
    ChunkCacheReader *r = g_new0(ChunkCacheReader, 1);
    r->cache = c;
    chunk_cache_real_reader_init(c, r);
    return r;
}

void chunk_cache_reader_free(ChunkCacheReader *r)
{
    if (r == NULL)
        return;
    g_assert(r != &r->cache->own);
    chunk_cache_real_reader_free(r);
    g_free(r);
}

void chunk_cache_reader_request_begin(ChunkCacheReader *r, uint64_t time_ns)
{
    ChunkCache *c = r->cache;
    g_mutex_lock(&c->lock);
    admission_request(&c->admission, time_ns);
    g_mutex_unlock(&c->lock);
    r->in_request = TRUE;
    r->missed = FALSE;
    r->accesses = 0;
    r->n_read = r->next_read = 0;
    r->model_s = 0.0;
    r->wall_start = g_get_monotonic_time();
    r->container_in_buf = CACHE_NO_CONTAINER;
}

double chunk_cache_reader_request_end(ChunkCacheReader *r)
{
    if (!r->in_request)
        return 0.0;
    ChunkCache *c = r->cache;
    double model = r->model_s;
    g_mutex_lock(&c->lock);
    ChunkCacheCounters *k = &c->counters;
    k->requests++;
    if (!r->missed && r->accesses > 0)
        k->requests_hit++; /* served wholly from the SSD (a request of no chunk is not) */
    k->model_request_s += model;
    if (model > k->model_request_max_s)
        k->model_request_max_s = model;
    k->wall_request_s += (double)(g_get_monotonic_time() - r->wall_start) / 1e6;
    g_mutex_unlock(&c->lock);
    r->in_request = FALSE;
    return model;
}

void chunk_cache_request_begin(ChunkCache *c, uint64_t time_ns)
{
    chunk_cache_reader_request_begin(&c->own, time_ns);
}

double chunk_cache_request_end(ChunkCache *c)
{
    return chunk_cache_reader_request_end(&c->own);
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
    return chunk_table_find(&c->table, c->fp, fp) != CHUNK_TABLE_EMPTY;
}

uint64_t chunk_cache_hdd_reads(ChunkCache *c)
{
    g_mutex_lock(&c->lock);
    uint64_t n = c->counters.hdd_reads;
    g_mutex_unlock(&c->lock);
    return n;
}
