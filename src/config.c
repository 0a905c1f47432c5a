/* config.c: tokenizer and per-key setters for destor.config. */
#include "config.h"
#include "storage/container.h"
#include "storage/container_pool.h"
#include "util/error.h"
#include "util/size_parse.h"

#include <string.h>

/* Keys of upstream Destor that configure machinery this store does not have
 * (near-exact indexes, rewriting, retention). They are accepted so a Destor
 * config file still loads, and ignored. */
static const char *const destor_ignored_keys[] = {
    "fingerprint-index", "fingerprint-index-cache-size", "fingerprint-index-container-cache-size",
    "fingerprint-index-bloom-filter", "fingerprint-index-key-value", "fingerprint-index-key-size",
    "fingerprint-index-value-size", "fingerprint-index-sampling-method",
    "fingerprint-index-feature-method", "fingerprint-index-feature-segment-number",
    "fingerprint-index-segment-algorithm", "fingerprint-index-segment-boundary-algorithm",
    "fingerprint-index-segment-selection", "fingerprint-index-segment-prefetching",
    "fingerprint-index-segment-caching", "rewrite-algorithm", "rewrite-enable-cfl-switch",
    "rewrite-cfl-require", "rewrite-cfl-usage-threshold", "rewrite-cbr-limit",
    "rewrite-cbr-minimal-utility", "rewrite-capping-level", "rewrite-enable-har",
    "rewrite-har-utilization-threshold", "rewrite-har-rewrite-limit", "rewrite-enable-cache-aware",
    "restore-opt-window-size", "backup-retention-time", "trace-format",
    NULL,
};

void config_init(Config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->working_directory = g_strdup("working");
    cfg->chunk_algorithm = CHUNK_RABIN;
    cfg->chunk_sizes = (ChunkSizes){ .min_size = 2048, .avg_size = 8192, .max_size = 65536 };
    cfg->container_size = 2u << 20;
    cfg->fingerprint = FP_SHA1;
    cfg->restore_cache_containers = 30;
    cache_config_init(&cfg->cache);
}

void config_clear(Config *cfg)
{
    g_free(cfg->working_directory);
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

static gboolean bad_value(GError **err, const char *origin, int lineno, const char *key,
                          const char *value, const char *why)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s:%d: invalid value '%s' for %s: %s",
                origin, lineno, value ? value : "", key, why);
    return FALSE;
}

static gboolean set_key(Config *cfg, const char *key, char **vals, guint nvals,
                        const char *origin, int lineno, GError **err)
{
    const char *v = nvals > 0 ? vals[0] : NULL;
    uint64_t n;
    if (v == NULL)
        return bad_value(err, origin, lineno, key, v, "a value is required");

    if (!strcmp(key, "working-directory")) {
        g_free(cfg->working_directory);
        cfg->working_directory = g_strdup(v);
    } else if (!strcmp(key, "chunk-algorithm")) {
        GString *name = g_string_new(v);
        for (guint i = 1; i < nvals; i++) /* Destor allows: chunk-algorithm normalized rabin */
            g_string_append_printf(name, " %s", vals[i]);
        gboolean ok = chunk_algorithm_parse(name->str, &cfg->chunk_algorithm);
        g_string_free(name, TRUE);
        if (!ok)
            return bad_value(err, origin, lineno, key, v, "expected rabin, fixed or fastcdc");
    } else if (!strcmp(key, "chunk-avg-size") || !strcmp(key, "chunk-min-size") || !strcmp(key, "chunk-max-size")) {
        if (!size_parse(v, &n) || n == 0 || n > CONTAINER_MAX_SIZE)
            return bad_value(err, origin, lineno, key, v, "expected a size in bytes up to 16M");
        if (!strcmp(key, "chunk-avg-size"))
            cfg->chunk_sizes.avg_size = n;
        else if (!strcmp(key, "chunk-min-size"))
            cfg->chunk_sizes.min_size = n;
        else
            cfg->chunk_sizes.max_size = n;
    } else if (!strcmp(key, "container-size")) {
        if (!size_parse(v, &n) || n < CONTAINER_MIN_SIZE || n > CONTAINER_MAX_SIZE || n % CONTAINER_ALIGN)
            return bad_value(err, origin, lineno, key, v, "expected a multiple of 4K from 128K to 16M");
        cfg->container_size = n;
    } else if (!strcmp(key, "fingerprint-algorithm")) {
        if (!fingerprint_algorithm_parse(v, &cfg->fingerprint))
            return bad_value(err, origin, lineno, key, v, "expected sha1 or sha256");
    } else if (!strcmp(key, "simulation-level")) {
        if (!g_ascii_strcasecmp(v, "no"))
            cfg->simulate = FALSE;
        else if (!g_ascii_strcasecmp(v, "restore") || !g_ascii_strcasecmp(v, "append") || !g_ascii_strcasecmp(v, "all"))
            cfg->simulate = TRUE;
        else
            return bad_value(err, origin, lineno, key, v, "expected no, restore, append or all");
        cfg->cache.simulate = cfg->simulate;
    } else if (!strcmp(key, "log-level")) {
        if (!g_ascii_strcasecmp(v, "debug") || !g_ascii_strcasecmp(v, "verbose"))
            cfg->verbose = TRUE;
        else if (!g_ascii_strcasecmp(v, "notice") || !g_ascii_strcasecmp(v, "warning"))
            cfg->verbose = FALSE;
        else
            return bad_value(err, origin, lineno, key, v, "expected debug, verbose, notice or warning");
    } else if (!strcmp(key, "store-read-uncached")) {
        if (!cache_parse_bool(key, v, &cfg->store_read_uncached, NULL))
            return bad_value(err, origin, lineno, key, v, "expected yes or no");
    } else if (!strcmp(key, "backup-workers")) {
        if (!g_ascii_strcasecmp(v, "auto"))
            cfg->backup_workers = 0;
        else if (!size_parse(v, &n) || n == 0 || n > 64)
            return bad_value(err, origin, lineno, key, v, "expected auto or 1 to 64");
        else
            cfg->backup_workers = (unsigned)n;
    } else if (!strcmp(key, "restore-cache")) {
        /* Destor: restore-cache lru 30 (only lru here). */
        const char *count = nvals > 1 ? vals[1] : vals[0];
        if (nvals > 1 && g_ascii_strcasecmp(v, "lru") != 0)
            return bad_value(err, origin, lineno, key, v, "only lru is supported");
        if (!size_parse(count, &n) || n == 0 || n > 4096)
            return bad_value(err, origin, lineno, key, count, "expected a container count from 1 to 4096");
        cfg->restore_cache_containers = (unsigned)n;
    } else {
        return FALSE; /* not ours: caller decides */
    }
    return TRUE;
}

static gboolean is_ignored_destor_key(const char *key)
{
    for (const char *const *k = destor_ignored_keys; *k != NULL; k++)
        if (!strcmp(*k, key))
            return TRUE;
    return FALSE;
}

gboolean config_apply_line(Config *cfg, const char *line, const char *origin, int lineno, GError **err)
{
    GPtrArray *tok = g_ptr_array_new_with_free_func(g_free);
    GString *problem = g_string_new(NULL);
    gboolean ok = TRUE;
    if (!tokenize(line, tok, problem)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s:%d: %s", origin, lineno, problem->str);
        ok = FALSE;
    } else if (tok->len > 0) {
        const char *key = tok->pdata[0];
        char **vals = (char **)tok->pdata + 1;
        GError *local = NULL;
        CacheConfigResult cache_result = CACHE_CONFIG_UNKNOWN;
        if (set_key(cfg, key, vals, tok->len - 1, origin, lineno, &local)) {
            /* applied */
        } else if (local != NULL) {
            g_propagate_error(err, local);
            ok = FALSE;
        } else if ((cache_result = cache_config_set(&cfg->cache, key, tok->len > 1 ? vals[0] : "", &local)) !=
                   CACHE_CONFIG_UNKNOWN) {
            if (cache_result == CACHE_CONFIG_INVALID) {
                g_propagate_prefixed_error(err, local, "%s:%d: ", origin, lineno);
                ok = FALSE;
            }
        } else if (!is_ignored_destor_key(key)) {
            g_printerr("destor: warning: %s:%d: unknown key '%s' ignored\n", origin, lineno, key);
        }
    }
    g_string_free(problem, TRUE);
    g_ptr_array_unref(tok);
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
    gboolean ok = TRUE;
    for (int i = 0; lines[i] != NULL && ok; i++)
        ok = config_apply_line(cfg, lines[i], path, i + 1, err);
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
    if (cfg->working_directory[0] == '\0') {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "working-directory is empty");
        return FALSE;
    }
    return TRUE;
}
