/* SPDX-License-Identifier: GPL-3.0-or-later */
/* policy_keys.c: the one parser of every policy's own config keys. A policy
 * declares its keys (policy.h: name, type, range, words, default, doc);
 * this file finds them through the registry, checks values and keeps what
 * the configuration set, so neither the config parser nor the core knows
 * any policy's keys. */
#include "cache/policy/chunk_policy.h"
#include "cache/policy/policy.h"
#include "util/error.h"

#include <errno.h>
#include <math.h>
#include <string.h>

struct CachePolicySettings {
    GHashTable *values; /* full key name -> value text (checked) */
};

CachePolicySettings *cache_policy_settings_new(void)
{
    CachePolicySettings *s = g_new(CachePolicySettings, 1);
    s->values = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    return s;
}

CachePolicySettings *cache_policy_settings_copy(const CachePolicySettings *src)
{
    CachePolicySettings *s = cache_policy_settings_new();
    if (src == NULL)
        return s;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, src->values);
    while (g_hash_table_iter_next(&it, &k, &v))
        g_hash_table_insert(s->values, k, g_strdup(v));
    return s;
}

void cache_policy_settings_free(CachePolicySettings *s)
{
    if (s == NULL)
        return;
    g_hash_table_destroy(s->values);
    g_free(s);
}

const CachePolicyKey *cache_policy_find_key(const char *key, const CachePolicyOps **owner)
{
    if (key == NULL)
        return NULL;
    char *norm = g_strdup(key);
    g_strdelimit(norm, "_", '-');
    const CachePolicyKey *found = NULL;
    for (size_t i = 0; i < cache_policy_count() && !found; i++) {
        const CachePolicyOps *ops = cache_policy_at(i);
        for (size_t k = 0; k < ops->n_keys && !found; k++) {
            if (strcmp(ops->keys[k].name, norm) == 0) {
                found = &ops->keys[k];
                if (owner)
                    *owner = ops;
            }
        }
    }
    for (size_t i = 0; i < chunk_policy_count() && !found; i++) {
        const ChunkPolicyOps *ops = chunk_policy_at(i);
        for (size_t k = 0; k < ops->n_keys && !found; k++) {
            if (strcmp(ops->keys[k].name, norm) == 0) {
                found = &ops->keys[k];
                if (owner)
                    *owner = NULL;
            }
        }
    }
    g_free(norm);
    return found;
}

static gboolean bad_value(GError **err, const CachePolicyKey *key, const char *value)
{
    GString *want = g_string_new(NULL);
    if (key->type != CACHE_KEY_WORD)
        g_string_append_printf(want, "%s from %g to %g", key->type == CACHE_KEY_UINT ? "a whole number" : "a number",
                               key->min, key->max);
    for (size_t i = 0; key->words && key->words[i]; i++)
        g_string_append_printf(want, "%s%s", want->len ? " or " : "", key->words[i]);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s: invalid value \"%.64s\" (expected %s)", key->name,
                value ? value : "", want->str);
    g_string_free(want, TRUE);
    return FALSE;
}

gboolean cache_policy_key_parse(const CachePolicyKey *key, const char *value, CachePolicyValue *out, GError **err)
{
    if (value == NULL || *value == '\0')
        return bad_value(err, key, value);
    for (int i = 0; key->words && key->words[i]; i++) {
        if (g_ascii_strcasecmp(value, key->words[i]) == 0) {
            out->word = i;
            out->number = 0;
            return TRUE;
        }
    }
    if (key->type == CACHE_KEY_WORD || g_ascii_isspace(*value))
        return bad_value(err, key, value);
    if (key->type == CACHE_KEY_UINT)
        for (const char *p = value; *p; p++)
            if (!g_ascii_isdigit(*p))
                return bad_value(err, key, value);
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(value, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < key->min || v > key->max)
        return bad_value(err, key, value);
    out->word = -1;
    out->number = v;
    return TRUE;
}

gboolean cache_policy_settings_set(CachePolicySettings *s, const char *key, const char *value, GError **err)
{
    const CachePolicyKey *k = cache_policy_find_key(key, NULL);
    CachePolicyValue v;
    if (k == NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%.64s: no policy has this key", key ? key : "");
        return FALSE;
    }
    if (!cache_policy_key_parse(k, value, &v, err))
        return FALSE;
    g_hash_table_insert(s->values, (gpointer)k->name, g_strdup(value));
    return TRUE;
}

void cache_policy_settings_resolve(const CachePolicySettings *s, const CachePolicyOps *ops, CachePolicyValue *out)
{
    cache_policy_settings_resolve_keys(s, ops->keys, ops->n_keys, out);
}

void cache_policy_settings_resolve_keys(const CachePolicySettings *s, const CachePolicyKey *keys, size_t n,
                                        CachePolicyValue *out)
{
    for (size_t i = 0; i < n; i++) {
        const CachePolicyKey *k = &keys[i];
        const char *text = s ? g_hash_table_lookup(s->values, k->name) : NULL;
        if (text == NULL || !cache_policy_key_parse(k, text, &out[i], NULL)) {
            /* a default that does not parse is a bug in the policy's file */
            gboolean ok = cache_policy_key_parse(k, k->default_value, &out[i], NULL);
            g_assert(ok);
        }
    }
}

const char *cache_policy_settings_stray(const CachePolicySettings *s, const CachePolicyKey *keys, size_t n)
{
    const char *stray = NULL;
    GHashTableIter it;
    gpointer name, text;
    g_hash_table_iter_init(&it, s->values);
    while (g_hash_table_iter_next(&it, &name, &text)) {
        gboolean applies = FALSE;
        for (size_t i = 0; i < n && !applies; i++)
            applies = strcmp(keys[i].name, name) == 0;
        const CachePolicyKey *k = cache_policy_find_key(name, NULL);
        CachePolicyValue set, def;
        gboolean ok = cache_policy_key_parse(k, text, &set, NULL) && cache_policy_key_parse(k, k->default_value, &def, NULL);
        g_assert(ok); /* checked when set; a default that does not parse is a bug */
        if (applies || (set.word == def.word && set.number == def.number))
            continue;
        if (stray == NULL || strcmp(name, stray) < 0) /* the same one whatever the table's order */
            stray = name;
    }
    return stray;
}
