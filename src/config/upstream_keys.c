/* SPDX-License-Identifier: GPL-3.0-or-later */
/* upstream_keys.c: upstream Destor's keys this store accepts but does not
 * implement, and the value forms upstream's parser takes for each (its
 * load_config_from_string); see upstream_keys.h. */
#include "config/upstream_keys.h"

#include <errno.h>
#include <math.h>
#include <string.h>

typedef enum {
    U_COUNT,      /* a whole number */
    U_REAL,       /* a decimal number */
    U_YESNO,      /* yes or no */
    U_WORD,       /* one of words; a count may follow one of counted */
    U_INDEX,      /* exact|near-exact logical [SPECIFIC] (physical ones: config.c) */
} UpstreamForm;

typedef struct {
    const char *key;
    UpstreamForm form;
    const char *const *words;   /* U_WORD */
    const char *const *counted; /* U_WORD: the words a count may follow */
    const char *text;           /* the form, for messages */
} UpstreamKey;

static const char *const trace_formats[] = { "destor", "fsl", NULL };
static const char *const key_values[] = { "htable", NULL };

static const UpstreamKey keys[] = {
    { "trace-format", U_WORD, trace_formats, NULL, "destor | fsl" },
    { "fingerprint-index", U_INDEX, NULL, NULL,
      "exact | near-exact, then physical | logical, then optionally ddfs, \"sampled index\", "
      "\"block locality caching\", \"extreme binning\", \"sparse index\" or silo of that category" },
    { "fingerprint-index-key-value", U_WORD, key_values, NULL, "htable" },
    { "fingerprint-index-key-size", U_COUNT, NULL, NULL, "a whole number" },
    { "fingerprint-index-value-length", U_COUNT, NULL, NULL, "a whole number" },
    { "fingerprint-index-bloom-filter", U_COUNT, NULL, NULL, "a whole number" },
};

/* fingerprint-index's third value and the category it belongs to; only
 * the logical ones reach this table (config.c sets the physical ones and
 * near-exact logical silo). */
static const struct {
    const char *name, *exactness, *locality;
} index_kinds[] = {
    { "block locality caching", "exact", "logical" },
    { "extreme binning", "near-exact", "logical" },
    { "sparse index", "near-exact", "logical" },
};

static gboolean is_count(const char *s)
{
    if (*s == '\0' || strlen(s) > 18)
        return FALSE;
    for (; *s; s++)
        if (!g_ascii_isdigit(*s))
            return FALSE;
    return TRUE;
}

static gboolean is_real(const char *s)
{
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(s, &end);
    return *s != '\0' && !g_ascii_isspace(*s) && *end == '\0' && errno == 0 && isfinite(v);
}

static gboolean one_of(const char *s, const char *const *words)
{
    for (; words != NULL && *words != NULL; words++)
        if (g_ascii_strcasecmp(s, *words) == 0)
            return TRUE;
    return FALSE;
}

static gboolean index_form_ok(char *const *v, guint n)
{
    if (n < 2 || n > 3 || !one_of(v[0], (const char *const[]){ "exact", "near-exact", NULL }) ||
        !one_of(v[1], (const char *const[]){ "logical", NULL }))
        return FALSE;
    if (n == 2)
        return TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(index_kinds); i++)
        if (g_ascii_strcasecmp(v[2], index_kinds[i].name) == 0)
            return g_ascii_strcasecmp(v[0], index_kinds[i].exactness) == 0 &&
                   g_ascii_strcasecmp(v[1], index_kinds[i].locality) == 0;
    return FALSE;
}

static gboolean form_ok(const UpstreamKey *k, char *const *v, guint n)
{
    switch (k->form) {
    case U_COUNT:
        return n == 1 && is_count(v[0]);
    case U_REAL:
        return n == 1 && is_real(v[0]);
    case U_YESNO:
        return n == 1 && one_of(v[0], (const char *const[]){ "yes", "no", NULL });
    case U_WORD:
        return (n == 1 && one_of(v[0], k->words)) || (n == 2 && one_of(v[0], k->counted) && is_count(v[1]));
    case U_INDEX:
        return index_form_ok(v, n);
    }
    g_assert_not_reached();
}

UpstreamKeyResult upstream_key_check(const char *key, char *const *vals, guint n, const char **form)
{
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        if (strcmp(keys[i].key, key) != 0)
            continue;
        if (form_ok(&keys[i], vals, n))
            return UPSTREAM_KEY_OK;
        if (form != NULL)
            *form = keys[i].text;
        return UPSTREAM_KEY_BAD;
    }
    return UPSTREAM_KEY_NOT_ONE;
}

const char *upstream_key_at(size_t i)
{
    return i < G_N_ELEMENTS(keys) ? keys[i].key : NULL;
}
