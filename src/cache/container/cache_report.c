/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_report.c: turn the core's counters into a CacheReport (ratios,
 * quadrant breakdown, modelled and wall time, SSD lifetime, memory). */
#include "cache/container/cache_core_internal.h"

#include <math.h>
#include <string.h>

static void quadrants(const CacheCore *c, CacheReport *r)
{
    r->quadrants = c->quad != NULL;
    r->quadrant_access_threshold = c->opt.quadrant_access_threshold;
    r->quadrant_repeat_threshold = c->opt.quadrant_repeat_threshold;
    if (c->quad == NULL)
        return;
    uint64_t size = c->opt.container_size;
    for (uint32_t i = 0; i < c->n; i++) {
        const CacheQuadrantRecord *q = &c->quad[i];
        if (q->writes == 0)
            continue;
        CacheQuadrant k = cache_quadrant_of(q->accesses, q->writes, r->quadrant_access_threshold,
                                            r->quadrant_repeat_threshold);
        r->quadrant_bytes[k] += (uint64_t)q->writes * size;
        r->quadrant_containers[k]++;
    }
    uint64_t total = 0;
    for (int k = 0; k < 4; k++)
        total += r->quadrant_bytes[k];
    for (int k = 0; k < 4; k++)
        r->quadrant_share[k] = total ? (double)r->quadrant_bytes[k] / (double)total : 0.0;
}

static void compression(const CacheCore *c, CacheReport *r)
{
    uint64_t size = c->opt.container_size;
    r->compression = cache_codec_name(c->opt.compression);
    r->compression_level = c->opt.compression_level;
    r->compression_ratio = r->c.ssd_bytes_written
                               ? (double)r->c.ssd_logical_bytes_written / (double)r->c.ssd_bytes_written
                               : 1.0;
    r->capacity_bytes = (uint64_t)c->capacity * size;
    r->capacity_logical_bytes = r->capacity_bytes; /* one slot per container (ssd_store.h) */
    for (CacheSlot s = 0; s < c->capacity; s++)
        if (c->slot_id[s] != CACHE_NO_CONTAINER) {
            r->cached_bytes += size;
            r->cached_stored_bytes += ssd_store_written_bytes(size, c->slot_stored[s]);
        }
}

static void memory(const CacheCore *c, CacheReport *r)
{
    r->counters = access_counts_mode_name(c->counts.mode);
    r->counts_bytes = access_counts_bytes(&c->counts);
    size_t fixed_per_container = (c->env.reference_count ? sizeof(uint32_t) : 0) /* the store's counts */
                                 + (c->quad ? sizeof(CacheQuadrantRecord) : 0);
    size_t bits_bytes = slot_map_bit_bytes(&c->slot_of);
    r->bytes_per_container = (double)fixed_per_container +
                             (c->n ? (double)(r->counts_bytes + bits_bytes) / c->n : 0.0);
    r->policy_memory_bytes = c->ops->memory ? c->ops->memory(c->pst) : c->ops->bytes_per_slot * (size_t)c->capacity;
    size_t policy_per_slot = c->capacity ? (r->policy_memory_bytes + c->capacity - 1) / c->capacity : 0;
    size_t map_per_slot = c->capacity ? (slot_map_bytes(&c->slot_of) + c->capacity - 1) / c->capacity : 0;
    r->bytes_per_slot = sizeof(ContainerId) + sizeof(uint32_t) /* free stack */ + sizeof(uint32_t) /* stored length */
                        + (c->slot_check ? sizeof(uint64_t) : 0) + map_per_slot + policy_per_slot;
    r->admission_memory_bytes = admission_memory(&c->admission);
    r->admission_bytes_per_container = c->n ? (double)r->admission_memory_bytes / c->n : 0.0;
    r->memory_bytes = (size_t)c->n * fixed_per_container + r->counts_bytes + bits_bytes +
                      (size_t)c->capacity * (r->bytes_per_slot - policy_per_slot) + r->policy_memory_bytes +
                      r->admission_memory_bytes;
}

void cache_core_report(CacheCore *c, CacheReport *r)
{
    g_mutex_lock(&c->lock);
    memset(r, 0, sizeof *r);
    r->policy = c->ops->name;
    r->mode = c->opt.mode == CACHE_MODE_REAL ? "real" : "simulate";
    r->capacity = c->capacity;
    r->cached = c->used;
    r->n_containers = c->n;
    r->container_size = c->opt.container_size;
    r->c = c->counters;
    report_policy_take(&r->policy_counters, c->ops->counters, c->ops->n_counters, c->policy_counters);
    r->hit_ratio = r->c.accesses ? (double)r->c.hits / (double)r->c.accesses : 0.0;
    r->request_hit_ratio = r->c.requests ? (double)r->c.requests_hit / (double)r->c.requests : 0.0;
    quadrants(c, r);
    compression(c, r);

    /* the replay ends when the last queued SSD write is done */
    r->model_elapsed_s = c->model.now > c->model.ssd_free_at ? c->model.now : c->model.ssd_free_at;
    r->model_ssd_wait_s = c->model.ssd_wait;
    r->model_ssd_write_busy_s = c->model.ssd_write_busy;
    r->wall_elapsed_s = (double)(g_get_monotonic_time() - c->opened_us) / 1e6;

    r->ssd_tbw_bytes = c->opt.ssd_tbw_bytes;
    r->write_budget = c->opt.write_budget;
    r->write_dwpd = c->opt.write_dwpd;
    r->write_budget_bytes = c->opt.write_dwpd > 0 ? admission_budget_bytes(&c->admission)
                                                  : c->opt.write_budget * (double)c->counters.requests;
    double written = (double)r->c.ssd_bytes_written;
    r->write_rate_model_bps = r->model_elapsed_s > 0 ? written / r->model_elapsed_s : 0.0;
    r->lifetime_days_model = cache_lifetime_days(r->ssd_tbw_bytes, r->write_rate_model_bps);
    if (c->opt.mode == CACHE_MODE_REAL) {
        r->write_rate_wall_bps = r->wall_elapsed_s > 0 ? written / r->wall_elapsed_s : 0.0;
        r->lifetime_days_wall = cache_lifetime_days(r->ssd_tbw_bytes, r->write_rate_wall_bps);
    } else { /* nothing was written: no wall-clock rate */
        r->write_rate_wall_bps = NAN;
        r->lifetime_days_wall = NAN;
    }
    memory(c, r);
    if (c->sim_stored) /* simulation's measured stored lengths */
        r->memory_bytes += (size_t)c->n * sizeof(uint32_t);
    g_mutex_unlock(&c->lock);
}

void cache_core_print_stats(CacheCore *c, FILE *fp)
{
    CacheReport r;
    cache_core_report(c, &r);
    GString *s = g_string_new(NULL);
    cache_report_text(&r, s);
    fputs(s->str, fp);
    g_string_free(s, TRUE);
}

void cache_core_json(CacheCore *c, JsonBuilder *b)
{
    CacheReport r;
    cache_core_report(c, &r);
    cache_report_json(&r, b);
}
