/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_config.h: every setting of the SSD container cache, with defaults
 * and one parser per key, so the store's config parser (destor.config and
 * `-p "key value"`) hands cache keys over without knowing them.
 *
 * Use:
 *     CacheConfig cc;
 *     cache_config_init(&cc);                      // defaults (below)
 *     for each "key value" line:
 *         switch (cache_config_set(&cc, key, value, &err)) {
 *         case CACHE_CONFIG_UNKNOWN: ... not a cache key: try other modules
 *         case CACHE_CONFIG_OK:      ... applied
 *         case CACHE_CONFIG_INVALID: ... err is a DESTOR_ERROR_CONFIG naming
 *                                        the key and the value
 *         }
 *     cache_config_validate(&cc, &err);            // checks across keys
 *     // --simulate or Destor's simulation-level: cc.simulate = TRUE
 *     ... once the store is open: cache_core_open_config() (cache_core.h),
 *         or cache_config_resolve_capacity() to size it by hand
 *     cache_config_clear(&cc);
 *
 * Keys (underscores are accepted for dashes; docs/CACHE.md has the details):
 *   ssd-cache-policy            none | a registered policy          (none)
 *   ssd-cache-granularity       container | chunk: what the SSD
 *                               caches (chunk_cache.h)              (container)
 *   ssd-cache-chunk-fetch       chunk | container: what a chunk
 *                               miss reads from the HDD store       (chunk)
 *   ssd-cache-directory         PATH                               (unset)
 *   ssd-cache-size              N | 512M | 4G | 20%                 (20%)
 *   ssd-cache-simulate          yes | no                            (no)
 *   ssd-cache-o-direct          yes | no                            (no)
 *   ssd-cache-compression       none | lz4 | zstd (cache_codec.h)   (none)
 *   ssd-cache-compression-level zstd's level 0..19; lz4's
 *                               acceleration 0..65537; 0: default   (0)
 *   ssd-cache-quadrants         yes | no: track the quadrant data   (yes)
 *   cache-counters              exact | compact | sketch: every
 *                               container's access count
 *                               (access_counts.h)                   (exact)
 *   POLICY-KEY                  each policy's own keys (policy.h;
 *                               `destor policies` lists them)
 *   quadrant-access-threshold   N                                   (5)
 *   quadrant-repeat-threshold   N                                   (5)
 *   model-hdd-seek-ms           ms                                  (10)
 *   model-hdd-rpm               rpm                                 (5400)
 *   model-hdd-mb-per-s          MB/s, MB = 10^6 B                   (100)
 *   model-ssd-read-latency-us   us                                  (80)
 *   model-ssd-read-mb-per-s     MB/s                                (500)
 *   model-ssd-write-latency-us  us                                  (85)
 *   model-ssd-write-mb-per-s    MB/s                                (200)
 *   model-lz4-decompress-mb-per-s  MB/s                            (4970)
 *   model-zstd-decompress-mb-per-s MB/s                            (1380)
 *   ssd-tbw                     TB (2^40 B, may be fractional) or a
 *                               size like 36500G                    (36500G)
 *   ssd-cache-segment-size      the chunk log's write unit, 64K..1G,
 *                               a multiple of 4K (chunk_log.h)      (4M)
 *   ssd-cache-segment-reclaim   evict | clean | reinsert
 *                               (chunk_log.h)                       (evict)
 *   ssd-cache-layout            log | buckets: the chunk cache's
 *                               layout on the SSD (chunk_layout.h)  (log)
 *                               buckets: chunk granularity, policy
 *                               austere only (and austere only with it)
 *   ssd-cache-write-budget      bytes per request (0: none)         (0)
 *   ssd-cache-write-budget-dwpd drive writes a day of the cache's
 *                               size, by a timed trace's clock (0:
 *                               none); not with the one above       (0)
 *   ssd-cache-admission         auto | a registered admission rule
 *                               (admission.h); auto: all, or compete
 *                               with a write budget                 (auto)
 */
#ifndef DESTOR_CACHE_CONFIG_H
#define DESTOR_CACHE_CONFIG_H

#include "cache/admission/admission.h"
#include "cache/policy/access_counts.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/common/cache_codec.h"
#include "cache/common/device_model.h"
#include "cache/policy/chunk_policy.h"
#include "cache/policy/policy.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    CACHE_SIZE_CONTAINERS, /* "400" */
    CACHE_SIZE_BYTES,      /* "512M", "4G" */
    CACHE_SIZE_PERCENT,    /* "20%" of the stored containers */
} CacheSizeKind;

typedef struct {
    CacheSizeKind kind;
    uint64_t value;   /* containers or bytes */
    double percent;   /* (0, 100] */
} CacheSizeSpec;

typedef enum { CACHE_GRANULARITY_CONTAINER = 0, CACHE_GRANULARITY_CHUNK = 1 } CacheGranularity;

/* ssd-cache-chunk-fetch: what a chunk cache's miss reads from the HDD
 * store (chunk_cache.h). */
typedef enum { CHUNK_FETCH_CHUNK = 0, CHUNK_FETCH_CONTAINER = 1 } ChunkFetch;

/* What either cache runs as: real (bytes on the SSD) or simulation (ids
 * only, the same decisions): ssd-cache-simulate, --simulate. */
typedef enum { CACHE_MODE_REAL, CACHE_MODE_SIMULATE } CacheMode;

typedef struct {
    char *policy;    /* a name of cache_policy_names() */
    const CachePolicyOps *policy_ops; /* `policy` as a container policy, resolved once
                                         when set (NULL: none, or a chunk-only policy) */
    const ChunkPolicyOps *chunk_policy_ops; /* `policy` as a chunk policy (NULL: none,
                                         or a container-only policy) */
    CacheGranularity granularity;
    ChunkFetch chunk_fetch;
    char *directory; /* NULL when unset */
    CacheSizeSpec size;
    gboolean simulate;
    gboolean o_direct;
    CacheCodecKind compression;  /* ssd-cache-compression */
    uint32_t compression_level;  /* ssd-cache-compression-level (0: the codec's default) */
    gboolean track_quadrants;
    AccessCountsMode counters;
    CachePolicySettings *policy_settings; /* the policies' own keys */
    uint32_t quadrant_access_threshold;
    uint32_t quadrant_repeat_threshold;
    DeviceModelParams device;
    uint64_t ssd_tbw_bytes;
    double write_budget; /* ssd-cache-write-budget: bytes per request; 0: none */
    double write_dwpd;   /* ssd-cache-write-budget-dwpd: drive writes per day; 0: none */
    const AdmissionOps *admission_ops; /* ssd-cache-admission; NULL: unset (admission_default) */
    uint32_t segment_size; /* ssd-cache-segment-size: the chunk log's segments */
    ChunkLogReclaim segment_reclaim; /* ssd-cache-segment-reclaim */
    ChunkLayoutKind layout;          /* ssd-cache-layout */
} CacheConfig;

typedef enum {
    CACHE_CONFIG_INVALID = -1, /* a cache key, bad value: *err set */
    CACHE_CONFIG_UNKNOWN = 0,  /* not a cache key: *err untouched */
    CACHE_CONFIG_OK = 1,       /* applied */
} CacheConfigResult;

void cache_config_init(CacheConfig *cfg);
void cache_config_clear(CacheConfig *cfg);
void cache_config_copy(CacheConfig *dst, const CacheConfig *src);

CacheConfigResult cache_config_set(CacheConfig *cfg, const char *key, const char *value, GError **err);
gboolean cache_config_is_key(const char *key);
/* Appends the name of every cache key, each policy's own keys too. */
void cache_config_keys(GPtrArray *out);

/* Checks across keys: a real-mode cache with a policy needs a directory;
 * the policy must serve the configured granularity; a key of one
 * granularity or layout only (ssd-cache-chunk-fetch, ssd-cache-segment-*,
 * ssd-cache-layout) set to another value than its default with another
 * granularity or layout is an error, not ignored; so is a write budget
 * without an admission rule that spends it, or such a rule without one,
 * or both kinds of budget at once. */
gboolean cache_config_validate(const CacheConfig *cfg, GError **err);
/* TRUE when ssd-cache-policy is not "none" (of either granularity; the
 * policy's own granularity is checked by cache_config_validate). */
gboolean cache_config_enabled(const CacheConfig *cfg);

/* ssd-cache-size in containers for a store of n_containers containers of
 * container_size bytes. A share rounds down but gives at least 1 container of
 * a non-empty store; a byte size must hold at least one container. */
gboolean cache_config_resolve_capacity(const CacheConfig *cfg, size_t container_size,
                                       uint32_t n_containers, uint32_t *capacity, GError **err);

/* The value parsers, exposed for reuse and tests; each sets a
 * DESTOR_ERROR_CONFIG naming key and value on failure. */
gboolean cache_parse_u32(const char *key, const char *value, uint32_t *out, GError **err);
gboolean cache_parse_bool(const char *key, const char *value, gboolean *out, GError **err);
gboolean cache_parse_double(const char *key, const char *value, double min, double max,
                            double *out, GError **err);
gboolean cache_parse_size_spec(const char *key, const char *value, CacheSizeSpec *out, GError **err);
gboolean cache_parse_tbw(const char *key, const char *value, uint64_t *out, GError **err);
gboolean cache_parse_segment_size(const char *key, const char *value, uint32_t *out, GError **err);

#endif
