/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.c: destor.config's lines: tokenizer, dispatch to the key tables
 * (config_keys.c, the cache's, the rewrite keys, upstream Destor's), the
 * whole file, and the checks across keys. */
#include "config/config.h"
#include "config/config_keys.h"
#include "config/upstream_keys.h"
#include "storage/container.h"
#include "util/edit_distance.h"
#include "util/error.h"

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
    cfg->backup_files_cache = -1;
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

/* Every key a line may start with, for "did you mean". */
static const char *nearest_key(const char *key)
{
    GPtrArray *all = g_ptr_array_new();
    config_key_names(all);
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
    if (config_key_set(cfg, key, vals, nvals, &known, err))
        return TRUE;
    if (known)
        return FALSE;
    if (rewrite_config_is_key(key))
        return rewrite_config_set(&cfg->rewrite, key, vals, nvals, err);
    if (cache_config_is_key(key)) {
        /* Each cache key, a policy's too, takes one value. */
        return config_value_count(err, key, vals, nvals, 1, "one value") &&
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
    if (cfg->backup_files_cache == 1 && (rewrite_config_active(&cfg->rewrite) || cfg->fp_index.kind == FP_INDEX_SILO)) {
        /* those stages carry every chunk's bytes, which the files cache does not read */
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "backup-files-cache yes does not apply with %s",
                    cfg->fp_index.kind == FP_INDEX_SILO ? "fingerprint-index near-exact logical silo"
                                                        : "rewriting (rewrite-algorithm or rewrite-enable-har)");
        return FALSE;
    }
    if (cfg->working_directory[0] == '\0') {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "working-directory is empty");
        return FALSE;
    }
    return TRUE;
}
