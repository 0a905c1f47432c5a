/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_config.c: defaults, the table of cache keys and their parsers, and
 * the ssd-cache-size -> containers resolution. */
#include "cache/config/cache_config.h"
#include "cache/common/cache_codec.h"
#include "cache/layouts/log/chunk_log.h"
#include "util/error.h"
#include "util/size_parse.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

void cache_config_init(CacheConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = g_strdup("none");
    cfg->directory = NULL;
    cfg->size.kind = CACHE_SIZE_PERCENT;
    cfg->size.percent = 20.0; /* the paper's default: 20% of the deduplicated data */
    cfg->simulate = FALSE;
    cfg->o_direct = FALSE;
    cfg->track_quadrants = TRUE;
    cfg->counters = ACCESS_COUNTS_EXACT;
    cfg->policy_settings = cache_policy_settings_new();
    cfg->quadrant_access_threshold = 5;
    cfg->quadrant_repeat_threshold = 5;
    device_model_params_default(&cfg->device);
    cfg->ssd_tbw_bytes = (uint64_t)36500 << 30; /* Intel 520 60 GB: 36,500 GB (paper I.A) */
    cfg->segment_size = CHUNK_LOG_DEFAULT_SEGMENT;
    cfg->segment_reclaim = CHUNK_LOG_EVICT; /* Nitro's write-evict units */
    cfg->layout = CHUNK_LAYOUT_LOG;
}

void cache_config_clear(CacheConfig *cfg)
{
    g_free(cfg->policy);
    g_free(cfg->directory);
    cache_policy_settings_free(cfg->policy_settings);
    cfg->policy = NULL;
    cfg->policy_ops = NULL;
    cfg->chunk_policy_ops = NULL;
    cfg->directory = NULL;
    cfg->policy_settings = NULL;
}

void cache_config_copy(CacheConfig *dst, const CacheConfig *src)
{
    *dst = *src;
    dst->policy = g_strdup(src->policy);
    dst->policy_ops = src->policy_ops;
    dst->chunk_policy_ops = src->chunk_policy_ops;
    dst->directory = g_strdup(src->directory);
    dst->policy_settings = cache_policy_settings_copy(src->policy_settings);
}

static gboolean bad_value(GError **err, const char *key, const char *value, const char *expected)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s: invalid value \"%s\" (expected %s)",
                key, value ? value : "", expected);
    return FALSE;
}

static gboolean all_digits(const char *s)
{
    if (s == NULL || *s == '\0')
        return FALSE;
    for (; *s; s++)
        if (!g_ascii_isdigit(*s))
            return FALSE;
    return TRUE;
}

gboolean cache_parse_u32(const char *key, const char *value, uint32_t *out, GError **err)
{
    if (!all_digits(value) || strlen(value) > 10)
        return bad_value(err, key, value, "a whole number");
    guint64 v = g_ascii_strtoull(value, NULL, 10);
    if (v > UINT32_MAX)
        return bad_value(err, key, value, "a whole number below 2^32");
    *out = (uint32_t)v;
    return TRUE;
}

gboolean cache_parse_bool(const char *key, const char *value, gboolean *out, GError **err)
{
    static const char *const yes[] = { "yes", "true", "on", "1" };
    static const char *const no[] = { "no", "false", "off", "0" };
    for (size_t i = 0; value && i < G_N_ELEMENTS(yes); i++) {
        if (g_ascii_strcasecmp(value, yes[i]) == 0) {
            *out = TRUE;
            return TRUE;
        }
        if (g_ascii_strcasecmp(value, no[i]) == 0) {
            *out = FALSE;
            return TRUE;
        }
    }
    return bad_value(err, key, value, "yes or no");
}

gboolean cache_parse_double(const char *key, const char *value, double min, double max,
                            double *out, GError **err)
{
    char expected[96];
    g_snprintf(expected, sizeof expected, "a number from %g to %g", min, max);
    if (value == NULL || *value == '\0' || g_ascii_isspace(*value))
        return bad_value(err, key, value, expected);
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(value, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
        return bad_value(err, key, value, expected);
    *out = v;
    return TRUE;
}

gboolean cache_parse_size_spec(const char *key, const char *value, CacheSizeSpec *out, GError **err)
{
    static const char expected[] = "N containers, a size like 512M or 4G, or a share like 20%";
    size_t len = value ? strlen(value) : 0;
    if (len == 0)
        return bad_value(err, key, value, expected);
    if (value[len - 1] == '%') {
        char *num = g_strndup(value, len - 1);
        double pct = 0;
        GError *local = NULL;
        gboolean ok = cache_parse_double(key, num, 0.0, 100.0, &pct, &local);
        g_free(num);
        g_clear_error(&local);
        if (!ok || !(pct > 0))
            return bad_value(err, key, value, "a share above 0% and at most 100%");
        out->kind = CACHE_SIZE_PERCENT;
        out->percent = pct;
        out->value = 0;
        return TRUE;
    }
    if (all_digits(value)) {
        uint32_t n = 0;
        if (!cache_parse_u32(key, value, &n, NULL) || n == 0)
            return bad_value(err, key, value, "a number of containers from 1 to 2^32 - 1");
        out->kind = CACHE_SIZE_CONTAINERS;
        out->value = n;
        out->percent = 0;
        return TRUE;
    }
    uint64_t bytes = 0;
    if (!size_parse(value, &bytes) || bytes == 0)
        return bad_value(err, key, value, expected);
    out->kind = CACHE_SIZE_BYTES;
    out->value = bytes;
    out->percent = 0;
    return TRUE;
}

gboolean cache_parse_tbw(const char *key, const char *value, uint64_t *out, GError **err)
{
    static const char expected[] = "terabytes written (2^40 bytes each) or a size like 36500G";
    if (value == NULL || *value == '\0')
        return bad_value(err, key, value, expected);
    uint64_t bytes = 0;
    if (size_parse(value, &bytes) && !all_digits(value)) {
        if (bytes == 0)
            return bad_value(err, key, value, expected);
        *out = bytes;
        return TRUE;
    }
    double tb = 0;
    GError *local = NULL;
    if (!cache_parse_double(key, value, 1e-6, 1e6, &tb, &local)) {
        g_clear_error(&local);
        return bad_value(err, key, value, expected);
    }
    *out = (uint64_t)(tb * 1099511627776.0);
    return TRUE;
}

gboolean cache_parse_segment_size(const char *key, const char *value, uint32_t *out, GError **err)
{
    uint64_t bytes = 0;
    if (value == NULL || !size_parse(value, &bytes) || bytes % 4096 != 0 || bytes < CHUNK_LOG_MIN_SEGMENT ||
        bytes > CHUNK_LOG_MAX_SEGMENT)
        return bad_value(err, key, value, "a multiple of 4K from 64K to 1G, like 4M");
    *out = (uint32_t)bytes;
    return TRUE;
}

/* ---- the key table ---- */

typedef enum {
    K_POLICY, K_DIRECTORY, K_SIZE, K_BOOL, K_U32, K_DOUBLE, K_TBW, K_COUNTERS, K_GRANULARITY, K_CHUNK_FETCH,
    K_SEGMENT_SIZE, K_SEGMENT_RECLAIM, K_COMPRESSION, K_LAYOUT, K_ADMISSION,
} KeyKind;

typedef struct {
    const char *key;
    KeyKind kind;
    size_t offset;   /* of the field in CacheConfig (K_BOOL, K_U32, K_DOUBLE) */
    double min, max; /* K_DOUBLE */
} CacheKey;

#define AT(field) offsetof(CacheConfig, field)

static const CacheKey cache_keys[] = {
    { "ssd-cache-policy", K_POLICY, 0, 0, 0 },
    { "ssd-cache-granularity", K_GRANULARITY, 0, 0, 0 },
    { "ssd-cache-chunk-fetch", K_CHUNK_FETCH, 0, 0, 0 },
    { "ssd-cache-directory", K_DIRECTORY, 0, 0, 0 },
    { "ssd-cache-size", K_SIZE, 0, 0, 0 },
    { "ssd-cache-simulate", K_BOOL, AT(simulate), 0, 0 },
    { "ssd-cache-o-direct", K_BOOL, AT(o_direct), 0, 0 },
    { "ssd-cache-compression", K_COMPRESSION, 0, 0, 0 },
    { "ssd-cache-compression-level", K_U32, AT(compression_level), 0, 0 },
    { "ssd-cache-quadrants", K_BOOL, AT(track_quadrants), 0, 0 },
    { "cache-counters", K_COUNTERS, 0, 0, 0 },
    { "quadrant-access-threshold", K_U32, AT(quadrant_access_threshold), 0, 0 },
    { "quadrant-repeat-threshold", K_U32, AT(quadrant_repeat_threshold), 0, 0 },
    { "model-hdd-seek-ms", K_DOUBLE, AT(device.hdd_seek_ms), 0, 1e5 },
    { "model-hdd-rpm", K_DOUBLE, AT(device.hdd_rpm), 0, 1e6 },
    { "model-hdd-mb-per-s", K_DOUBLE, AT(device.hdd_mb_per_s), 1e-3, 1e7 },
    { "model-ssd-read-latency-us", K_DOUBLE, AT(device.ssd_read_latency_us), 0, 1e8 },
    { "model-ssd-read-mb-per-s", K_DOUBLE, AT(device.ssd_read_mb_per_s), 1e-3, 1e7 },
    { "model-ssd-write-latency-us", K_DOUBLE, AT(device.ssd_write_latency_us), 0, 1e8 },
    { "model-ssd-write-mb-per-s", K_DOUBLE, AT(device.ssd_write_mb_per_s), 1e-3, 1e7 },
    { "model-lz4-decompress-mb-per-s", K_DOUBLE, AT(device.lz4_decompress_mb_per_s), 1e-3, 1e7 },
    { "model-zstd-decompress-mb-per-s", K_DOUBLE, AT(device.zstd_decompress_mb_per_s), 1e-3, 1e7 },
    { "ssd-tbw", K_TBW, 0, 0, 0 },
    { "ssd-cache-write-budget", K_DOUBLE, AT(write_budget), 0, 1e18 },
    { "ssd-cache-write-budget-dwpd", K_DOUBLE, AT(write_dwpd), 0, 1e6 },
    { "ssd-cache-admission", K_ADMISSION, 0, 0, 0 },
    { "ssd-cache-segment-size", K_SEGMENT_SIZE, 0, 0, 0 },
    { "ssd-cache-segment-reclaim", K_SEGMENT_RECLAIM, 0, 0, 0 },
    { "ssd-cache-layout", K_LAYOUT, 0, 0, 0 },
};

static const CacheKey *find_key(const char *key)
{
    if (key == NULL)
        return NULL;
    char *norm = g_strdup(key);
    g_strdelimit(norm, "_", '-');
    const CacheKey *found = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(cache_keys) && !found; i++)
        if (strcmp(cache_keys[i].key, norm) == 0)
            found = &cache_keys[i];
    g_free(norm);
    return found;
}

gboolean cache_config_is_key(const char *key)
{
    return find_key(key) != NULL || cache_policy_find_key(key, NULL) != NULL;
}

void cache_config_keys(GPtrArray *out)
{
    for (size_t i = 0; i < G_N_ELEMENTS(cache_keys); i++)
        g_ptr_array_add(out, (gpointer)cache_keys[i].key);
    for (size_t p = 0; p < cache_policy_count(); p++) {
        const CachePolicyOps *ops = cache_policy_at(p);
        for (size_t k = 0; k < ops->n_keys; k++)
            g_ptr_array_add(out, (gpointer)ops->keys[k].name);
    }
}

static gboolean set_policy(CacheConfig *cfg, const char *key, const char *value, GError **err)
{
    const CachePolicyOps *ops = NULL;
    const ChunkPolicyOps *chunk_ops = NULL;
    char *name = g_ascii_strdown(value ? value : "", -1);
    gboolean container = cache_policy_lookup(name, &ops);
    gboolean chunk = chunk_policy_lookup(name, &chunk_ops);
    if (!container && !chunk) {
        char *names = g_strjoinv(" | ", (char **)cache_policy_names());
        bad_value(err, key, value, names);
        g_free(names);
        g_free(name);
        return FALSE;
    }
    g_free(cfg->policy);
    cfg->policy = name;
    cfg->policy_ops = ops;
    cfg->chunk_policy_ops = chunk_ops;
    return TRUE;
}

/* One of `words` (NULL-terminated): its index, or -1. */
static int word_index(const char *value, const char *const *words)
{
    for (int i = 0; value && words[i]; i++)
        if (g_ascii_strcasecmp(value, words[i]) == 0)
            return i;
    return -1;
}

CacheConfigResult cache_config_set(CacheConfig *cfg, const char *key, const char *value, GError **err)
{
    const CacheKey *k = find_key(key);
    if (k == NULL) {
        if (cache_policy_find_key(key, NULL) == NULL)
            return CACHE_CONFIG_UNKNOWN;
        return cache_policy_settings_set(cfg->policy_settings, key, value, err) ? CACHE_CONFIG_OK
                                                                               : CACHE_CONFIG_INVALID;
    }
    char *field = (char *)cfg + k->offset;
    gboolean ok = FALSE;
    switch (k->kind) {
    case K_POLICY:
        ok = set_policy(cfg, k->key, value, err);
        break;
    case K_DIRECTORY:
        ok = value != NULL && *value != '\0';
        if (ok) {
            g_free(cfg->directory);
            cfg->directory = g_strdup(value);
        } else {
            bad_value(err, k->key, value, "a directory path");
        }
        break;
    case K_SIZE:
        ok = cache_parse_size_spec(k->key, value, &cfg->size, err);
        break;
    case K_BOOL:
        ok = cache_parse_bool(k->key, value, (gboolean *)(void *)field, err);
        break;
    case K_U32:
        ok = cache_parse_u32(k->key, value, (uint32_t *)(void *)field, err);
        break;
    case K_DOUBLE:
        ok = cache_parse_double(k->key, value, k->min, k->max, (double *)(void *)field, err);
        break;
    case K_TBW:
        ok = cache_parse_tbw(k->key, value, &cfg->ssd_tbw_bytes, err);
        break;
    case K_COUNTERS:
        ok = value != NULL && access_counts_mode_parse(value, &cfg->counters);
        if (!ok)
            bad_value(err, k->key, value, "exact, compact or sketch");
        break;
    case K_GRANULARITY: {
        static const char *const words[] = { "container", "chunk", NULL };
        int w = word_index(value, words);
        ok = w >= 0 || bad_value(err, k->key, value, "container or chunk");
        if (ok)
            cfg->granularity = (CacheGranularity)w;
        break;
    }
    case K_CHUNK_FETCH: {
        static const char *const words[] = { "chunk", "container", NULL };
        int w = word_index(value, words);
        ok = w >= 0 || bad_value(err, k->key, value, "chunk or container");
        if (ok)
            cfg->chunk_fetch = (ChunkFetch)w;
        break;
    }
    case K_SEGMENT_SIZE:
        ok = cache_parse_segment_size(k->key, value, &cfg->segment_size, err);
        break;
    case K_SEGMENT_RECLAIM:
        ok = chunk_log_reclaim_parse(value, &cfg->segment_reclaim);
        if (!ok)
            bad_value(err, k->key, value, "evict, clean or reinsert");
        break;
    case K_LAYOUT:
        ok = chunk_layout_parse(value, &cfg->layout);
        if (!ok)
            bad_value(err, k->key, value, "log or buckets");
        break;
    case K_ADMISSION: {
        char *name = g_ascii_strdown(value ? value : "", -1); /* as policy names */
        ok = strcmp(name, "auto") == 0 || admission_lookup(name, &cfg->admission_ops);
        if (ok && strcmp(name, "auto") == 0)
            cfg->admission_ops = NULL; /* admission_default */
        g_free(name);
        if (!ok) {
            GString *names = g_string_new("auto");
            for (size_t i = 0; i < admission_count(); i++)
                g_string_append_printf(names, " | %s", admission_at(i)->name);
            bad_value(err, k->key, value, names->str);
            g_string_free(names, TRUE);
        }
        break;
    }
    case K_COMPRESSION: {
        char *name = g_ascii_strdown(value ? value : "", -1); /* as policy names */
        ok = cache_codec_parse(name, &cfg->compression);
        g_free(name);
        if (!ok)
            bad_value(err, k->key, value, "none, lz4 or zstd");
        break;
    }
    }
    return ok ? CACHE_CONFIG_OK : CACHE_CONFIG_INVALID;
}

gboolean cache_config_enabled(const CacheConfig *cfg)
{
    return cfg->policy_ops != NULL || cfg->chunk_policy_ops != NULL;
}

gboolean cache_config_validate(const CacheConfig *cfg, GError **err)
{
    /* the name was resolved when set: "none" alone has no ops */
    g_assert(cache_config_enabled(cfg) == (strcmp(cfg->policy, "none") != 0));
    gboolean chunk = cfg->granularity == CACHE_GRANULARITY_CHUNK;
    if (cache_config_enabled(cfg) && (chunk ? cfg->chunk_policy_ops == NULL : cfg->policy_ops == NULL)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-policy %s serves %s granularity only, and ssd-cache-granularity is %s "
                    "(`destor policies` lists each policy's granularity)",
                    cfg->policy, chunk ? "container" : "chunk", chunk ? "chunk" : "container");
        return FALSE;
    }
    /* a policy's own key set away from its default for another policy, or
     * with no cache: an error (the defaults, which destor.config spells
     * out for every policy, pass) */
    const CachePolicyKey *own = NULL;
    size_t n_own = 0;
    if (chunk && cfg->chunk_policy_ops != NULL) {
        own = cfg->chunk_policy_ops->keys;
        n_own = cfg->chunk_policy_ops->n_keys;
    } else if (!chunk && cfg->policy_ops != NULL) {
        own = cfg->policy_ops->keys;
        n_own = cfg->policy_ops->n_keys;
    }
    const char *stray = cache_policy_settings_stray(cfg->policy_settings, own, n_own);
    if (stray != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "%s does not apply to ssd-cache-policy %s (`destor policies` lists each policy's keys)", stray,
                    cfg->policy);
        return FALSE;
    }
    if (cfg->write_budget > 0 && cfg->write_dwpd > 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-write-budget (bytes per request) and ssd-cache-write-budget-dwpd (drive writes per "
                    "day): set one of them");
        return FALSE;
    }
    gboolean budget = cfg->write_budget > 0 || cfg->write_dwpd > 0;
    gboolean rule = cfg->admission_ops != NULL && cfg->admission_ops != admission_default(FALSE);
    if (!cache_config_enabled(cfg) && (budget || rule)) {
        /* they decide what an SSD cache writes: with none, nothing would
         * hold to the budget the user set (all, what auto is without a
         * budget, passes, as with an offline policy) */
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s applies to an SSD cache, and ssd-cache-policy is none",
                    cfg->write_budget > 0 ? "ssd-cache-write-budget"
                    : cfg->write_dwpd > 0 ? "ssd-cache-write-budget-dwpd"
                                          : "ssd-cache-admission");
        return FALSE;
    }
    const AdmissionOps *admission = cfg->admission_ops ? cfg->admission_ops : admission_default(budget);
    if (admission->spends_budget != budget) {
        if (admission->spends_budget)
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                        "ssd-cache-admission %s needs ssd-cache-write-budget or ssd-cache-write-budget-dwpd",
                        admission->name);
        else
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                        "%s applies to an admission rule that spends it (compete, bucket, learned), "
                        "not to ssd-cache-admission %s",
                        cfg->write_dwpd > 0 ? "ssd-cache-write-budget-dwpd" : "ssd-cache-write-budget",
                        admission->name);
        return FALSE;
    }
    if (cfg->layout != CHUNK_LAYOUT_LOG && !chunk) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-layout %s applies to ssd-cache-granularity chunk only", chunk_layout_name(cfg->layout));
        return FALSE;
    }
    /* the chunk cache's own keys, set away from their defaults where they
     * do nothing: errors, as ssd-cache-write-budget and the layout above
     * (the defaults, which destor.config spells out, pass) */
    const char *idle = NULL;
    gboolean log = chunk && cfg->layout == CHUNK_LAYOUT_LOG;
    if (!chunk && cfg->chunk_fetch != CHUNK_FETCH_CHUNK)
        idle = "ssd-cache-chunk-fetch";
    else if (!log && cfg->segment_size != CHUNK_LOG_DEFAULT_SEGMENT)
        idle = "ssd-cache-segment-size";
    else if (!log && cfg->segment_reclaim != CHUNK_LOG_EVICT)
        idle = "ssd-cache-segment-reclaim";
    if (idle != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s applies to %s", idle,
                    chunk ? "ssd-cache-layout log only (the buckets layout has no segments)"
                          : "ssd-cache-granularity chunk only");
        return FALSE;
    }
    gboolean austere = strcmp(cfg->policy, CHUNK_POLICY_AUSTERE) == 0;
    if (chunk && cache_config_enabled(cfg) && austere != chunk_layout_ops(cfg->layout)->evicts) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    austere ? "ssd-cache-policy austere needs ssd-cache-layout buckets (its replacement is the "
                              "layout's)"
                            : "ssd-cache-layout %s needs ssd-cache-policy austere (the layout evicts in "
                              "its buckets itself)",
                    chunk_layout_name(cfg->layout));
        return FALSE;
    }
    if (cache_config_enabled(cfg) && !cfg->simulate && cfg->directory == NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-policy %s needs ssd-cache-directory (or simulation mode)", cfg->policy);
        return FALSE;
    }
    const char *why = NULL;
    if (!cache_codec_level_ok(cfg->compression, (int)MIN(cfg->compression_level, (uint32_t)INT32_MAX), &why)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "ssd-cache-compression-level: invalid value \"%u\" (%s)",
                    cfg->compression_level, why);
        return FALSE;
    }
    return TRUE;
}

gboolean cache_config_resolve_capacity(const CacheConfig *cfg, size_t container_size,
                                       uint32_t n_containers, uint32_t *capacity, GError **err)
{
    switch (cfg->size.kind) {
    case CACHE_SIZE_CONTAINERS:
        *capacity = cfg->size.value > UINT32_MAX ? UINT32_MAX : (uint32_t)cfg->size.value;
        return TRUE;
    case CACHE_SIZE_BYTES: {
        uint64_t n = container_size ? cfg->size.value / container_size : 0;
        if (n == 0) {
            char a[32], b[32];
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                        "ssd-cache-size: %s holds no container of %s",
                        size_format(cfg->size.value, a, sizeof a), size_format(container_size, b, sizeof b));
            return FALSE;
        }
        *capacity = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
        return TRUE;
    }
    case CACHE_SIZE_PERCENT: {
        /* truncation is floor for a non-negative share */
        uint32_t n = (uint32_t)((double)n_containers * cfg->size.percent / 100.0);
        if (n < 1 && n_containers > 0)
            n = 1;
        *capacity = n;
        return TRUE;
    }
    }
    return FALSE;
}
