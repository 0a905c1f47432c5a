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
 * Offers (fetch container): a miss that reads its container whole then
 * offers the container's other chunks to the policy, after the requested
 * chunk, in the container's offset order: every chunk the container's own
 * metadata lists (the simplest honest rule: the container is in hand; no
 * recipe is consulted), except one the data cache holds (no change, not
 * even recency) and the requested one. An offer is an admission the policy
 * may refuse (its admit), at an address of its own (no recipe position:
 * the dedup-aware policies' metadata does not learn it), and it is no
 * access: no hit, miss or sketch count. Admitted offers are SSD writes
 * like any admission. The chunk lists come from the containers' metadata
 * (simulation reads each container once from the store and keeps its list;
 * real mode takes it from the container the miss read, and fingerprints
 * each offered chunk before the log gets it).
 *
 * ssd-cache-layout buckets (AustereCache's, chunk_buckets.h) goes with
 * the policy `austere`, which leaves replacement to the layout: a chunk is
 * evicted when the layout needs its sub-slots for a newcomer of its
 * bucket (told to the core through the layout's `dropped` callback).
 * Simulation runs the same bucket index and sketch without the data
 * (chunk_buckets_model.h, the buckets' model_* ops), so it evicts what
 * real mode evicts.
 *
 * Real mode keeps the chunks' bytes in the layout (chunk_layout.h: the
 * chunk log, chunk_log.h, by default) in the
 * cache directory; every chunk served from it was checked against its
 * fingerprint by the log, and one the log reports damaged is dropped,
 * counted and read from the store instead. The log is written in whole
 * segments; with ssd-cache-segment-reclaim clean it is given twice the
 * cache's bytes plus two segments, so that a segment at most half live
 * always exists and the cleaner never drops a chunk the policy keeps.
 * With evict (Nitro's whole-segment eviction) the log has the cache's
 * bytes and drops the live chunks of the segments it reclaims; the core
 * tells the policy (counted in log_dropped). With reinsert the log has
 * the cache's bytes too, and the core asks the policy (its keep op) which
 * live chunks of the reclaimed segment the log rewrites; the others are
 * dropped as with evict.
 *
 * Simulation runs the layout's model through the same seam (the ops
 * model_*: for the log, its placement and reclamation, chunk_log_space.h,
 * without bytes), opened with the same options (the layout's geometry),
 * so under either reclaim rule it drops the chunks real mode's log drops
 * and counts the SSD bytes the log writes (whole segments, the cleaner's
 * rewrites, chunklog.meta): real mode and simulation make the same
 * decisions on the same sequence, from an empty cache, as long as the SSD
 * damages nothing. The model is given each chunk's stored length (its raw
 * length: the log stores chunks as they are). Calls are serialised by an
 * internal mutex.
 *
 * Memory per cached chunk: the fingerprint slot (32 bytes), length,
 * container and offset (12), the index bucket share (4 bytes a bucket, at
 * most half used) and the policy's share; per stored chunk the core keeps
 * nothing (the dedup-aware policies' metadata caches are bounded by their
 * own capacity, counted in the policy's share). */
#ifndef DESTOR_CHUNK_CACHE_H
#define DESTOR_CHUNK_CACHE_H

#include "cache/common/cache_stats.h"
#include "cache/common/device_model.h"
#include "cache/config/cache_config.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/policy/chunk_policy.h"
#include "recipe/file_record.h"
#include "storage/container_source.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const ChunkPolicyOps *policy;               /* required */
    const CachePolicySettings *policy_settings; /* NULL: defaults */
    uint64_t capacity_bytes;
    uint32_t avg_chunk_size;                    /* the store's chunk-avg-size */
    uint32_t n_containers;                      /* the store's containers (the report's admission memory
                                                 * per stored container; 0: unknown, reported as 0) */
    size_t container_size;
    ChunkFetch fetch;
    CacheMode mode;
    DeviceModelParams device;
    uint64_t ssd_tbw_bytes;
    /* real mode (fp_alg and backing also in simulation: container fetch's
     * offers, and compression's one read of each admitted chunk) */
    const char *directory;
    uint8_t store_id[CHUNK_LAYOUT_STORE_ID_LEN];
    FingerprintAlgorithm fp_alg;
    ContainerSource *backing;   /* the store's containers */
    uint32_t segment_size;      /* both modes: a chunk no segment holds is refused */
    ChunkLogReclaim reclaim;
    gboolean o_direct;
    /* both modes: the layout on the SSD (ssd-cache-layout); buckets only
     * with the policy `austere` (its replacement is the layout's) */
    ChunkLayoutKind layout;
    CacheCodecKind compression; /* either layout; simulation reads each admitted chunk from backing once
                                 * to compress it (chunk_cache_stored.c) */
    int compression_level;
    double write_budget;            /* ssd-cache-write-budget, bytes per request (0: none) */
    double write_dwpd;              /* ssd-cache-write-budget-dwpd (0: none); at most one set */
    const AdmissionOps *admission;  /* ssd-cache-admission; NULL: admission_default(a budget is set) */
} ChunkCacheOptions;

typedef struct ChunkCache ChunkCache;

/* Options from the configuration: ssd-cache-size as bytes (a share or a
 * number of containers is that many containers' bytes, the same SSD the
 * container cache would get), the chunk policy, the miss path. */
gboolean chunk_cache_options_from_config(ChunkCacheOptions *o, const CacheConfig *cfg, size_t container_size,
                                         uint32_t n_containers, uint32_t avg_chunk_size, GError **err);

/* Open a chunk cache. Real mode opens (or rebuilds) the chunk log in the
 * directory and hands the chunks it holds to the policy, in the log's
 * order, as long as they fit (a warm start; the rest are dropped). */
ChunkCache *chunk_cache_open(const ChunkCacheOptions *o, GError **err);
/* Real mode: write the log's open segment and save its index (FALSE with
 * err when that failed; the next open rebuilds it). Frees c either way. */
gboolean chunk_cache_close(ChunkCache *c, GError **err);

/* Where an access comes from and what of the chunk it reads. */
typedef struct {
    uint64_t address;      /* chunk_address() of (job, file, index) */
    uint32_t touch_offset; /* bytes of the chunk read: [offset, offset + length) */
    uint32_t touch_length;
} ChunkCachePosition;

/* One chunk access, counted and modelled (no bytes: simulation). */
gboolean chunk_cache_touch(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, GError **err);

/* Real mode: the same access, with the chunk's ref->length bytes, checked
 * against its fingerprint, in buf: from the SSD on a hit, else from the
 * store by the miss path. An error is the store's (INTEGRITY when its
 * bytes are not the chunk's); SSD trouble is a miss, never an error. */
gboolean chunk_cache_read(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, uint8_t *buf,
                          GError **err);
/* A chunk buffer of the caller's (g_malloc'd, size bytes; NULL and 0 at
 * first) that the cache may exchange for one of its own. */
typedef struct {
    uint8_t *data;
    uint32_t size;
} ChunkCacheBuf;
/* chunk_cache_read into b->data (grown to ref->length first when
 * smaller): a hit read ahead is not copied, its buffer is handed over and
 * the caller's taken (b->size then ref->length). The same bytes, checks
 * and decisions. Free b->data with g_free. */
gboolean chunk_cache_read_buf(ChunkCache *c, const ChunkRef *ref, const ChunkCachePosition *pos, ChunkCacheBuf *b,
                              GError **err);

/* Real mode: the next reads will be of refs[0..n) in this order (a part
 * of a request's chunks, or of the next requests' of a trace): the cached
 * ones not read ahead already are read from the SSD together, started
 * now (the layout's get_many: the log keeps several reads in flight on
 * its reader threads, as an SSD needs to reach its bandwidth, while the
 * caller goes on; a read of one of them waits for its batch, and a third
 * batch for the oldest: CHUNK_CACHE_AHEAD_BATCHES), each checked against its
 * fingerprint, and kept until a read uses them (once), the chunk is put
 * again, or newer read-aheads push them out (a bound of a few MiB). Every
 * decision is still made by chunk_cache_read, one access at a time in
 * order, exactly as without it; a read then takes its chunk's bytes from
 * what was read ahead. A chunk read ahead and found damaged is dropped
 * by the layout then; its read counts it and fetches it from the store.
 * A chunk read ahead whose access turns out a miss (the policy's metadata
 * did not know the address, or an earlier access of the request evicted
 * it) cost an SSD read that serves nothing. Nothing in simulation, nor
 * with a layout whose gets are replacement decisions (buckets: the
 * sketch counts each hit, so its gets stay in access order). */
void chunk_cache_read_ahead(ChunkCache *c, const ChunkRef *refs, size_t n);
/* Does chunk_cache_read_ahead read anything (real mode, a layout whose
 * gets decide nothing)? */
gboolean chunk_cache_reads_ahead(const ChunkCache *c);

/* Offer one chunk the caller read (simulation): admitted if the policy
 * wants it and it is not cached, as fetch container offers a container's
 * other chunks. For drivers that have no store (tests/policy_ref). */
gboolean chunk_cache_offer(ChunkCache *c, const ChunkRef *ref, GError **err);

/* Bracket one request's accesses (its modelled latency; request hit ratio);
 * time_ns as cache_core_request_begin's. */
void chunk_cache_request_begin(ChunkCache *c, uint64_t time_ns);
double chunk_cache_request_end(ChunkCache *c);

/* A reader of its own, for a thread reading through the cache while
 * others do (the mount): its request bracket, the containers its request
 * read whole and its container buffer are its own, so readers need not
 * take turns for whole requests. Each access is still decided under the
 * cache's lock, one at a time, as chunk_cache_read decides it (which is
 * chunk_cache_reader_read with the cache's own reader); a miss of a chunk
 * the cache does not hold reads the store without the lock, and a chunk
 * being read ahead (chunk_cache_read_ahead) is waited for without it. A request's
 * modelled time is the model's time its own accesses took. */
typedef struct ChunkCacheReader ChunkCacheReader;
ChunkCacheReader *chunk_cache_reader_new(ChunkCache *c);
void chunk_cache_reader_free(ChunkCacheReader *r);
void chunk_cache_reader_request_begin(ChunkCacheReader *r, uint64_t time_ns);
double chunk_cache_reader_request_end(ChunkCacheReader *r);
gboolean chunk_cache_reader_read(ChunkCacheReader *r, const ChunkRef *ref, const ChunkCachePosition *pos,
                                 uint8_t *buf, GError **err);
gboolean chunk_cache_reader_read_buf(ChunkCacheReader *r, const ChunkRef *ref, const ChunkCachePosition *pos,
                                     ChunkCacheBuf *b, GError **err);

/* ---- statistics (chunk_cache_report.c) ---- */
typedef struct {
    uint64_t requests, requests_hit;   /* requests of at least one chunk, every
                                          access a hit: served wholly from the SSD */
    uint64_t accesses, hits, misses;   /* chunk accesses */
    uint64_t misses_cached;            /* of the misses: the chunk was cached but the
                                          policy's metadata did not know the address */
    uint64_t admissions, refused, evictions;
    uint64_t refused_admission;        /* of the refused and offers refused: by the
                                          admission rule (ssd-cache-admission) */
    uint64_t bytes_requested, bytes_hit; /* bytes of the chunks' touched parts */
    uint64_t admitted_bytes;           /* chunk bytes admitted */
    uint64_t ssd_bytes_written;        /* bytes that reached the SSD */
    uint64_t ssd_bytes_read;
    uint64_t hdd_reads, hdd_bytes_read;
    uint64_t damaged;                  /* chunks the log found damaged: dropped, refetched */
    uint64_t log_dropped;              /* live chunks the log's reclamation dropped */
    uint64_t kept_hit;                 /* reinsert: the chunks the policy kept (the log's
                                          chunks_reinserted) that were hit before the log
                                          reclaimed them again or they left */
    uint64_t ssd_write_errors;         /* puts the SSD failed: chunk not cached */
    uint64_t put_mismatched;           /* puts the layout refused, the bytes not their fingerprint's
                                          (the store's copy is damaged): chunk not cached */
    uint64_t offered;                  /* fetch container: other chunks of containers read whole */
    uint64_t offers_cached;            /*   of them cached already (nothing done) */
    uint64_t offers_admitted, offers_refused; /* the policy's answers to the rest */
    uint64_t offers_mismatched;        /*   bytes not their fingerprint's: never cached */
    double model_access_s, model_request_s, model_request_max_s;
    double wall_request_s;
} ChunkCacheCounters;

typedef struct {
    const char *policy, *mode, *fetch;
    CacheReportPolicy policy_counters; /* the policy's own counters */
    uint64_t capacity_bytes, cached_bytes;
    uint32_t cached_chunks;
    ChunkCacheCounters c;
    double hit_ratio, byte_hit_ratio, request_hit_ratio;
    double write_amplification;        /* ssd_bytes_written / admitted_bytes */
    double model_elapsed_s;
    uint64_t ssd_tbw_bytes;
    double lifetime_days_model;
    size_t memory_bytes, policy_memory_bytes;
    size_t admission_memory_bytes; /* the admission rule's, in memory_bytes too */
    double admission_bytes_per_container; /* admission_memory_bytes / the store's containers (issue 38; 0: unknown) */
    /* the write budget as the container cache's report gives it: ssd-cache-write-budget (bytes per
     * request) or -dwpd, its bytes over the run (+ one cache fill not counted), and the bytes it paid
     * (../shared/POLICIES.md: chunks admitted as stored, the log's rewrites; not segment padding) */
    double write_budget, write_dwpd, write_budget_bytes;
    uint64_t write_budget_charged_bytes;
    const char *layout;                /* its ssd-cache-layout ("log", "buckets") */
    /* the layout's (or in simulation its model's) counters and what its rows show beside them: real,
     * the log's capacity and reclaim rule, ssd-cache-compression (named as in the container cache's
     * report) and its ratio (chunk bytes put / the bytes they took on the SSD, sub-slots),
     * capacity_logical_bytes (capacity_bytes x cached_bytes / cached_stored_bytes: the chunk bytes
     * the SSD holds at the current ratio) */
    ChunkLayoutReport layout_report;
    const char *layout_object;         /* the layout's JSON object (its ops' report_name) */
    const ReportTable *layout_rows;    /* its rows over layout_report (real or its model's) */
    uint64_t layout_index_bytes;       /* the layout's in-memory index (buckets: also in simulation) */
    double bytes_per_cached_chunk, bytes_per_stored_chunk;
    int compression_level;
    uint64_t cached_stored_bytes;      /* the cached chunks' bytes on the SSD (buckets: whole sub-slots) */
    /* simulation with compression: the stored lengths remembered (one per chunk ever admitted), their
     * memory, and chunks that could not be read to compress (counted as stored as they are) */
    uint64_t stored_lengths, stored_unread;
    size_t stored_length_bytes;
    double bytes_per_stored_length;
    double model_request_mean_ms, wall_request_mean_ms; /* per request (0 for none) */
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
    CHUNK_EVENT_LOG_DROP,    /* `chunk` dropped by the log's reclamation (not the policy's victim) */
    CHUNK_EVENT_KEEP,        /* `chunk` kept by the policy as the log reclaims its segment (reinsert) */
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
