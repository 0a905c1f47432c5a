/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config_keys.c: destor.config's own keys as a table (name, type, field,
 * checker), as cache_config.c keeps the cache's; the checkers of the keys
 * with a form of their own (Destor's multi-value lines) follow the table. */
#include "config/config_keys.h"
#include "storage/container.h"
#include "util/error.h"
#include "util/size_parse.h"

#include <stddef.h>
#include <string.h>

static gboolean bad_value(GError **err, const char *key, const char *value, const char *why)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "invalid value '%s' for %s: %s", value, key, why);
    return FALSE;
}

gboolean config_value_count(GError **err, const char *key, char **vals, guint nvals, guint want, const char *form)
{
    if (nvals == want)
        return TRUE;
    if (nvals == 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s: a value is required (%s)", key, form);
    } else if (nvals < want) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s takes %s; got only '%s'", key, form, vals[0]);
    } else {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "%s takes %s; extra '%s' after '%s' (quote a value that holds spaces)", key, form,
                    vals[want], vals[want - 1]);
    }
    return FALSE;
}

/* A whole number (digits only) from lo to hi. */
static gboolean count_in(const char *v, uint64_t lo, uint64_t hi, uint64_t *n)
{
    size_t len = strlen(v);
    if (len == 0 || len > 9 || strspn(v, "0123456789") != len)
        return FALSE;
    *n = g_ascii_strtoull(v, NULL, 10);
    return *n >= lo && *n <= hi;
}

/* ---- one-value checkers (K_WORD): parse v into cfg, FALSE if it is not a value of the key ---- */

static gboolean fingerprint_word(Config *cfg, const char *v)
{
    return fingerprint_algorithm_parse(v, &cfg->fingerprint);
}

static gboolean container_store_word(Config *cfg, const char *v)
{
    return container_store_kind_parse(v, &cfg->container_store);
}

static gboolean file_digest_word(Config *cfg, const char *v)
{
    return file_digest_parse(v, &cfg->file_digest);
}

static gboolean simulation_word(Config *cfg, const char *v)
{
    if (!g_ascii_strcasecmp(v, "no"))
        cfg->simulate = FALSE;
    else if (!g_ascii_strcasecmp(v, "restore") || !g_ascii_strcasecmp(v, "append") || !g_ascii_strcasecmp(v, "all"))
        cfg->simulate = TRUE;
    else
        return FALSE;
    cfg->cache.simulate = cfg->simulate;
    return TRUE;
}

static gboolean log_level_word(Config *cfg, const char *v)
{
    if (!g_ascii_strcasecmp(v, "debug") || !g_ascii_strcasecmp(v, "verbose"))
        cfg->verbose = TRUE;
    else if (!g_ascii_strcasecmp(v, "notice") || !g_ascii_strcasecmp(v, "warning"))
        cfg->verbose = FALSE;
    else
        return FALSE;
    return TRUE;
}

static gboolean files_cache_word(Config *cfg, const char *v)
{
    gboolean on;
    if (!cache_parse_bool("backup-files-cache", v, &on, NULL))
        return FALSE;
    cfg->backup_files_cache = on ? 1 : 0;
    return TRUE;
}

static gboolean backup_workers_word(Config *cfg, const char *v)
{
    uint64_t n;
    if (!g_ascii_strcasecmp(v, "auto"))
        n = 0;
    else if (!size_parse(v, &n) || n == 0 || n > 64)
        return FALSE;
    cfg->backup_workers = (unsigned)n;
    return TRUE;
}

static gboolean retention_word(Config *cfg, const char *v)
{
    char *end = NULL;
    gint64 keep = g_ascii_strtoll(v, &end, 10);
    if (end == v || *end != '\0' || keep == 0 || keep > G_MAXINT32 || keep < G_MININT32)
        return FALSE;
    cfg->backup_retention = keep < 0 ? -1 : (int)keep;
    return TRUE;
}

static gboolean live_threshold_word(Config *cfg, const char *v)
{
    char *end = NULL;
    double f = g_ascii_strtod(v, &end);
    if (end == v || *end != '\0' || !(f >= 0.0 && f <= 1.0))
        return FALSE;
    cfg->gc_live_threshold = f;
    return TRUE;
}

/* ---- whole-line checkers (K_LINE): count the values themselves ---- */

static gboolean chunk_algorithm_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    /* Destor's "normalized rabin", quoted or not, is one name. */
    gboolean two_words = nvals == 2 && !g_ascii_strcasecmp(vals[0], "normalized") &&
                         !g_ascii_strcasecmp(vals[1], "rabin");
    if (!two_words && !config_value_count(err, key, vals, nvals, 1, "one name"))
        return FALSE;
    if (!chunk_algorithm_parse(two_words ? "normalized rabin" : vals[0], &cfg->chunk_algorithm))
        return bad_value(err, key, vals[0], "expected rabin, fixed or fastcdc");
    return TRUE;
}

const char *restore_cache_kind_name(RestoreCacheKind kind)
{
    static const char *const names[] = { [RESTORE_CACHE_LRU] = "lru", [RESTORE_CACHE_OPT] = "opt",
                                         [RESTORE_CACHE_ASM] = "asm" };
    g_assert((size_t)kind < G_N_ELEMENTS(names));
    return names[kind];
}

static gboolean restore_cache_kind_parse(const char *v, RestoreCacheKind *kind)
{
    for (RestoreCacheKind k = RESTORE_CACHE_LRU; k <= RESTORE_CACHE_ASM; k++)
        if (!g_ascii_strcasecmp(v, restore_cache_kind_name(k))) {
            *kind = k;
            return TRUE;
        }
    return FALSE;
}

/* Destor's form, restore-cache lru|opt|asm N, or the count alone (lru). */
static gboolean restore_cache_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    uint64_t n;
    if (nvals != 1 && !config_value_count(err, key, vals, nvals, 2, "lru, opt or asm and a container count"))
        return FALSE;
    const char *count = vals[nvals - 1];
    RestoreCacheKind kind = RESTORE_CACHE_LRU;
    if (nvals == 2 && !restore_cache_kind_parse(vals[0], &kind))
        return bad_value(err, key, vals[0], "expected lru, opt or asm");
    if (!size_parse(count, &n) || n == 0 || n > 4096)
        return bad_value(err, key, count, "expected a container count from 1 to 4096");
    if (kind == RESTORE_CACHE_ASM && n < 2) /* one buffer reads, the rest assemble */
        return bad_value(err, key, count, "asm needs at least 2 containers (one read buffer, the rest the area)");
    cfg->restore_cache.kind = kind;
    cfg->restore_cache.containers = (unsigned)n;
    cfg->restore_cache.set = TRUE;
    return TRUE;
}

/* fingerprint-index, Destor's form: exact | near-exact, physical | logical,
 * optionally the design's name. The physical designs and near-exact logical
 * silo are implemented; another logical one is upstream's (upstream_keys.c:
 * loads with a warning), so this checker declines it (FALSE, no error). */
static gboolean fingerprint_index_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    if (nvals == 3 && !g_ascii_strcasecmp(vals[0], "near-exact") && !g_ascii_strcasecmp(vals[1], "logical") &&
        !g_ascii_strcasecmp(vals[2], "silo")) {
        cfg->fp_index.kind = FP_INDEX_SILO;
        return TRUE;
    }
    if (nvals >= 2 && nvals <= 3 && !g_ascii_strcasecmp(vals[1], "logical"))
        return FALSE;
    if (nvals < 2 && !config_value_count(err, key, vals, nvals, 2, "exact | near-exact and physical | logical"))
        return FALSE;
    if (nvals > 3)
        return config_value_count(err, key, vals, nvals, 3, "exact | near-exact, physical | logical and a design");
    gboolean exact = !g_ascii_strcasecmp(vals[0], "exact");
    if (!exact && g_ascii_strcasecmp(vals[0], "near-exact"))
        return bad_value(err, key, vals[0], "expected exact or near-exact");
    if (g_ascii_strcasecmp(vals[1], "physical"))
        return bad_value(err, key, vals[1], "expected physical or logical");
    const char *design = exact ? "ddfs" : "sampled index";
    if (nvals == 3 && g_ascii_strcasecmp(vals[2], design))
        return bad_value(err, key, vals[2], exact ? "exact physical is ddfs" : "near-exact physical is \"sampled index\"");
    cfg->fp_index.kind = exact ? FP_INDEX_EXACT : FP_INDEX_SAMPLED;
    return TRUE;
}

/* Destor's form: a method, optionally the ratio (one sample in N). */
static gboolean sampling_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    uint64_t n;
    if (nvals != 1 && !config_value_count(err, key, vals, nvals, 2, "a method and optionally a ratio"))
        return FALSE;
    if (!sampling_method_parse(vals[0], &cfg->fp_index.sampling))
        return bad_value(err, key, vals[0], "expected uniform, random, min or optmin");
    cfg->fp_index.sampling_set = TRUE;
    if (nvals == 2 && (!size_parse(vals[1], &n) || n == 0 || n > 65536))
        return bad_value(err, key, vals[1], "expected a sampling ratio from 1 to 65536");
    if (nvals == 2)
        cfg->fp_index.sampling_ratio = (unsigned)n;
    return TRUE;
}

/* Destor's segment keys (fingerprint-index-segment-*): in effect for
 * near-exact logical silo, the one design that looks segments up; loaded
 * and checked whatever the design. */
static gboolean segment_algorithm_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    uint64_t n;
    char why[128];
    if (nvals != 1 && !config_value_count(err, key, vals, nvals, 2, "an algorithm and optionally a chunk count"))
        return FALSE;
    SegmentAlgorithm a;
    if (!segment_algorithm_parse(vals[0], &a))
        return bad_value(err, key, vals[0], "expected fixed, content-defined or file-defined");
    if (nvals == 2 && a == SEGMENT_FILE_DEFINED)
        return bad_value(err, key, vals[1], "file-defined takes no chunk count");
    g_snprintf(why, sizeof why, "expected a segment size from 1 to %u chunks", SEGMENT_MAX_CHUNKS);
    if (nvals == 2 && !count_in(vals[1], 1, SEGMENT_MAX_CHUNKS, &n))
        return bad_value(err, key, vals[1], why);
    cfg->fp_index.segment.algorithm = a;
    if (nvals == 2)
        cfg->fp_index.segment.size = (unsigned)n;
    return TRUE;
}

static gboolean segment_boundary_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    uint64_t lo, n;
    char why[128];
    if (!config_value_count(err, key, vals, nvals, 2, "a minimum and a maximum chunk count"))
        return FALSE;
    g_snprintf(why, sizeof why, "expected a chunk count from 0 to %u", SEGMENT_MAX_CHUNKS);
    if (!count_in(vals[0], 0, SEGMENT_MAX_CHUNKS, &lo))
        return bad_value(err, key, vals[0], why);
    g_snprintf(why, sizeof why, "expected a chunk count from 1 to %u, at least the minimum", SEGMENT_MAX_CHUNKS);
    if (!count_in(vals[1], MAX(lo, 1), SEGMENT_MAX_CHUNKS, &n))
        return bad_value(err, key, vals[1], why);
    cfg->fp_index.segment.min = (unsigned)lo;
    cfg->fp_index.segment.max = (unsigned)n;
    return TRUE;
}

static gboolean segment_selection_line(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    uint64_t n;
    if (nvals != 1 && !config_value_count(err, key, vals, nvals, 2, "a method and, for top, optionally a count"))
        return FALSE;
    SegmentSelection sel;
    if (!segment_selection_parse(vals[0], &sel))
        return bad_value(err, key, vals[0], "expected base, top or mix");
    if (nvals == 2 && sel != SEGMENT_SELECT_TOP)
        return bad_value(err, key, vals[1], "only top takes a count");
    if (nvals == 2 && !count_in(vals[1], 1, 4096, &n))
        return bad_value(err, key, vals[1], "expected a segment count from 1 to 4096");
    /* Destor: a selection line sets the count to 1 unless top gives one */
    cfg->fp_index.segment.selection = sel;
    cfg->fp_index.segment.top_k = nvals == 2 ? (unsigned)n : 1;
    return TRUE;
}

static gboolean prefetching_word(Config *cfg, const char *v)
{
    uint64_t n;
    if (!count_in(v, 0, 4096, &n))
        return FALSE;
    cfg->fp_index.segment.prefetching = n == 0 ? SEGMENT_DEFAULT_PREFETCHING : (unsigned)n;
    return TRUE;
}

/* ---- the table ---- */

typedef enum {
    K_TEXT,  /* a string (char *); lo 1: not empty */
    K_SIZE,  /* a size (size_t) from lo to hi, a multiple of step */
    K_COUNT, /* a number (unsigned) from lo to hi */
    K_BOOL,  /* yes or no (gboolean) */
    K_WORD,  /* one value, parsed and stored by `word` */
    K_LINE,  /* any number of values, counted, parsed and stored by `line` */
} KeyType;

typedef struct {
    const char *name;
    KeyType type;
    size_t field; /* offsetof its value in Config (K_TEXT, K_SIZE, K_COUNT, K_BOOL) */
    gboolean (*word)(Config *cfg, const char *v);
    gboolean (*line)(Config *cfg, const char *key, char **vals, guint nvals, GError **err);
    const char *form; /* what it takes, for a wrong number of values (all but K_LINE) */
    const char *why;  /* a bad value's message (all but K_LINE) */
    uint64_t lo, hi, step;
} ConfigKey;

#define AT(f) offsetof(Config, f)

static const ConfigKey config_keys[] = {
    { "working-directory", K_TEXT, AT(working_directory), NULL, NULL, "one path", "", 0, 0, 0 },
    { "chunk-algorithm", K_LINE, 0, NULL, chunk_algorithm_line, NULL, NULL, 0, 0, 0 },
    { "chunk-avg-size", K_SIZE, AT(chunk_sizes.avg_size), NULL, NULL, "one size",
      "expected a size in bytes up to 16M", 1, CONTAINER_MAX_SIZE, 1 },
    { "chunk-min-size", K_SIZE, AT(chunk_sizes.min_size), NULL, NULL, "one size",
      "expected a size in bytes up to 16M", 1, CONTAINER_MAX_SIZE, 1 },
    { "chunk-max-size", K_SIZE, AT(chunk_sizes.max_size), NULL, NULL, "one size",
      "expected a size in bytes up to 16M", 1, CONTAINER_MAX_SIZE, 1 },
    { "container-size", K_SIZE, AT(container_size), NULL, NULL, "one size",
      "expected a multiple of 4K from 128K to 16M", CONTAINER_MIN_SIZE, CONTAINER_MAX_SIZE, CONTAINER_ALIGN },
    { "fingerprint-algorithm", K_WORD, 0, fingerprint_word, NULL, "one name", "expected sha1 or sha256", 0, 0, 0 },
    { "simulation-level", K_WORD, 0, simulation_word, NULL, "one level", "expected no, restore, append or all", 0,
      0, 0 },
    { "log-level", K_WORD, 0, log_level_word, NULL, "one level", "expected debug, verbose, notice or warning", 0, 0,
      0 },
    { "store-read-uncached", K_BOOL, AT(store_read_uncached), NULL, NULL, "yes or no", "expected yes or no", 0, 0,
      0 },
    { "backup-workers", K_WORD, 0, backup_workers_word, NULL, "auto or a number", "expected auto or 1 to 64", 0, 0,
      0 },
    { "backup-files-cache", K_WORD, 0, files_cache_word, NULL, "yes or no", "expected yes or no", 0, 0, 0 },
    { "restore-cache", K_LINE, 0, NULL, restore_cache_line, NULL, NULL, 0, 0, 0 },
    { "restore-opt-window-size", K_COUNT, AT(restore_cache.opt_window), NULL, NULL, "a number of chunks",
      "expected a chunk count from 1 to 100000000", 1, 100000000, 0 },
    { "backup-retention-time", K_WORD, 0, retention_word, NULL, "a number of backups",
      "expected the number of backups to keep (1 or more), or a negative number to keep every backup", 0, 0, 0 },
    { "container-store", K_WORD, 0, container_store_word, NULL, "one kind", "expected pool, files or rados", 0, 0,
      0 },
    { "rados-conf", K_TEXT, AT(rados_conf), NULL, NULL, "one path", "must not be empty", 1, 0, 0 },
    { "rados-pool", K_TEXT, AT(rados_pool), NULL, NULL, "one name", "must not be empty", 1, 0, 0 },
    /* the empty namespace is the pool's default one */
    { "rados-namespace", K_TEXT, AT(rados_namespace), NULL, NULL, "one name", "", 0, 0, 0 },
    /* a lock renewed every third of its duration, at least a second apart */
    { "rados-timeout", K_COUNT, AT(rados_timeout), NULL, NULL, "a number of seconds", "expected 1 to 3600 seconds",
      1, 3600, 0 },
    { "rados-lock-duration", K_COUNT, AT(rados_lock_duration), NULL, NULL, "a number of seconds",
      "expected 3 to 3600 seconds", 3, 3600, 0 },
    { "gc-live-threshold", K_WORD, 0, live_threshold_word, NULL, "a fraction from 0 to 1",
      "expected a fraction from 0 (never copy) to 1", 0, 0, 0 },
    { "file-digest", K_WORD, 0, file_digest_word, NULL, "one name", "expected xxh3 or sha256", 0, 0, 0 },
    { "fingerprint-index", K_LINE, 0, NULL, fingerprint_index_line, NULL, NULL, 0, 0, 0 },
    { "fingerprint-index-sampling-method", K_LINE, 0, NULL, sampling_line, NULL, NULL, 0, 0, 0 },
    { "fingerprint-index-cache-size", K_COUNT, AT(fp_index.cache_containers), NULL, NULL, "a container count",
      "expected a container count from 1 to 65536", 1, 65536, 0 },
    { "fingerprint-index-segment-algorithm", K_LINE, 0, NULL, segment_algorithm_line, NULL, NULL, 0, 0, 0 },
    { "fingerprint-index-segment-boundary", K_LINE, 0, NULL, segment_boundary_line, NULL, NULL, 0, 0, 0 },
    { "fingerprint-index-segment-selection", K_LINE, 0, NULL, segment_selection_line, NULL, NULL, 0, 0, 0 },
    { "fingerprint-index-segment-prefetching", K_WORD, 0, prefetching_word, NULL, "a segment count",
      "expected a segment count from 1 to 4096, or 0 for the default (16)", 0, 0, 0 },
};

void config_key_names(GPtrArray *out)
{
    for (size_t i = 0; i < G_N_ELEMENTS(config_keys); i++)
        g_ptr_array_add(out, (gpointer)config_keys[i].name);
}

static gboolean set_one(Config *cfg, const ConfigKey *k, const char *v, GError **err)
{
    void *field = (char *)cfg + k->field;
    uint64_t n;
    switch (k->type) {
    case K_TEXT:
        if (k->lo > 0 && v[0] == '\0')
            return bad_value(err, k->name, v, k->why);
        g_free(*(char **)field);
        *(char **)field = g_strdup(v);
        return TRUE;
    case K_SIZE:
        if (!size_parse(v, &n) || n < k->lo || n > k->hi || n % k->step)
            return bad_value(err, k->name, v, k->why);
        *(size_t *)field = n;
        return TRUE;
    case K_COUNT:
        if (!size_parse(v, &n) || n < k->lo || n > k->hi)
            return bad_value(err, k->name, v, k->why);
        *(unsigned *)field = (unsigned)n;
        return TRUE;
    case K_BOOL:
        return cache_parse_bool(k->name, v, (gboolean *)field, NULL) || bad_value(err, k->name, v, k->why);
    case K_WORD:
        return k->word(cfg, v) || bad_value(err, k->name, v, k->why);
    case K_LINE:
        break;
    }
    g_assert_not_reached();
}

gboolean config_key_set(Config *cfg, const char *key, char **vals, guint nvals, gboolean *known, GError **err)
{
    const ConfigKey *k = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(config_keys) && k == NULL; i++)
        if (!strcmp(config_keys[i].name, key))
            k = &config_keys[i];
    *known = k != NULL;
    if (k == NULL)
        return FALSE;
    if (k->type != K_LINE)
        return config_value_count(err, key, vals, nvals, 1, k->form) && set_one(cfg, k, vals[0], err);
    GError *local = NULL;
    if (k->line(cfg, key, vals, nvals, &local))
        return TRUE;
    *known = local != NULL; /* declined: a form of the key that is not ours */
    if (local != NULL)
        g_propagate_error(err, local);
    return FALSE;
}
