/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_core.h: the SSD container cache itself. It owns the cached set (a
 * slot per cached container), the capacity, the per-container counters, all
 * statistics and all I/O, and asks a policy (policy.h) only for decisions.
 *
 * One access = one container read:
 *   hit:  real mode reads the container's copy from the SSD slot file,
 *         decompresses it if it was stored compressed, and checks it (the
 *         slot header names this store and this container; crc32 + adler32
 *         of the container's bytes; a bad or undecodable copy is dropped and
 *         the access becomes a miss: the cache never serves wrong bytes);
 *   miss: real mode reads it from the backing ContainerSource (the store);
 *         the policy decides whether it is admitted and what it replaces;
 *         an admitted container is written to its slot in one write (of
 *         the container, or of its compressed form padded to SSD pages).
 * Simulation mode runs exactly the same decisions on ids alone and moves no
 * bytes; counts and modelled times are identical to real mode on the same
 * access sequence.
 *
 * The cache is itself a ContainerSource (cache_core_source()): read-file and
 * restore read through it instead of the store's source and see the same
 * bytes; when a recipe's chunk check fails on bytes it served, its reread()
 * (cache_reread) gives the store's and drops a copy that differs. Calls are
 * serialised by an internal mutex. Several readers serving requests at
 * once each read through a cache reader (cache_reader.h) with a request
 * bracket of its own.
 *
 * Memory per stored container: the access count (access_counts.h: 4 bytes
 * exact, 2 compact, 2 to 4 sketch) and a bit (is it cached?), plus the
 * store's 4-byte reference_count; with quadrant tracking 8 more. Per slot:
 * the slot map (a hash table of the cached containers, slot_map.h, 16 to
 * 32 bytes), 12 more (id, free stack, stored length; real mode 8 more for
 * the check), and the policy's few. With compression in simulation, 4
 * bytes per stored container: its measured stored length. */
#ifndef DESTOR_CACHE_CORE_H
#define DESTOR_CACHE_CORE_H

#include "cache/admission/admission.h"
#include "cache/config/cache_config.h"
#include "cache/common/cache_stats.h"
#include "cache/common/device_model.h"
#include "cache/policy/policy.h"
#include "cache/container/ssd_store.h"
#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const CachePolicyOps *policy;    /* required (no cache: don't open one) */
    const CachePolicySettings *policy_settings; /* the policies' keys (NULL: defaults);
                                        read at open only */
    uint32_t capacity;               /* containers; more than n_containers is
                                        cut to n_containers */
    uint32_t n_containers;           /* ids 0 .. n_containers-1 */
    const uint32_t *reference_count; /* the store's, n_containers entries (distinct
                                        files per container); may be NULL; must
                                        outlive the cache */
    size_t container_size;
    CacheMode mode;
    const char *directory;           /* real mode: the cache directory */
    uint8_t store_id[SSD_STORE_ID_LEN]; /* real mode: the store's identity; a cached
                                        copy recorded under another is never served */
    ContainerSource *backing;        /* real mode: the store's source */
    const ContainerId *freed;        /* ascending: containers gc freed (the store's
                                        freed list); a saved entry of one is dropped
                                        at open (ssd_freed_dropped); may be NULL */
    uint32_t n_freed;
    gboolean o_direct;
    CacheCodecKind compression;      /* ssd-cache-compression: an admitted copy is
                                        stored compressed when that saves an SSD
                                        page (ssd_store.h); simulation measures it
                                        on the store's bytes (backing required) */
    uint32_t compression_level;      /* ssd-cache-compression-level */
    gboolean track_quadrants;
    AccessCountsMode counters;       /* cache-counters */
    uint32_t quadrant_access_threshold, quadrant_repeat_threshold;
    DeviceModelParams device;
    uint64_t ssd_tbw_bytes;
    /* ssd-cache-write-budget, bytes per request (0: none), spent by the
     * admission rule (write_credit.h). Online policies only. */
    double write_budget;
    /* ssd-cache-write-budget-dwpd, drive writes a day of the trace's time
     * (0: none; write_credit.h): at most one of the two is set */
    double write_dwpd;
    /* ssd-cache-admission (admission.h); NULL: admission_default(a budget is set) */
    const AdmissionOps *admission;
} CacheCoreOptions;

typedef struct CacheCore CacheCore;

/* Options from a CacheConfig's defaults (policy NULL, capacity 0). The
 * options point at cfg's policy settings: open the cache before clearing cfg. */
void cache_core_options_from_config(CacheCoreOptions *o, const CacheConfig *cfg);

/* Open a cache. Real mode locks the directory (DESTOR_ERROR_LOCKED if
 * another process holds it) and restores what a previous run left there.
 * An offline policy is a USAGE error in real mode. */
CacheCore *cache_core_open(const CacheCoreOptions *o, GError **err);

/* An offline policy (policy.h) needs the whole container-access sequence
 * before the first access; for an online policy this does nothing. A
 * USAGE error after the first access. */
gboolean cache_core_prepare(CacheCore *c, const ContainerId *seq, size_t n, GError **err);

/* The value of the policy's own counter `name`, or 0 when it has none. */
uint64_t cache_core_policy_counter(CacheCore *c, const char *name);

/* Open from the configuration once the store is open: resolves the policy
 * name and ssd-cache-size; cfg->simulate selects simulation mode. A USAGE
 * error if the policy is "none" (check cache_config_enabled() first).
 * store_id: SSD_STORE_ID_LEN bytes, the store's identity (real mode);
 * freed, n_freed: as in CacheCoreOptions. */
CacheCore *cache_core_open_config(const CacheConfig *cfg, const uint8_t *store_id, size_t container_size,
                                  uint32_t n_containers, const uint32_t *reference_count,
                                  ContainerSource *backing, const ContainerId *freed, uint32_t n_freed,
                                  GError **err);

/* One container access. buf: container_size bytes to fill (real mode), or
 * NULL to count only (real mode still moves the bytes through an internal
 * buffer). Simulation mode requires buf == NULL. An error (USAGE for an id
 * past n_containers, or the backing source's error on a miss) counts no
 * access. SSD trouble is never an error: a copy that
 * cannot be read or fails its check is dropped and the access served from the
 * store; a failed SSD write leaves the container uncached (both counted). */
gboolean cache_access(CacheCore *c, ContainerId id, uint8_t *buf, GError **err);

/* The caller found other bytes in container `id` than its recipe names:
 * fill buf (real mode) from the store, and drop the cached copy of `id` if
 * it differs from the store's (a stale copy: the store was put back from a
 * copy and its ids reused; counted in ssd_stale_dropped, warned once). If
 * the store's bytes are the cached ones, nothing is dropped: the mismatch
 * is the store's own. The ContainerSource's reread(). */
gboolean cache_reread(CacheCore *c, ContainerId id, uint8_t *buf, GError **err);

/* The cache as a read source: the first member of CacheCore, so the pointer
 * is the cache's own. Its read() is cache_access(). */
ContainerSource *cache_core_source(CacheCore *c);

/* The store grew since the cache opened (a job committed meanwhile): from
 * now on ids below n_containers are served, with reference_count (the
 * store's, n_containers entries; it replaces the one given at open, which
 * the caller may free once this returns, and must outlive the cache). New
 * containers' access counts start at 0; the capacity stays as opened. No
 * effect (reference_count not taken) when n_containers is not more than the
 * containers now. A USAGE error for an offline policy (its access sequence
 * is fixed). */
gboolean cache_core_grow(CacheCore *c, uint32_t n_containers, const uint32_t *reference_count, GError **err);
/* The containers the cache serves ids of (as opened, or grown). */
uint32_t cache_core_containers(CacheCore *c);

/* Bracket the accesses of one request (one file read) to measure its wall
 * time and modelled latency; _end returns the request's modelled seconds.
 * time_ns: the request's time on a timed trace's clock (nanoseconds, never
 * decreasing; 0 untimed), which a DWPD write budget is credited by. */
void cache_core_request_begin(CacheCore *c, uint64_t time_ns);
double cache_core_request_end(CacheCore *c);
/* A whole request of n accesses without bytes (buf NULL), as begin, n
 * cache_access() calls and end would do it, under one lock: a compiled
 * trace's replay in simulation. *model_s and *wall_s: the request's
 * modelled and wall seconds. Stops at the first failing access. */
gboolean cache_core_request_ids(CacheCore *c, const ContainerId *ids, uint32_t n, uint64_t time_ns, double *model_s,
                                double *wall_s, GError **err);

/* A snapshot of all statistics. */
void cache_core_report(CacheCore *c, CacheReport *r);
/* The snapshot as text on fp, or as a JSON object value into b. */
void cache_core_print_stats(CacheCore *c, FILE *fp);
void cache_core_json(CacheCore *c, JsonBuilder *b);

/* Save the metadata (real mode: fsync the slots, then publish cache.meta
 * marked clean), release the lock, free everything. FALSE if saving failed;
 * the cache is freed either way. */
gboolean cache_core_close(CacheCore *c, GError **err);
/* Free without saving, as if the process died (for crash tests). */
void cache_core_abandon(CacheCore *c);

/* ---- inspection (tests, tools) ---- */

typedef enum {
    CACHE_EVENT_HIT,
    CACHE_EVENT_REFUSE, /* a miss the policy did not admit; decision says why */
    CACHE_EVENT_EVICT,  /* id left slot (before the newcomer is written) */
    CACHE_EVENT_ADMIT,  /* id was written into slot */
} CacheEventKind;

typedef struct {
    CacheEventKind kind;
    ContainerId id;
    CacheSlot slot;
    uint32_t access_count; /* id's access count at the event (before a reset) */
    CacheDecision decision;
} CacheEvent;

/* Called under the cache's lock: must not call back into the cache. */
typedef void (*CacheObserver)(const CacheEvent *ev, void *user);
void cache_core_set_observer(CacheCore *c, CacheObserver fn, void *user);

uint32_t cache_core_capacity(const CacheCore *c);
uint32_t cache_core_cached(const CacheCore *c);
gboolean cache_core_contains(const CacheCore *c, ContainerId id);
uint32_t cache_core_access_count(const CacheCore *c, ContainerId id);
CacheMode cache_core_mode(const CacheCore *c);
const CacheCounters *cache_core_counters(const CacheCore *c);

#endif
