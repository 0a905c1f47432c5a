/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.c: tokenizer and per-key setters for destor.config. */
#include "config/config.h"
#include "config/upstream_keys.h"
#include "storage/container.h"
#include "util/edit_distance.h"
#include "util/error.h"
#include "util/size_parse.h"

#include <string.h>

void config_init(Config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->working_directory = g_strdup("working");
    cfg->chunk_algorithm = CHUNK_RABIN;
    cfg->chunk_sizes = (ChunkSizes){ .min_size = 2048, .avg_size = 8192, .max_size = 65536 };
    cfg->container_size = 2u << 20;
    cfg->fingerprint = FP_SHA1;
    cfg->container_store = CONTAINER_STORE_POOL;
    cfg->rados_namespace = g_strdup("");
    cfg->rados_timeout = 30;
    cfg->rados_lock_duration = 30;
    /* Destor's defaults: lru 30 here (as before), the opt window of
     * 1000000 chunks and retention -1 (every backup kept) as upstream. */
    cfg->restore_cache = (RestoreCacheConfig){ RESTORE_CACHE_LRU, 30, 1000000, FALSE };
    cfg->backup_retention = -1;
    cfg->gc_live_threshold = 0.5;
    fp_index_params_default(&cfg->fp_index);
    cache_config_init(&cfg->cache);
    rewrite_config_init(&cfg->rewrite);
}

void config_clear(Config *cfg)
{
    g_free(cfg->working_directory);
    g_free(cfg->rados_conf);
    g_free(cfg->rados_pool);
    g_free(cfg->rados_namespace);
    cache_config_clear(&cfg->cache);
    memset(cfg, 0, sizeof *cfg);
}

/* Split a line into tokens: blanks separate, "..." groups, # ends the line. */
static gboolean tokenize(const char *line, GPtrArray *out, GString *problem)
{
    const char *p = line;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            break;
        GString *tok = g_string_new(NULL);
        if (*p == '"') {
            p++;
            while (*p != '\0' && *p != '"')
                g_string_append_c(tok, *p++);
            if (*p != '"') {
                g_string_assign(problem, "unterminated quote");
                g_string_free(tok, TRUE);
                return FALSE;
            }
            p++;
        } else {
            while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
                g_string_append_c(tok, *p++);
        }
        g_ptr_array_add(out, g_string_free(tok, FALSE));
    }
    return TRUE;
}

static gboolean bad_value(GError **err, const char *key, const char *value, const char *why)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "invalid value '%s' for %s: %s", value, key, why);
    return FALSE;
}

/* "takes one value": a value with spaces must be quoted, else it is two. */
static gboolean value_count(GError **err, const char *key, char **vals, guint nvals, guint want, const char *form)
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

/* fingerprint-index, Destor's form: exact | near-exact, physical | logical,
 * optionally the design's name. The physical designs and near-exact logical
 * silo are implemented; another logical one is upstream's (upstream_keys.c:
 * loads with a warning). */
static gboolean set_fingerprint_index(Config *cfg, char **vals, guint nvals, gboolean *known, GError **err)
{
    const char *key = "fingerprint-index";
    if (nvals == 3 && !g_ascii_strcasecmp(vals[0], "near-exact") && !g_ascii_strcasecmp(vals[1], "logical") &&
        !g_ascii_strcasecmp(vals[2], "silo")) {
        cfg->fp_index.kind = FP_INDEX_SILO;
        return TRUE;
    }
    if (nvals >= 2 && nvals <= 3 && !g_ascii_strcasecmp(vals[1], "logical")) {
        *known = FALSE;
        return FALSE;
    }
    if (nvals < 2 && !value_count(err, key, vals, nvals, 2, "exact | near-exact and physical | logical"))
        return FALSE;
    if (nvals > 3)
        return value_count(err, key, vals, nvals, 3, "exact | near-exact, physical | logical and a design");
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

/* A whole number (digits only) from lo to hi. */
static gboolean count_in(const char *v, uint64_t lo, uint64_t hi, uint64_t *n)
{
    size_t len = strlen(v);
    if (len == 0 || len > 9 || strspn(v, "0123456789") != len)
        return FALSE;
    *n = g_ascii_strtoull(v, NULL, 10);
    return *n >= lo && *n <= hi;
}

/* Destor's segment keys (fingerprint-index-segment-*): in effect for
 * near-exact logical silo, the one design that looks segments up; loaded
 * and checked whatever the design. */
static gboolean set_segment_key(Config *cfg, const char *key, char **vals, guint nvals, GError **err)
{
    SegmentParams *sp = &cfg->fp_index.segment;
    const char *v = nvals > 0 ? vals[0] : NULL;
    uint64_t n;
    char why[128];
    if (!strcmp(key, "fingerprint-index-segment-algorithm")) {
        if (nvals != 1 && !value_count(err, key, vals, nvals, 2, "an algorithm and optionally a chunk count"))
            return FALSE;
        SegmentAlgorithm a;
        if (!segment_algorithm_parse(v, &a))
            return bad_value(err, key, v, "expected fixed, content-defined or file-defined");
        if (nvals == 2 && a == SEGMENT_FILE_DEFINED)
            return bad_value(err, key, vals[1], "file-defined takes no chunk count");
        g_snprintf(why, sizeof why, "expected a segment size from 1 to %u chunks", SEGMENT_MAX_CHUNKS);
        if (nvals == 2 && !count_in(vals[1], 1, SEGMENT_MAX_CHUNKS, &n))
            return bad_value(err, key, vals[1], why);
        sp->algorithm = a;
        if (nvals == 2)
            sp->size = (unsigned)n;
    } else if (!strcmp(key, "fingerprint-index-segment-boundary")) {
        uint64_t lo;
        if (!value_count(err, key, vals, nvals, 2, "a minimum and a maximum chunk count"))
            return FALSE;
        g_snprintf(why, sizeof why, "expected a chunk count from 0 to %u", SEGMENT_MAX_CHUNKS);
        if (!count_in(vals[0], 0, SEGMENT_MAX_CHUNKS, &lo))
            return bad_value(err, key, vals[0], why);
        g_snprintf(why, sizeof why, "expected a chunk count from 1 to %u, at least the minimum", SEGMENT_MAX_CHUNKS);
        if (!count_in(vals[1], MAX(lo, 1), SEGMENT_MAX_CHUNKS, &n))
            return bad_value(err, key, vals[1], why);
        sp->min = (unsigned)lo;
        sp->max = (unsigned)n;
    } else if (!strcmp(key, "fingerprint-index-segment-selection")) {
        if (nvals != 1 && !value_count(err, key, vals, nvals, 2, "a method and, for top, optionally a count"))
            return FALSE;
        SegmentSelection sel;
        if (!segment_selection_parse(v, &sel))
            return bad_value(err, key, v, "expected base, top or mix");
        if (nvals == 2 && sel != SEGMENT_SELECT_TOP)
            return bad_value(err, key, vals[1], "only top takes a count");
        if (nvals == 2 && !count_in(vals[1], 1, 4096, &n))
            return bad_value(err, key, vals[1], "expected a segment count from 1 to 4096");
        /* Destor: a selection line sets the count to 1 unless top gives one */
        sp->selection = sel;
        sp->top_k = nvals == 2 ? (unsigned)n : 1;
    } else {
        g_assert(!strcmp(key, "fingerprint-index-segment-prefetching"));
        if (!value_count(err, key, vals, nvals, 1, "a segment count"))
            return FALSE;
        if (!count_in(v, 0, 4096, &n))
            return bad_value(err, key, v, "expected a segment count from 1 to 4096, or 0 for the default (16)");
        sp->prefetching = n == 0 ? SEGMENT_DEFAULT_PREFETCHING : (unsigned)n;
    }
    return TRUE;
}

/* Our own keys. *known is FALSE when key is not one of them. */
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

static gboolean set_key(Config *cfg, const char *key, char **vals, guint nvals, gboolean *known, GError **err)
{
    const char *v = nvals > 0 ? vals[0] : NULL;
    uint64_t n;
    *known = TRUE;
    if (!strcmp(key, "working-directory")) {
        if (!value_count(err, key, vals, nvals, 1, "one path"))
            return FALSE;
        g_free(cfg->working_directory);
        cfg->working_directory = g_strdup(v);
    } else if (!strcmp(key, "chunk-algorithm")) {
        /* Destor's "normalized rabin", quoted or not, is one name. */
        gboolean two_words = nvals == 2 && !g_ascii_strcasecmp(vals[0], "normalized") &&
                             !g_ascii_strcasecmp(vals[1], "rabin");
        if (!two_words && !value_count(err, key, vals, nvals, 1, "one name"))
            return FALSE;
        if (!chunk_algorithm_parse(two_words ? "normalized rabin" : v, &cfg->chunk_algorithm))
            return bad_value(err, key, v, "expected rabin, fixed or fastcdc");
    } else if (!strcmp(key, "chunk-avg-size") || !strcmp(key, "chunk-min-size") || !strcmp(key, "chunk-max-size")) {
        if (!value_count(err, key, vals, nvals, 1, "one size"))
            return FALSE;
        if (!size_parse(v, &n) || n == 0 || n > CONTAINER_MAX_SIZE)
            return bad_value(err, key, v, "expected a size in bytes up to 16M");
        if (!strcmp(key, "chunk-avg-size"))
            cfg->chunk_sizes.avg_size = n;
        else if (!strcmp(key, "chunk-min-size"))
            cfg->chunk_sizes.min_size = n;
        else
            cfg->chunk_sizes.max_size = n;
    } else if (!strcmp(key, "container-size")) {
        if (!value_count(err, key, vals, nvals, 1, "one size"))
            return FALSE;
        if (!size_parse(v, &n) || n < CONTAINER_MIN_SIZE || n > CONTAINER_MAX_SIZE || n % CONTAINER_ALIGN)
            return bad_value(err, key, v, "expected a multiple of 4K from 128K to 16M");
        cfg->container_size = n;
    } else if (!strcmp(key, "fingerprint-algorithm")) {
        if (!value_count(err, key, vals, nvals, 1, "one name"))
            return FALSE;
        if (!fingerprint_algorithm_parse(v, &cfg->fingerprint))
            return bad_value(err, key, v, "expected sha1 or sha256");
    } else if (!strcmp(key, "container-store")) {
        if (!value_count(err, key, vals, nvals, 1, "one kind"))
            return FALSE;
        if (!container_store_kind_parse(v, &cfg->container_store))
            return bad_value(err, key, v, "expected pool, files or rados");
    } else if (!strcmp(key, "rados-conf") || !strcmp(key, "rados-pool") || !strcmp(key, "rados-namespace")) {
        gboolean conf = !strcmp(key, "rados-conf"), ns = !strcmp(key, "rados-namespace");
        if (!value_count(err, key, vals, nvals, 1, conf ? "one path" : "one name"))
            return FALSE;
        if (!ns && v[0] == '\0') /* the empty namespace is the pool's default one */
            return bad_value(err, key, v, "must not be empty");
        char **field = conf ? &cfg->rados_conf : ns ? &cfg->rados_namespace : &cfg->rados_pool;
        g_free(*field);
        *field = g_strdup(v);
    } else if (!strcmp(key, "rados-timeout") || !strcmp(key, "rados-lock-duration")) {
        gboolean lock = !strcmp(key, "rados-lock-duration");
        if (!value_count(err, key, vals, nvals, 1, "a number of seconds"))
            return FALSE;
        /* a lock renewed every third of its duration, at least a second apart */
        if (!size_parse(v, &n) || n < (lock ? 3 : 1) || n > 3600)
            return bad_value(err, key, v, lock ? "expected 3 to 3600 seconds" : "expected 1 to 3600 seconds");
        *(lock ? &cfg->rados_lock_duration : &cfg->rados_timeout) = (unsigned)n;
    } else if (!strcmp(key, "file-digest")) {
        if (!value_count(err, key, vals, nvals, 1, "one name"))
            return FALSE;
        if (!file_digest_parse(v, &cfg->file_digest))
            return bad_value(err, key, v, "expected xxh3 or sha256");
    } else if (!strcmp(key, "simulation-level")) {
        if (!value_count(err, key, vals, nvals, 1, "one level"))
            return FALSE;
        if (!g_ascii_strcasecmp(v, "no"))
            cfg->simulate = FALSE;
        else if (!g_ascii_strcasecmp(v, "restore") || !g_ascii_strcasecmp(v, "append") || !g_ascii_strcasecmp(v, "all"))
            cfg->simulate = TRUE;
        else
            return bad_value(err, key, v, "expected no, restore, append or all");
        cfg->cache.simulate = cfg->simulate;
    } else if (!strcmp(key, "log-level")) {
        if (!value_count(err, key, vals, nvals, 1, "one level"))
            return FALSE;
        if (!g_ascii_strcasecmp(v, "debug") || !g_ascii_strcasecmp(v, "verbose"))
            cfg->verbose = TRUE;
        else if (!g_ascii_strcasecmp(v, "notice") || !g_ascii_strcasecmp(v, "warning"))
            cfg->verbose = FALSE;
        else
            return bad_value(err, key, v, "expected debug, verbose, notice or warning");
    } else if (!strcmp(key, "store-read-uncached")) {
        if (!value_count(err, key, vals, nvals, 1, "yes or no"))
            return FALSE;
        if (!cache_parse_bool(key, v, &cfg->store_read_uncached, NULL))
            return bad_value(err, key, v, "expected yes or no");
    } else if (!strcmp(key, "backup-workers")) {
        if (!value_count(err, key, vals, nvals, 1, "auto or a number"))
            return FALSE;
        if (!g_ascii_strcasecmp(v, "auto"))
            cfg->backup_workers = 0;
        else if (!size_parse(v, &n) || n == 0 || n > 64)
            return bad_value(err, key, v, "expected auto or 1 to 64");
        else
            cfg->backup_workers = (unsigned)n;
    } else if (!strcmp(key, "restore-cache")) {
        /* Destor's form, restore-cache lru|opt|asm N, or the count alone (lru). */
        if (nvals != 1 && !value_count(err, key, vals, nvals, 2, "lru, opt or asm and a container count"))
            return FALSE;
        const char *count = vals[nvals - 1];
        RestoreCacheKind kind = RESTORE_CACHE_LRU;
        if (nvals == 2 && !restore_cache_kind_parse(v, &kind))
            return bad_value(err, key, v, "expected lru, opt or asm");
        if (!size_parse(count, &n) || n == 0 || n > 4096)
            return bad_value(err, key, count, "expected a container count from 1 to 4096");
        if (kind == RESTORE_CACHE_ASM && n < 2) /* one buffer reads, the rest assemble */
            return bad_value(err, key, count, "asm needs at least 2 containers (one read buffer, the rest the area)");
        cfg->restore_cache.kind = kind;
        cfg->restore_cache.containers = (unsigned)n;
        cfg->restore_cache.set = TRUE;
    } else if (!strcmp(key, "restore-opt-window-size")) {
        if (!value_count(err, key, vals, nvals, 1, "a number of chunks"))
            return FALSE;
        if (!size_parse(v, &n) || n == 0 || n > 100000000)
            return bad_value(err, key, v, "expected a chunk count from 1 to 100000000");
        cfg->restore_cache.opt_window = (unsigned)n;
    } else if (!strcmp(key, "backup-retention-time")) {
        char *end = NULL;
        if (!value_count(err, key, vals, nvals, 1, "a number of backups"))
            return FALSE;
        gint64 keep = g_ascii_strtoll(v, &end, 10);
        if (end == v || *end != '\0' || keep == 0 || keep > G_MAXINT32 || keep < G_MININT32)
            return bad_value(err, key, v, "expected the number of backups to keep (1 or more), or a negative "
                                          "number to keep every backup");
        cfg->backup_retention = keep < 0 ? -1 : (int)keep;
    } else if (!strcmp(key, "fingerprint-index")) {
        return set_fingerprint_index(cfg, vals, nvals, known, err);
    } else if (!strcmp(key, "fingerprint-index-sampling-method")) {
        /* Destor's form: a method, optionally the ratio (one sample in N). */
        if (nvals != 1 && !value_count(err, key, vals, nvals, 2, "a method and optionally a ratio"))
            return FALSE;
        if (!sampling_method_parse(v, &cfg->fp_index.sampling))
            return bad_value(err, key, v, "expected uniform, random, min or optmin");
        cfg->fp_index.sampling_set = TRUE;
        if (nvals == 2 && (!size_parse(vals[1], &n) || n == 0 || n > 65536))
            return bad_value(err, key, vals[1], "expected a sampling ratio from 1 to 65536");
        if (nvals == 2)
            cfg->fp_index.sampling_ratio = (unsigned)n;
    } else if (!strcmp(key, "fingerprint-index-cache-size")) {
        if (!value_count(err, key, vals, nvals, 1, "a container count"))
            return FALSE;
        if (!size_parse(v, &n) || n == 0 || n > 65536)
            return bad_value(err, key, v, "expected a container count from 1 to 65536");
        cfg->fp_index.cache_containers = (unsigned)n;
    } else if (!strcmp(key, "fingerprint-index-segment-algorithm") ||
               !strcmp(key, "fingerprint-index-segment-boundary") ||
               !strcmp(key, "fingerprint-index-segment-selection") ||
               !strcmp(key, "fingerprint-index-segment-prefetching")) {
        return set_segment_key(cfg, key, vals, nvals, err);
    } else if (!strcmp(key, "gc-live-threshold")) {
        char *end = NULL;
        if (!value_count(err, key, vals, nvals, 1, "a fraction from 0 to 1"))
            return FALSE;
        double f = g_ascii_strtod(v, &end);
        if (end == v || *end != '\0' || !(f >= 0.0 && f <= 1.0))
            return bad_value(err, key, v, "expected a fraction from 0 (never copy) to 1");
        cfg->gc_live_threshold = f;
    } else {
        *known = FALSE;
        return FALSE;
    }
    return TRUE;
}

/* Every key a line may start with, for "did you mean". */
static const char *nearest_key(const char *key)
{
    static const char *const own[] = {
        "working-directory", "chunk-algorithm", "chunk-avg-size", "chunk-min-size", "chunk-max-size",
        "container-size", "fingerprint-algorithm", "simulation-level", "log-level", "store-read-uncached",
        "backup-workers", "restore-cache", "restore-opt-window-size", "backup-retention-time", "container-store", "rados-conf", "rados-pool", "rados-namespace",
        "rados-timeout", "rados-lock-duration", "gc-live-threshold", "file-digest", "fingerprint-index",
        "fingerprint-index-sampling-method", "fingerprint-index-cache-size", "fingerprint-index-segment-algorithm",
        "fingerprint-index-segment-boundary", "fingerprint-index-segment-selection",
        "fingerprint-index-segment-prefetching",
    };
    GPtrArray *all = g_ptr_array_new();
    for (size_t i = 0; i < G_N_ELEMENTS(own); i++)
        g_ptr_array_add(all, (gpointer)own[i]);
    for (size_t i = 0; upstream_key_at(i) != NULL; i++)
        g_ptr_array_add(all, (gpointer)upstream_key_at(i));
    cache_config_keys(all);
    rewrite_config_keys(all);
    const char *best = NULL;
    size_t best_d = 3;
    for (guint i = 0; i < all->len; i++) {
        size_t d = edit_distance(key, all->pdata[i], 2);
        if (d < best_d) {
            best_d = d;
            best = all->pdata[i];
        }
    }
    g_ptr_array_unref(all);
    return best;
}

/* One line, as config_apply_line(); an upstream Destor key we accept
 * without implementing it is appended to unsupported, to be warned about. */
static gboolean apply_tokens(Config *cfg, char **tok, guint ntok, GString *unsupported, GError **err)
{
    const char *key = tok[0];
    char **vals = tok + 1;
    guint nvals = ntok - 1;
    gboolean known = FALSE;
    if (set_key(cfg, key, vals, nvals, &known, err))
        return TRUE;
    if (known)
        return FALSE;
    if (rewrite_config_is_key(key))
        return rewrite_config_set(&cfg->rewrite, key, vals, nvals, err);
    if (cache_config_is_key(key)) {
        /* Each cache key, a policy's too, takes one value. */
        return value_count(err, key, vals, nvals, 1, "one value") &&
               cache_config_set(&cfg->cache, key, vals[0], err) == CACHE_CONFIG_OK;
    }
    const char *form = NULL;
    switch (upstream_key_check(key, vals, nvals, &form)) {
    case UPSTREAM_KEY_OK:
        g_string_append_printf(unsupported, "%s%s", unsupported->len ? ", " : "", key);
        return TRUE;
    case UPSTREAM_KEY_BAD:
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s (a Destor key this store does not support) takes %s",
                    key, form);
        return FALSE;
    case UPSTREAM_KEY_NOT_ONE:
        break;
    }
    const char *near = nearest_key(key);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "unknown key '%s'%s%s%s", key, near ? " (did you mean " : "",
                near ? near : "", near ? "?)" : "");
    return FALSE;
}

/* origin:lineno, or origin alone when lineno is 0 (a -p override). */
static char *where(const char *origin, int lineno)
{
    return lineno > 0 ? g_strdup_printf("%s:%d", origin, lineno) : g_strdup(origin);
}

static gboolean apply_line(Config *cfg, const char *line, const char *origin, int lineno, GString *unsupported,
                           GError **err)
{
    GPtrArray *tok = g_ptr_array_new_with_free_func(g_free);
    GString *problem = g_string_new(NULL);
    GError *local = NULL;
    gboolean ok = TRUE;
    guint before = unsupported->len;
    if (!tokenize(line, tok, problem)) {
        g_set_error(&local, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s", problem->str);
        ok = FALSE;
    } else if (tok->len > 0) {
        ok = apply_tokens(cfg, (char **)tok->pdata, tok->len, unsupported, &local);
    }
    char *at = where(origin, lineno);
    if (!ok) {
        g_assert(local != NULL && local->domain == DESTOR_ERROR && local->code == DESTOR_ERROR_CONFIG);
        g_propagate_prefixed_error(err, local, "%s: ", at);
    } else if (unsupported->len > before && lineno > 0) {
        g_string_append_printf(unsupported, " (line %d)", lineno);
    }
    g_free(at);
    g_string_free(problem, TRUE);
    g_ptr_array_unref(tok);
    return ok;
}

static void warn_unsupported(const char *origin, const GString *unsupported)
{
    if (unsupported->len > 0)
        destor_warning("%s: Destor keys this store does not support, ignored: %s", origin, unsupported->str);
}

gboolean config_apply_line(Config *cfg, const char *line, const char *origin, int lineno, GError **err)
{
    GString *unsupported = g_string_new(NULL);
    gboolean ok = apply_line(cfg, line, origin, lineno, unsupported, err);
    if (ok) {
        char *at = where(origin, lineno);
        warn_unsupported(at, unsupported);
        g_free(at);
    }
    g_string_free(unsupported, TRUE);
    return ok;
}

gboolean config_load_file(Config *cfg, const char *path, GError **err)
{
    gchar *text = NULL;
    GError *local = NULL;
    if (!g_file_get_contents(path, &text, NULL, &local)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "cannot read config file %s: %s", path, local->message);
        g_error_free(local);
        return FALSE;
    }
    gchar **lines = g_strsplit(text, "\n", -1);
    GString *unsupported = g_string_new(NULL);
    gboolean ok = TRUE;
    for (int i = 0; lines[i] != NULL && ok; i++)
        ok = apply_line(cfg, lines[i], path, i + 1, unsupported, err);
    if (ok)
        warn_unsupported(path, unsupported);
    g_string_free(unsupported, TRUE);
    g_strfreev(lines);
    g_free(text);
    return ok;
}

gboolean config_validate(const Config *cfg, GError **err)
{
    if (!chunk_sizes_validate(cfg->chunk_algorithm, &cfg->chunk_sizes, err))
        return FALSE;
    size_t largest = cfg->chunk_algorithm == CHUNK_FIXED ? cfg->chunk_sizes.avg_size : cfg->chunk_sizes.max_size;
    if (largest > container_max_chunk(cfg->container_size)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "largest chunk (%zu bytes) does not fit in a container of %zu bytes",
                    largest, cfg->container_size);
        return FALSE;
    }
    if (!cache_config_validate(&cfg->cache, err))
        return FALSE;
    if (cfg->container_store == CONTAINER_STORE_RADOS && (cfg->rados_conf == NULL || cfg->rados_pool == NULL)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "container-store rados needs rados-conf and rados-pool");
        return FALSE;
    }
    if (cfg->working_directory[0] == '\0') {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "working-directory is empty");
        return FALSE;
    }
    return TRUE;
}
