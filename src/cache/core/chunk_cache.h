/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache.h: the SSD cache at chunk granularity (ssd-cache-granularity
 * chunk; docs/CACHE.md "Chunk granularity"). It caches unique chunks keyed
 * by fingerprint: a chunk shared by many files and jobs is cached once. A
 * request for a file range is the chunks that cover it (recipe offsets),
 * each one access, a hit or a miss.
 *
 * The core owns the data cache (fingerprint -> slot: the chunk's length,
 * container and offset), the capacity in bytes, every counter and the
 * device model; a chunk policy (chunk_policy.h) decides hits of the
 * dedup-aware policies, admission and eviction.
 *
 * The miss path (ssd-cache-chunk-fetch): `chunk` reads only the chunk's
 * range from the HDD store (one HDD read: a seek and a small transfer);
 * `container` reads its whole container, once per request however many of
 * its chunks the request misses. The device model charges each HDD read a
 * seek, half a rotation and the transfer; the report counts HDD reads and
 * bytes beside hits and SSD writes.
 *
 * Simulation mode moves no bytes; the decisions and counts are the same as
 * real mode's on the same access sequence. Calls are serialised by an
 * internal mutex.
 *
 * Memory per cached chunk: the fingerprint slot (32 bytes), length,
 * container and offset (12), the index bucket share (4 bytes a bucket, at
 * most half used) and the policy's share; per stored chunk the core keeps
 * nothing (the dedup-aware policies' metadata caches are bounded by their
 * own capacity, counted in the policy's share). */
#ifndef DESTOR_CHUNK_CACHE_H
#define DESTOR_CHUNK_CACHE_H

#include "cache/core/cache_core.h"
#include "cache/policy/chunk_policy.h"
#include "recipe/file_record.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { CHUNK_FETCH_CHUNK = 0, CHUNK_FETCH_CONTAINER = 1 } ChunkFetch;

typedef struct {
    const ChunkPolicyOps *policy;               /* required */
    const CachePolicySettings *policy_settings; /* NULL: defaults */
    uint64_t capacity_bytes;
    uint32_t avg_chunk_size;                    /* the store's chunk-avg-size */
    size_t container_size;
    ChunkFetch fetch;
    CacheMode mode;
    DeviceModelParams device;
    uint64_t ssd_tbw_bytes;
} ChunkCacheOptions;

typedef struct ChunkCache ChunkCache;

/* Options from the configuration: ssd-cache-size as bytes (a share or a
 * number of containers is that many containers' bytes, the same SSD the
 * container cache would get), the chunk policy, the miss path. */
gboolean chunk_cache_options_from_config(ChunkCacheOptions *o, const CacheConfig *cfg, size_t container_size,
                                         uint32_t n_containers, uint32_t avg_chunk_size, GError **err);

/* Open a chunk cache. Real mode is refused (a USAGE error) until the chunk
 * log drives it. */
ChunkCache *chunk_cache_open(const ChunkCacheOptions *o, GError **err);
void chunk_cache_close(ChunkCache *c);

/* Where an access comes from and what of the chunk it reads. */
typedef struct {
    uint64_t address;      /* chunk_address() of (job, file, index) */
    uint32_t touch_offset; /* bytes of the chunk read: [offset, offset + length) */
    uint32_t touch_length;
} ChunkCachePosition;

/* One chunk access, counted and modelled (no bytes: simulation). */
gboolean chunk_cache_touch(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, GError **err);

/* Bracket one request's accesses (its modelled latency; request hit ratio). */
void chunk_cache_request_begin(ChunkCache *c);
double chunk_cache_request_end(ChunkCache *c);

/* ---- statistics (chunk_cache_report.c) ---- */
typedef struct {
    uint64_t requests, requests_hit;   /* requests of at least one chunk, every
                                          access a hit: served wholly from the SSD */
    uint64_t accesses, hits, misses;   /* chunk accesses */
    uint64_t misses_cached;            /* of the misses: the chunk was cached but the
                                          policy's metadata did not know the address */
    uint64_t admissions, refused, evictions;
    uint64_t bytes_requested, bytes_hit; /* bytes of the chunks' touched parts */
    uint64_t admitted_bytes;           /* chunk bytes admitted */
    uint64_t ssd_bytes_written;        /* bytes that reached the SSD */
    uint64_t ssd_bytes_read;
    uint64_t hdd_reads, hdd_bytes_read;
    double model_access_s, model_request_s, model_request_max_s;
    double wall_request_s;
} ChunkCacheCounters;

typedef struct {
    const char *policy, *mode, *fetch;
    const CachePolicyCounter *policy_counter_names;
    uint64_t policy_counters[CACHE_REPORT_MAX_POLICY_COUNTERS];
    size_t n_policy_counters;
    uint64_t capacity_bytes, cached_bytes;
    uint32_t cached_chunks;
    ChunkCacheCounters c;
    double hit_ratio, byte_hit_ratio, request_hit_ratio;
    double write_amplification;        /* ssd_bytes_written / admitted_bytes */
    double model_elapsed_s;
    uint64_t ssd_tbw_bytes;
    double lifetime_days_model;
    size_t memory_bytes, policy_memory_bytes;
    double bytes_per_cached_chunk, bytes_per_stored_chunk;
} ChunkCacheReport;

void chunk_cache_report(ChunkCache *c, ChunkCacheReport *r);
void chunk_cache_print_stats(ChunkCache *c, FILE *fp);
void chunk_cache_json(ChunkCache *c, JsonBuilder *b);

/* ---- inspection (tests, tools) ---- */
typedef enum {
    CHUNK_EVENT_HIT,
    CHUNK_EVENT_MISS_CACHED, /* a miss; the chunk was cached already: no write */
    CHUNK_EVENT_REFUSE,
    CHUNK_EVENT_EVICT,       /* `chunk` left (before the newcomer is written) */
    CHUNK_EVENT_ADMIT,
} ChunkEventKind;

typedef struct {
    ChunkEventKind kind;
    const Fingerprint *fp;
    uint32_t length;
} ChunkEvent;

typedef void (*ChunkObserver)(const ChunkEvent *ev, void *user);
void chunk_cache_set_observer(ChunkCache *c, ChunkObserver fn, void *user);
uint64_t chunk_cache_used_bytes(const ChunkCache *c);
/* HDD reads the misses made so far. */
uint64_t chunk_cache_hdd_reads(ChunkCache *c);
gboolean chunk_cache_contains(const ChunkCache *c, const Fingerprint *fp);

#endif
