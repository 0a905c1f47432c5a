/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config_keys.h: destor.config's own keys (not the cache's, the rewrite
 * keys or upstream Destor's unsupported ones) as one table: each key's
 * name, value type, field of Config and checker. */
#ifndef DESTOR_CONFIG_KEYS_H
#define DESTOR_CONFIG_KEYS_H

#include "config/config.h"

#include <glib.h>

/* Set `key` from its nvals values. FALSE with *err set for a bad value, or
 * with *known FALSE (and no error) when the key, or this form of it, is
 * not one of the table's. */
gboolean config_key_set(Config *cfg, const char *key, char **vals, guint nvals, gboolean *known, GError **err);

/* Append the table's key names to out (for "did you mean"). */
void config_key_names(GPtrArray *out);

/* TRUE when nvals == want; else FALSE with an error saying the key takes
 * `form` ("one path", ...): a value with spaces must be quoted. */
gboolean config_value_count(GError **err, const char *key, char **vals, guint nvals, guint want, const char *form);

#endif
