/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rewrite_config.c: the rewrite-* keys, in upstream Destor's forms and with
 * its defaults, so an upstream destor.config means the same here. */
#include "config/rewrite_config.h"
#include "util/error.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

void rewrite_config_init(RewriteConfig *rc)
{
    /* Upstream Destor's defaults (its destor.config), fixed before any
     * measurement here. */
    *rc = (RewriteConfig){
        .algorithm = REWRITE_NO,
        .buffer_chunks = 1024,
        .capping_level = 14,
        .cfl_require = 0.6,
        .cfl_usage_threshold = 0.03,
        .cfl_switch = FALSE,
        .cbr_limit = 0.05,
        .cbr_minimal_utility = 0.2,
        .har = FALSE,
        .har_utilization_threshold = 0.5,
        .har_rewrite_limit = 0.05,
        .cache_aware = FALSE,
    };
}

typedef enum { K_ALGORITHM, K_COUNT, K_FRACTION, K_YESNO } KeyForm;

static const struct {
    const char *key;
    KeyForm form;
    size_t field; /* offsetof the value in RewriteConfig */
    gboolean open_zero; /* a fraction that must be above 0 */
} keys[] = {
    { "rewrite-algorithm", K_ALGORITHM, 0, FALSE },
    { "rewrite-capping-level", K_COUNT, offsetof(RewriteConfig, capping_level), FALSE },
    { "rewrite-cfl-require", K_FRACTION, offsetof(RewriteConfig, cfl_require), TRUE },
    { "rewrite-cfl-usage-threshold", K_FRACTION, offsetof(RewriteConfig, cfl_usage_threshold), FALSE },
    { "rewrite-enable-cfl-switch", K_YESNO, offsetof(RewriteConfig, cfl_switch), FALSE },
    { "rewrite-cbr-limit", K_FRACTION, offsetof(RewriteConfig, cbr_limit), FALSE },
    { "rewrite-cbr-minimal-utility", K_FRACTION, offsetof(RewriteConfig, cbr_minimal_utility), FALSE },
    { "rewrite-enable-har", K_YESNO, offsetof(RewriteConfig, har), FALSE },
    { "rewrite-har-utilization-threshold", K_FRACTION, offsetof(RewriteConfig, har_utilization_threshold), TRUE },
    { "rewrite-har-rewrite-limit", K_FRACTION, offsetof(RewriteConfig, har_rewrite_limit), FALSE },
    { "rewrite-enable-cache-aware", K_YESNO, offsetof(RewriteConfig, cache_aware), FALSE },
};

/* Upstream's names of each algorithm, short and long. */
static const struct {
    const char *name;
    RewriteAlgorithm algorithm;
} algorithms[] = {
    { "no", REWRITE_NO },
    { "cfl", REWRITE_CFL },
    { "cfl-based selective deduplication", REWRITE_CFL },
    { "cbr", REWRITE_CBR },
    { "context-based rewriting", REWRITE_CBR },
    { "cap", REWRITE_CAPPING },
    { "capping", REWRITE_CAPPING },
};

static gboolean bad(GError **err, const char *key, const char *value, const char *why)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "invalid value '%s' for %s: %s", value, key, why);
    return FALSE;
}

static gboolean parse_count(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    if (*s == '\0' || strlen(s) > 10)
        return FALSE;
    for (const char *p = s; *p; p++)
        if (!g_ascii_isdigit(*p))
            return FALSE;
    guint64 v = g_ascii_strtoull(s, NULL, 10);
    if (v < lo || v > hi)
        return FALSE;
    *out = (unsigned)v;
    return TRUE;
}

static gboolean set_algorithm(RewriteConfig *rc, const char *key, char **vals, guint nvals, GError **err)
{
    const char *form = "no, or cfl | cbr | cap (or their long names) and optionally a buffer size in chunks";
    if (nvals == 0 || nvals > 2) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s takes %s", key, form);
        return FALSE;
    }
    gsize i = 0;
    while (i < G_N_ELEMENTS(algorithms) && g_ascii_strcasecmp(vals[0], algorithms[i].name) != 0)
        i++;
    if (i == G_N_ELEMENTS(algorithms))
        return bad(err, key, vals[0], "expected no, cfl, cbr or capping (or their long names)");
    unsigned buffer = rc->buffer_chunks;
    if (nvals == 2 && algorithms[i].algorithm == REWRITE_NO) /* as upstream's parser: no takes no count */
        return bad(err, key, vals[1], "no takes no buffer size");
    if (nvals == 2 && !parse_count(vals[1], 1, REWRITE_BUFFER_MAX, &buffer))
        return bad(err, key, vals[1], "expected a rewrite buffer of 1 to 1048576 chunks");
    rc->algorithm = algorithms[i].algorithm;
    rc->buffer_chunks = buffer;
    return TRUE;
}

gboolean rewrite_config_set(RewriteConfig *rc, const char *key, char **vals, guint nvals, GError **err)
{
    gsize i = 0;
    while (i < G_N_ELEMENTS(keys) && strcmp(keys[i].key, key) != 0)
        i++;
    g_assert(i < G_N_ELEMENTS(keys));
    if (keys[i].form == K_ALGORITHM)
        return set_algorithm(rc, key, vals, nvals, err);
    if (nvals != 1) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s takes one value%s%s", key,
                    nvals > 1 ? "; extra " : "", nvals > 1 ? vals[1] : "");
        return FALSE;
    }
    const char *v = vals[0];
    void *field = (char *)rc + keys[i].field;
    switch (keys[i].form) {
    case K_COUNT:
        if (!parse_count(v, 1, 1u << 20, field))
            return bad(err, key, v, "expected a whole number of containers from 1 to 1048576");
        return TRUE;
    case K_YESNO:
        if (g_ascii_strcasecmp(v, "yes") == 0)
            *(gboolean *)field = TRUE;
        else if (g_ascii_strcasecmp(v, "no") == 0)
            *(gboolean *)field = FALSE;
        else
            return bad(err, key, v, "expected yes or no");
        return TRUE;
    case K_FRACTION: {
        char *end = NULL;
        errno = 0;
        double f = g_ascii_strtod(v, &end);
        gboolean ok = end != v && *end == '\0' && errno == 0 && isfinite(f) && f <= 1.0 &&
                      (keys[i].open_zero ? f > 0.0 : f >= 0.0);
        if (!ok)
            return bad(err, key, v, keys[i].open_zero ? "expected a fraction above 0, up to 1"
                                                      : "expected a fraction from 0 to 1");
        *(double *)field = f;
        return TRUE;
    }
    case K_ALGORITHM:
        break;
    }
    g_assert_not_reached();
}

gboolean rewrite_config_is_key(const char *key)
{
    for (gsize i = 0; i < G_N_ELEMENTS(keys); i++)
        if (strcmp(keys[i].key, key) == 0)
            return TRUE;
    return FALSE;
}

void rewrite_config_keys(GPtrArray *out)
{
    for (gsize i = 0; i < G_N_ELEMENTS(keys); i++)
        g_ptr_array_add(out, (gpointer)keys[i].key);
}

gboolean rewrite_config_active(const RewriteConfig *rc)
{
    return rc->algorithm != REWRITE_NO || rc->har;
}

const char *rewrite_algorithm_name(RewriteAlgorithm a)
{
    switch (a) {
    case REWRITE_NO:
        return "no";
    case REWRITE_CFL:
        return "cfl";
    case REWRITE_CBR:
        return "cbr";
    case REWRITE_CAPPING:
        return "capping";
    }
    g_assert_not_reached();
}
