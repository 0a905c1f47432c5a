/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_core.c: opening and closing the cache, and the access path: hit,
 * miss, the policy's decision, eviction, the SSD write, the counters and the
 * device model. Real and simulation mode share every line of it except the
 * byte moves. */
#include "cache/container/cache_core_internal.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/thread_cpu.h"

#include <stdlib.h>
#include <string.h>

uint64_t cache_copy_check(const uint8_t *buf, size_t len)
{
    uint32_t crc = CHECKSUM_CRC32_START, ad = CHECKSUM_ADLER32_START;
    while (len > 0) { /* both sums per 64 KiB piece, while it is in cache */
        size_t n = MIN(len, (size_t)64 << 10);
        crc = checksum_crc32(crc, buf, n);
        ad = checksum_adler32(ad, buf, n);
        buf += n;
        len -= n;
    }
    return (uint64_t)ad << 32 | crc;
}

void cache_core_options_from_config(CacheCoreOptions *o, const CacheConfig *cfg)
{
    memset(o, 0, sizeof *o);
    o->policy = NULL;
    o->policy_settings = cfg->policy_settings;
    o->mode = cfg->simulate ? CACHE_MODE_SIMULATE : CACHE_MODE_REAL;
    o->directory = cfg->directory;
    o->o_direct = cfg->o_direct;
    o->compression = cfg->compression;
    o->compression_level = cfg->compression_level;
    o->track_quadrants = cfg->track_quadrants;
    o->counters = cfg->counters;
    o->quadrant_access_threshold = cfg->quadrant_access_threshold;
    o->quadrant_repeat_threshold = cfg->quadrant_repeat_threshold;
    o->device = cfg->device;
    o->ssd_tbw_bytes = cfg->ssd_tbw_bytes;
    o->write_budget = cfg->write_budget;
    o->write_dwpd = cfg->write_dwpd;
    o->admission = cfg->admission_ops;
}

static gboolean source_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    return cache_access((CacheCore *)self, id, buf, err);
}

static gboolean source_reread(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    return cache_reread((CacheCore *)self, id, buf, err);
}

void cache_core_push_free(CacheCore *c, CacheSlot slot)
{
    c->free_slots[c->n_free++] = slot;
}

void cache_core_bind(CacheCore *c, CacheSlot slot, ContainerId id, uint64_t check, uint32_t stored)
{
    g_assert(stored == c->opt.container_size || (stored > 0 && stored <= ssd_store_compress_cap(c->opt.container_size)));
    c->slot_id[slot] = id;
    c->slot_stored[slot] = stored;
    if (c->slot_check)
        c->slot_check[slot] = check;
    slot_map_put(&c->slot_of, id, slot);
    c->used++;
}

/* Empty `slot` (maps only). Inline: at every eviction, as the slot map's removal is. */
static inline void unbind(CacheCore *c, CacheSlot slot)
{
    slot_map_remove(&c->slot_of, c->slot_id[slot]);
    c->slot_id[slot] = CACHE_NO_CONTAINER;
    c->used--;
}

void cache_core_drop_slot(CacheCore *c, CacheSlot slot)
{
    c->ops->removed(c->pst, slot);
    unbind(c, slot);
    cache_core_push_free(c, slot);
}

static void *alloc_aligned(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, CACHE_DIR_DIRECT_ALIGN, size ? size : 1) != 0)
        return NULL;
    return p;
}

static void free_core(CacheCore *c)
{
    if (c->pst)
        c->ops->destroy(c->pst);
    admission_close(&c->admission);
    g_free(c->values);
    g_free(c->policy_counters);
    ssd_store_close(c->ssd);
    access_counts_clear(&c->counts);
    slot_map_free(&c->slot_of);
    g_free(c->slot_id);
    g_free(c->slot_check);
    g_free(c->slot_stored);
    g_free(c->sim_stored);
    cache_codec_free(c->codec);
    free(c->packed);
    free(c->unpacked);
    g_free(c->free_slots);
    g_free(c->quad);
    free(c->scratch);
    g_free(c->directory);
    g_mutex_clear(&c->lock);
    g_free(c);
}

static gboolean usage(GError **err, const char *msg)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "SSD cache: %s", msg);
    return FALSE;
}

CacheCore *cache_core_open(const CacheCoreOptions *o, GError **err)
{
    if (o->policy == NULL) {
        usage(err, "no policy (ssd-cache-policy none means no cache)");
        return NULL;
    }
    if (o->container_size == 0) {
        usage(err, "container size 0");
        return NULL;
    }
    if (o->n_containers == CACHE_NO_CONTAINER) {
        usage(err, "too many containers (the last id stands for none)");
        return NULL;
    }
    if (o->mode == CACHE_MODE_REAL && (o->directory == NULL || o->backing == NULL)) {
        usage(err, "real mode needs a cache directory and a backing store");
        return NULL;
    }
    if (o->mode == CACHE_MODE_REAL && o->policy->offline) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: policy %s is offline (it needs the whole future access sequence): "
                    "use it with --simulate on a trace",
                    o->policy->name);
        return NULL;
    }
    if (o->compression != CACHE_CODEC_NONE && o->backing == NULL) {
        usage(err, "ssd-cache-compression needs the store's bytes (in simulation too: it measures them)");
        return NULL;
    }
    g_assert(o->write_budget <= 0 || o->write_dwpd <= 0); /* cache_config_validate */
    gboolean budget = o->write_budget > 0 || o->write_dwpd > 0;
    if (budget && o->policy->offline) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: %s applies to online policies, not to the offline %s",
                    o->write_dwpd > 0 ? "ssd-cache-write-budget-dwpd" : "ssd-cache-write-budget", o->policy->name);
        return NULL;
    }
    const AdmissionOps *admission = o->admission ? o->admission : admission_default(budget);
    if (o->policy->offline && admission != admission_default(FALSE)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: ssd-cache-admission applies to online policies, not to the offline %s",
                    o->policy->name);
        return NULL;
    }
    if (admission->spends_budget != budget) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    admission->spends_budget ? "SSD cache: ssd-cache-admission %s needs ssd-cache-write-budget "
                                               "or ssd-cache-write-budget-dwpd"
                                             : "SSD cache: ssd-cache-admission %s spends no write budget",
                    admission->name);
        return NULL;
    }

    CacheCore *c = g_new0(CacheCore, 1);
    g_mutex_init(&c->lock);
    c->source.read = source_read;
    c->source.reread = source_reread;
    c->source.container_size = o->container_size;
    c->opt = *o;
    c->directory = g_strdup(o->directory);
    c->opt.directory = c->directory;
    c->ops = o->policy;
    c->values = g_new0(CachePolicyValue, c->ops->n_keys ? c->ops->n_keys : 1);
    cache_policy_settings_resolve(o->policy_settings, c->ops, c->values);
    c->policy_counters = g_new0(uint64_t, c->ops->n_counters ? c->ops->n_counters : 1);
    c->prepared = !c->ops->offline;
    c->n = o->n_containers;
    c->capacity = o->capacity < o->n_containers ? o->capacity : o->n_containers;
    /* the write budget's depth: one cache's worth of bytes */
    AdmissionEnv aenv = { o->write_budget, o->write_dwpd, (double)c->capacity * (double)o->container_size,
                          c->capacity ? c->capacity : 1, c->n };
    admission_open(&c->admission, admission, &aenv);
    c->backing = o->backing;
    c->anchor_id = CACHE_NO_CONTAINER;

    access_counts_init(&c->counts, o->counters, c->n);
    slot_map_init(&c->slot_of, c->capacity, c->n);
    c->slot_id = g_new(ContainerId, c->capacity ? c->capacity : 1);
    c->slot_stored = g_new0(uint32_t, c->capacity ? c->capacity : 1);
    if (o->compression != CACHE_CODEC_NONE) {
        c->codec = cache_codec_new(o->compression, (int)o->compression_level);
        if (o->mode == CACHE_MODE_SIMULATE)
            c->sim_stored = g_new0(uint32_t, c->n ? c->n : 1);
    }
    for (uint32_t s = 0; s < c->capacity; s++)
        c->slot_id[s] = CACHE_NO_CONTAINER;
    c->free_slots = g_new(uint32_t, c->capacity ? c->capacity : 1);
    if (o->track_quadrants)
        c->quad = g_new0(CacheQuadrantRecord, c->n ? c->n : 1);

    c->env.capacity = c->capacity;
    c->env.n_containers = c->n;
    c->env.counts = &c->counts;
    c->env.reference_count = o->reference_count;
    c->env.slot_id = c->slot_id;
    c->env.values = c->values;
    c->env.counters = c->policy_counters;
    c->pst = c->ops->create(&c->env);
    cache_policy_set_age_window(c->ops, c->pst, &c->counts);

    device_model_init(&c->model, &o->device);
    c->opened_us = g_get_monotonic_time();

    if (o->mode == CACHE_MODE_REAL) {
        c->slot_check = g_new0(uint64_t, c->capacity ? c->capacity : 1);
        c->scratch = alloc_aligned(o->container_size);
        c->packed = alloc_aligned(o->container_size);
        if (c->codec)
            c->unpacked = alloc_aligned(o->container_size);
        if (c->scratch == NULL || c->packed == NULL || (c->codec && c->unpacked == NULL)) {
            destor_set_errno(err, ENOMEM, "allocate the SSD cache buffer");
            free_core(c);
            return NULL;
        }
        c->ssd = ssd_store_open(c->directory, o->container_size, c->capacity, o->o_direct, err);
        if (c->ssd == NULL || !cache_persist_restore(c, err)) {
            free_core(c);
            return NULL;
        }
    } else {
        if (c->codec && (c->packed = alloc_aligned(o->container_size)) == NULL) {
            destor_set_errno(err, ENOMEM, "allocate the SSD cache buffer");
            free_core(c);
            return NULL;
        }
        for (uint32_t s = c->capacity; s-- > 0;)
            cache_core_push_free(c, s);
    }
    c->opt.freed = NULL; /* the caller's, read at open only */
    c->opt.n_freed = 0;
    return c;
}

CacheCore *cache_core_open_config(const CacheConfig *cfg, const uint8_t *store_id, size_t container_size,
                                  uint32_t n_containers, const uint32_t *reference_count,
                                  ContainerSource *backing, const ContainerId *freed, uint32_t n_freed,
                                  GError **err)
{
    CacheCoreOptions o;
    if (!cache_config_validate(cfg, err))
        return NULL;
    cache_core_options_from_config(&o, cfg);
    o.policy = cfg->policy_ops;
    if (o.policy == NULL) {
        usage(err, "ssd-cache-policy is none: no cache to open");
        return NULL;
    }
    if (!cache_config_resolve_capacity(cfg, container_size, n_containers, &o.capacity, err))
        return NULL;
    o.n_containers = n_containers;
    o.reference_count = reference_count;
    o.container_size = container_size;
    o.backing = backing;
    o.freed = freed;
    o.n_freed = n_freed;
    memcpy(o.store_id, store_id, SSD_STORE_ID_LEN);
    return cache_core_open(&o, err);
}

gboolean cache_core_prepare(CacheCore *c, const ContainerId *seq, size_t n, GError **err)
{
    gboolean ok = TRUE;
    g_mutex_lock(&c->lock);
    if (c->counters.accesses > 0) {
        ok = usage(err, "the access sequence comes before the first access");
    } else if (c->ops->offline) {
        for (size_t i = 0; i < n && ok; i++)
            if (seq[i] >= c->n) {
                g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                            "SSD cache: container %u in the access sequence is past the %u containers", seq[i],
                            c->n);
                ok = FALSE;
            }
        ok = ok && c->ops->prepare(c->pst, seq, n, err);
        c->prepared = ok;
    }
    g_mutex_unlock(&c->lock);
    return ok;
}

uint64_t cache_core_policy_counter(CacheCore *c, const char *name)
{
    uint64_t v = 0;
    g_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->ops->n_counters; i++)
        if (strcmp(c->ops->counters[i].name, name) == 0)
            v = c->policy_counters[i];
    g_mutex_unlock(&c->lock);
    return v;
}

ContainerSource *cache_core_source(CacheCore *c)
{
    return &c->source;
}

static void notify(CacheCore *c, CacheEventKind kind, ContainerId id, CacheSlot slot, CacheDecision d)
{
    if (c->observer) {
        CacheEvent ev = { kind, id, slot, access_counts_get(&c->counts, id), d };
        c->observer(&ev, c->observer_data);
    }
}

void cache_core_foreign_dropped(CacheCore *c, uint32_t n)
{
    c->counters.ssd_foreign_dropped += n;
    if (n == 0 || c->foreign_warned)
        return;
    c->foreign_warned = TRUE;
    destor_warning("SSD cache %s holds containers of another store (or of an earlier store deleted and "
                   "re-created here); dropped, reading them from this store", c->directory);
}

void cache_core_stale_dropped(CacheCore *c, ContainerId id)
{
    c->counters.ssd_stale_dropped++;
    if (c->stale_warned)
        return;
    c->stale_warned = TRUE;
    destor_warning("SSD cache %s held container %u with other bytes than the store holds now (was the store put "
                   "back from a copy?); dropped, reading it from the store",
                   c->directory, id);
}

gboolean cache_core_freed(const CacheCore *c, ContainerId id)
{
    uint32_t lo = 0, hi = c->opt.n_freed;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->opt.freed[mid] == id)
            return TRUE;
        if (c->opt.freed[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FALSE;
}

gboolean cache_core_header_matches(const CacheCore *c, const SsdSlotHeader *h, ContainerId id, uint64_t check)
{
    return h->valid && memcmp(h->store_id, c->opt.store_id, SSD_STORE_ID_LEN) == 0 && h->id == id &&
           h->check == check;
}

CacheCopyState cache_core_load_copy(CacheCore *c, CacheSlot slot, ContainerId id, uint64_t check, uint32_t stored,
                                    uint8_t *buf, GError **err)
{
    size_t size = c->opt.container_size;
    SsdSlotHeader h;
    if (!ssd_store_read(c->ssd, slot, stored, &h, buf, c->packed, err))
        return CACHE_COPY_IO_ERROR;
    if (h.valid && memcmp(h.store_id, c->opt.store_id, SSD_STORE_ID_LEN) != 0)
        return CACHE_COPY_FOREIGN;
    if (!cache_core_header_matches(c, &h, id, check))
        return CACHE_COPY_DAMAGED;
    if (h.codec != CACHE_CODEC_NONE) {
        if (h.codec >= CACHE_CODEC_KINDS)
            return CACHE_COPY_UNDECODABLE;
        if (c->codec == NULL) /* written compressed, opened without: decode all the same */
            c->codec = cache_codec_new(CACHE_CODEC_NONE, 0);
        /* Version 3: the stored bytes are the ones that were seen to decode
         * to the container when written (compress_copy), and decoding is a
         * function of them, so checking them checks the decoded bytes: one
         * pass over the copy's stored_len bytes (while they are in cache),
         * not over the container's. A copy that fails it is still decoded,
         * to count a copy that does not decode as such. */
        gboolean sound = h.has_stored_check && cache_copy_check(c->packed, h.stored_len) == h.stored_check;
        double t0 = thread_cpu_seconds();
        gboolean decoded = cache_codec_decompress(c->codec, (CacheCodecKind)h.codec, c->packed, h.stored_len, buf, size);
        c->counters.cpu_decompress_s += thread_cpu_seconds() - t0;
        if (!decoded)
            return CACHE_COPY_UNDECODABLE;
        if (h.has_stored_check)
            return sound ? CACHE_COPY_OK : CACHE_COPY_DAMAGED;
    }
    return cache_copy_check(buf, size) == check ? CACHE_COPY_OK : CACHE_COPY_DAMAGED;
}

/* Real mode: read the copy in `slot` and check it. FALSE: drop it. */
static gboolean read_copy(CacheCore *c, CacheSlot slot, uint8_t *buf)
{
    GError *local = NULL;
    switch (cache_core_load_copy(c, slot, c->slot_id[slot], c->slot_check[slot], c->slot_stored[slot], buf, &local)) {
    case CACHE_COPY_OK:
        return TRUE;
    case CACHE_COPY_IO_ERROR:
        destor_warning("SSD cache: %s; serving container %u from the store", local->message, c->slot_id[slot]);
        g_error_free(local);
        c->counters.ssd_read_errors++;
        return FALSE;
    case CACHE_COPY_FOREIGN:
        cache_core_foreign_dropped(c, 1);
        return FALSE;
    case CACHE_COPY_UNDECODABLE:
        c->counters.ssd_decode_failed++;
        break;
    case CACHE_COPY_DAMAGED:
        break;
    }
    destor_warning("SSD cache: the copy of container %u in %s slot %u is damaged; dropped", c->slot_id[slot],
                   c->directory, slot);
    c->counters.ssd_corrupt_dropped++;
    return FALSE;
}

static inline void count_access(CacheCore *c, ContainerId id)
{
    cache_policy_count_access(c->ops, c->pst, &c->counts, id);
    admission_access(&c->admission, id);
    if (c->quad && c->quad[id].accesses < UINT32_MAX)
        c->quad[id].accesses++;
    c->counters.accesses++;
}

/* Compress data (container_size bytes) into c->packed: its length there,
 * or container_size when it is to be stored as it is. Real mode decodes
 * the compressed bytes again and keeps them only if they give back data
 * exactly: a hit then checks the stored bytes alone (cache_core_load_copy). */
static uint32_t compress_copy(CacheCore *c, const uint8_t *data)
{
    size_t size = c->opt.container_size;
    double t0 = thread_cpu_seconds();
    size_t n = cache_codec_compress(c->codec, data, size, c->packed, ssd_store_compress_cap(size));
    c->counters.cpu_compress_s += thread_cpu_seconds() - t0;
    if (n > 0 && c->ssd) {
        t0 = thread_cpu_seconds();
        gboolean same = cache_codec_decompress(c->codec, c->opt.compression, c->packed, n, c->unpacked, size) &&
                        memcmp(c->unpacked, data, size) == 0;
        c->counters.cpu_decompress_s += thread_cpu_seconds() - t0;
        if (!same) {
            destor_warning("SSD cache: %s did not give back a container it compressed; storing it as it is",
                           cache_codec_name(c->opt.compression));
            n = 0;
        }
    }
    return n > 0 ? (uint32_t)n : (uint32_t)size;
}

/* The stored length of an admitted copy of `id`. Real mode compresses the
 * bytes at hand into c->packed. Simulation moves no bytes through the
 * cache, so it reads the container from the store once, at its first
 * admission, and compresses it the same way: both modes store and count
 * the same lengths. */
static uint32_t stored_length(CacheCore *c, ContainerId id, const uint8_t *data)
{
    size_t size = c->opt.container_size;
    if (c->codec == NULL || c->opt.compression == CACHE_CODEC_NONE)
        return (uint32_t)size;
    if (c->ssd)
        return compress_copy(c, data);
    if (c->sim_stored[id] == 0) {
        GError *local = NULL;
        uint8_t *bytes = g_malloc(size);
        if (container_source_read(c->backing, id, bytes, &local)) {
            c->sim_stored[id] = compress_copy(c, bytes);
        } else {
            destor_warning("SSD cache simulation: %s; counting container %u as incompressible", local->message, id);
            g_error_free(local);
            c->sim_stored[id] = (uint32_t)size;
        }
        g_free(bytes);
    }
    return c->sim_stored[id];
}

/* The miss path after the store read: decide, evict, write. */
static void handle_miss(CacheCore *c, ContainerId id, const uint8_t *data)
{
    size_t size = c->opt.container_size;
    CacheSlot slot = CACHE_NO_SLOT, victim = CACHE_NO_SLOT;
    CacheDecision d = CACHE_REFUSE;
    if (!admission_admit(&c->admission, id, size)) {
        /* refused by the admission rule: the policy is not asked, its state stays as it was */
        c->counters.refused_admission++;
        if (c->admission.ops->spends_budget)
            c->counters.refused_write_budget++;
        c->counters.refused++;
        notify(c, CACHE_EVENT_REFUSE, id, CACHE_NO_SLOT, d);
        return;
    }
    if (c->capacity > 0)
        d = c->ops->admit(c->pst, id, c->n_free == 0, &victim);

    if (d == CACHE_ADMIT_FREE && c->n_free > 0) {
        slot = c->free_slots[--c->n_free];
    } else if (d == CACHE_ADMIT_REPLACE && cache_policy_env_occupied(&c->env, victim)) {
        ContainerId old = c->slot_id[victim];
        notify(c, CACHE_EVENT_EVICT, old, victim, d);
        c->ops->removed(c->pst, victim);
        unbind(c, victim);
        if (c->ops->reset_access_on_evict)
            access_counts_reset(&c->counts, old);
        c->counters.evictions++;
        slot = victim;
    } else {
        if (d == CACHE_ADMIT_FREE || d == CACHE_ADMIT_REPLACE) {
            destor_warning("SSD cache: policy %s made an impossible decision; container %u not cached",
                      c->ops->name, id);
            d = CACHE_REFUSE;
        }
        c->counters.refused++;
        notify(c, CACHE_EVENT_REFUSE, id, CACHE_NO_SLOT, d);
        return;
    }

    c->counters.admissions++;
    uint64_t check = 0;
    uint32_t stored = stored_length(c, id, data);
    if (c->ssd) {
        GError *local = NULL;
        check = cache_copy_check(data, size);
        SsdSlotHeader h = { .valid = TRUE, .id = id, .check = check, .stored_len = stored };
        h.codec = stored == size ? CACHE_CODEC_NONE : c->opt.compression;
        if (stored != size)
            h.stored_check = cache_copy_check(c->packed, stored);
        memcpy(h.store_id, c->opt.store_id, SSD_STORE_ID_LEN);
        if (!ssd_store_write(c->ssd, slot, &h, stored == size ? data : c->packed, &local)) {
            destor_warning("SSD cache: %s; container %u not cached", local->message, id);
            g_error_free(local);
            c->counters.ssd_write_errors++;
            cache_core_push_free(c, slot);
            return;
        }
    }
    cache_core_bind(c, slot, id, check, stored);
    c->ops->inserted(c->pst, slot);
    size_t written = ssd_store_written_bytes(size, stored);
    c->counters.ssd_containers_written++;
    c->counters.ssd_bytes_written += written;
    c->counters.ssd_logical_bytes_written += size;
    if (stored != size)
        c->counters.ssd_compressed_written++;
    admission_written(&c->admission, written);
    if (c->quad && c->quad[id].writes < UINT32_MAX)
        c->quad[id].writes++;
    device_model_ssd_write(&c->model, written);
    notify(c, CACHE_EVENT_ADMIT, id, slot, d);
}

/* The modelled decompression rate of the cache's compressed copies. */
static double decompress_rate(const CacheCore *c)
{
    return c->opt.compression == CACHE_CODEC_ZSTD ? c->opt.device.zstd_decompress_mb_per_s
                                                   : c->opt.device.lz4_decompress_mb_per_s;
}

/* One access, the lock held; rq's missed set on a miss. */
static gboolean access_one(CacheCore *c, CacheRequest *rq, ContainerId id, uint8_t *buf, GError **err)
{
    size_t size = c->opt.container_size;
    gboolean ok = FALSE;
    if (id >= c->n) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: container %u is past the %u containers it was opened for", id, c->n);
        goto out;
    }
    if (c->ssd == NULL && buf != NULL) {
        usage(err, "a cache in simulation mode holds no bytes to read");
        goto out;
    }
    if (!c->prepared) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: offline policy %s was not given the access sequence", c->ops->name);
        goto out;
    }
    uint8_t *data = buf ? buf : c->scratch;

    CacheSlot slot = slot_map_get(&c->slot_of, id);
    if (slot != CACHE_NO_SLOT && c->ssd && !read_copy(c, slot, data)) {
        cache_core_drop_slot(c, slot);
        slot = CACHE_NO_SLOT;
    }

    if (slot != CACHE_NO_SLOT) {
        count_access(c, id);
        c->counters.hits++;
        size_t stored = c->slot_stored[slot];
        c->counters.ssd_bytes_read += ssd_store_written_bytes(size, stored);
        c->counters.model_access_s += device_model_ssd_read(&c->model, ssd_store_written_bytes(size, stored));
        if (stored != size)
            c->counters.model_access_s += device_model_decompress(&c->model, size, decompress_rate(c));
        c->ops->hit(c->pst, slot);
        notify(c, CACHE_EVENT_HIT, id, slot, CACHE_ADMIT_FREE);
    } else {
        if (c->ssd && !container_source_read(c->backing, id, data, err))
            goto out;
        count_access(c, id);
        c->counters.misses++;
        rq->missed = TRUE;
        c->counters.store_bytes_read += size;
        c->counters.model_access_s += device_model_hdd_read(&c->model, size);
        handle_miss(c, id, data);
    }
    ok = TRUE;
out:
    return ok;
}

gboolean cache_core_access_locked(CacheCore *c, CacheRequest *rq, ContainerId id, uint8_t *buf, GError **err)
{
    double t0 = c->model.now;
    uint64_t counted = c->counters.accesses;
    gboolean ok = access_one(c, rq, id, buf, err);
    if (rq->open) {
        rq->accesses += c->counters.accesses - counted;
        rq->model_s += c->model.now - t0;
    }
    return ok;
}

gboolean cache_access(CacheCore *c, ContainerId id, uint8_t *buf, GError **err)
{
    g_mutex_lock(&c->lock);
    gboolean ok = cache_core_access_locked(c, &c->request, id, buf, err);
    g_mutex_unlock(&c->lock);
    return ok;
}

/* The store's bytes of `id`; a cached copy that differs from them is stale
 * (the store's history was replaced under it) and dropped. */
static gboolean reread_one(CacheCore *c, ContainerId id, uint8_t *buf, GError **err)
{
    size_t size = c->opt.container_size;
    if (c->ssd == NULL || buf == NULL)
        return usage(err, "a cache in simulation mode holds no bytes to read again");
    if (id >= c->n) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: container %u is past the %u containers it was opened for", id, c->n);
        return FALSE;
    }
    if (!container_source_read(c->backing, id, buf, err))
        return FALSE;
    c->counters.store_bytes_read += size;
    c->counters.model_access_s += device_model_hdd_read(&c->model, size);
    CacheSlot slot = slot_map_get(&c->slot_of, id);
    if (slot != CACHE_NO_SLOT && cache_copy_check(buf, size) != c->slot_check[slot]) {
        cache_core_stale_dropped(c, id);
        cache_core_drop_slot(c, slot);
    }
    return TRUE;
}

gboolean cache_core_reread_locked(CacheCore *c, CacheRequest *rq, ContainerId id, uint8_t *buf, GError **err)
{
    double t0 = c->model.now;
    gboolean ok = reread_one(c, id, buf, err);
    if (rq->open)
        rq->model_s += c->model.now - t0;
    return ok;
}

gboolean cache_reread(CacheCore *c, ContainerId id, uint8_t *buf, GError **err)
{
    g_mutex_lock(&c->lock);
    gboolean ok = cache_core_reread_locked(c, &c->request, id, buf, err);
    g_mutex_unlock(&c->lock);
    return ok;
}

gboolean cache_core_grow(CacheCore *c, uint32_t n_containers, const uint32_t *reference_count, GError **err)
{
    gboolean ok = TRUE;
    g_mutex_lock(&c->lock);
    if (n_containers <= c->n) {
        /* nothing new */
    } else if (n_containers == CACHE_NO_CONTAINER) {
        ok = usage(err, "too many containers (the last id stands for none)");
    } else if (c->ops->offline) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "SSD cache: offline policy %s was given its access sequence for %u containers; the store "
                    "now has %u",
                    c->ops->name, c->n, n_containers);
        ok = FALSE;
    } else {
        access_counts_grow(&c->counts, n_containers);
        if (c->sim_stored) {
            c->sim_stored = g_renew(uint32_t, c->sim_stored, n_containers);
            memset(c->sim_stored + c->n, 0, (size_t)(n_containers - c->n) * sizeof *c->sim_stored);
        }
        slot_map_grow(&c->slot_of, n_containers);
        if (c->quad) {
            c->quad = g_renew(CacheQuadrantRecord, c->quad, n_containers);
            memset(c->quad + c->n, 0, (size_t)(n_containers - c->n) * sizeof *c->quad);
        }
        c->n = n_containers;
        c->opt.n_containers = n_containers;
        c->env.n_containers = n_containers;
        c->opt.reference_count = reference_count;
        c->env.reference_count = reference_count;
    }
    g_mutex_unlock(&c->lock);
    return ok;
}

uint32_t cache_core_containers(CacheCore *c)
{
    g_mutex_lock(&c->lock);
    uint32_t n = c->n;
    g_mutex_unlock(&c->lock);
    return n;
}

void cache_core_request_begin_locked(CacheCore *c, CacheRequest *rq, uint64_t time_ns)
{
    admission_request(&c->admission, time_ns);
    *rq = (CacheRequest){ .open = TRUE, .wall_start = g_get_monotonic_time() };
}

void cache_core_request_begin(CacheCore *c, uint64_t time_ns)
{
    g_mutex_lock(&c->lock);
    cache_core_request_begin_locked(c, &c->request, time_ns);
    g_mutex_unlock(&c->lock);
}

double cache_core_request_end_locked(CacheCore *c, CacheRequest *rq, double *wall_s)
{
    *wall_s = 0.0;
    if (!rq->open)
        return 0.0;
    double model = rq->model_s;
    double wall = (double)(g_get_monotonic_time() - rq->wall_start) / 1e6;
    *wall_s = wall;
    CacheCounters *k = &c->counters;
    k->requests++;
    if (!rq->missed && rq->accesses > 0)
        k->requests_hit++;
    k->model_request_s += model;
    k->wall_request_s += wall;
    if (model > k->model_request_max_s)
        k->model_request_max_s = model;
    if (wall > k->wall_request_max_s)
        k->wall_request_max_s = wall;
    rq->open = FALSE;
    return model;
}

double cache_core_request_end(CacheCore *c)
{
    double wall;
    g_mutex_lock(&c->lock);
    double model = cache_core_request_end_locked(c, &c->request, &wall);
    g_mutex_unlock(&c->lock);
    return model;
}

gboolean cache_core_request_ids(CacheCore *c, const ContainerId *ids, uint32_t n, uint64_t time_ns, double *model_s,
                                double *wall_s, GError **err)
{
    gboolean ok = TRUE;
    g_mutex_lock(&c->lock);
    cache_core_request_begin_locked(c, &c->request, time_ns);
    for (uint32_t i = 0; i < n && ok; i++)
        ok = cache_core_access_locked(c, &c->request, ids[i], NULL, err);
    *model_s = cache_core_request_end_locked(c, &c->request, wall_s);
    g_mutex_unlock(&c->lock);
    return ok;
}

gboolean cache_core_close(CacheCore *c, GError **err)
{
    if (c == NULL)
        return TRUE;
    gboolean ok = TRUE;
    if (c->ssd)
        ok = ssd_store_sync(c->ssd, err) && cache_persist_save(c, TRUE, err);
    free_core(c);
    return ok;
}

void cache_core_abandon(CacheCore *c)
{
    if (c != NULL)
        free_core(c);
}

void cache_core_set_observer(CacheCore *c, CacheObserver fn, void *user)
{
    g_mutex_lock(&c->lock);
    c->observer = fn;
    c->observer_data = user;
    g_mutex_unlock(&c->lock);
}

uint32_t cache_core_capacity(const CacheCore *c)
{
    return c->capacity;
}

uint32_t cache_core_cached(const CacheCore *c)
{
    return c->used;
}

gboolean cache_core_contains(const CacheCore *c, ContainerId id)
{
    return id < c->n && slot_map_present(&c->slot_of, id);
}

uint32_t cache_core_access_count(const CacheCore *c, ContainerId id)
{
    return id < c->n ? access_counts_get(&c->counts, id) : 0;
}

CacheMode cache_core_mode(const CacheCore *c)
{
    return c->opt.mode;
}

const CacheCounters *cache_core_counters(const CacheCore *c)
{
    return &c->counters;
}
