/* SPDX-License-Identifier: GPL-3.0-or-later */
/* upstream_keys.h: the keys of upstream Destor's destor.config that this
 * store does not implement (near-exact and similarity indexes, rewriting,
 * retention, FSL traces), each with the values upstream takes. A Destor
 * config file therefore still loads (config.c warns that they are not
 * supported), while a misspelt key or a malformed value is still an error. */
#ifndef DESTOR_UPSTREAM_KEYS_H
#define DESTOR_UPSTREAM_KEYS_H

#include <glib.h>

typedef enum {
    UPSTREAM_KEY_NOT_ONE, /* not one of these keys */
    UPSTREAM_KEY_OK,      /* one of them, in a form upstream takes */
    UPSTREAM_KEY_BAD,     /* one of them, with values upstream would refuse */
} UpstreamKeyResult;

/* Checks the n values of key; on UPSTREAM_KEY_BAD, *form (if not NULL) is
 * what the key takes, e.g. "yes | no". */
UpstreamKeyResult upstream_key_check(const char *key, char *const *vals, guint n, const char **form);

/* The i-th key (for suggestions and tests), NULL past the last. */
const char *upstream_key_at(size_t i);

#endif
