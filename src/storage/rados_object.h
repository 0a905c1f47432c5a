/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_object.h: whole objects and omaps in a RadosCluster's namespace,
 * for the store's metadata (store_cluster.h): each write is one
 * synchronous write operation (rados_write_op_operate) unless the bytes
 * exceed one operation's limit, each read bounded by the cluster's
 * timeout, librados's errors as DESTOR_ERRORs naming the object. */
#ifndef DESTOR_RADOS_OBJECT_H
#define DESTOR_RADOS_OBJECT_H

#include "storage/rados_cluster.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* Replace object `oid`'s bytes by data[0..len) (created if missing). Up to
 * RADOS_OBJECT_PIECE bytes in one operation; more in one operation a piece,
 * the first truncating (the caller publishes the object only afterwards). */
#define RADOS_OBJECT_PIECE (32u << 20)
gboolean rados_object_put(RadosCluster *c, const char *oid, const void *data, size_t len, GError **err);
/* Object `oid`'s bytes (g_free); *found FALSE (and *data NULL) when it does not exist. */
gboolean rados_object_get(RadosCluster *c, const char *oid, uint8_t **data, size_t *len, gboolean *found,
                          GError **err);
/* Remove `oid`; a missing object is no error. */
gboolean rados_object_remove(RadosCluster *c, const char *oid, GError **err);

/* Set n omap keys (keys[i] of key_lens[i] bytes) to vals[i] (val_lens[i]
 * bytes) in one operation, creating the object; with `clear` the omap is
 * emptied first in the same operation. */
gboolean rados_omap_put(RadosCluster *c, const char *oid, gboolean clear, const char *const *keys,
                        const size_t *key_lens, const char *const *vals, const size_t *val_lens, size_t n,
                        GError **err);

/* One object's omap write of rados_omap_puts_many. */
typedef struct {
    const char *oid;
    gboolean clear;
    const char *const *keys;
    const size_t *key_lens;
    const char *const *vals;
    const size_t *val_lens;
    size_t n;
} RadosOmapWrite;
/* rados_omap_put for each of `n` writes (to distinct objects), up to
 * RADOS_OMAP_IN_FLIGHT of them in flight at once; every write started is
 * waited for, the first failure reported. */
#define RADOS_OMAP_IN_FLIGHT 32
gboolean rados_omap_puts_many(RadosCluster *c, const RadosOmapWrite *w, size_t n, GError **err);

/* rados_omap_put (without clearing) only if omap key `guard` (a C string,
 * among the keys set, with a value of at least one byte) is not set yet:
 * one operation whose omap comparison fails, and with it the whole
 * operation, when the key holds a value. *taken: it did. */
gboolean rados_omap_put_new(RadosCluster *c, const char *oid, const char *guard, const char *const *keys,
                            const size_t *key_lens, const char *const *vals, const size_t *val_lens, size_t n,
                            gboolean *taken, GError **err);

/* Called with each key and value in key order; FALSE (err set) stops. */
typedef gboolean (*RadosOmapFn)(const char *key, size_t key_len, const uint8_t *val, size_t val_len, void *ctx,
                                GError **err);
/* Every omap entry of `oid`, read in batches; *found FALSE when the object
 * does not exist (fn not called). */
gboolean rados_omap_each(RadosCluster *c, const char *oid, RadosOmapFn fn, void *ctx, gboolean *found,
                         GError **err);

#endif
